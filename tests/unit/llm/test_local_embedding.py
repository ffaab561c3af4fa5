"""The local embedding model in process (fastembed): chosen when no endpoint is set, loaded once
per process by one thread, offline, the vectors and token counts of the server it replaced,
usage counted per stage, a failing input failing only itself, settings it cannot serve refused.

The tests marked ``embed`` load the real model (a few seconds, ~0.3 GB)."""

import asyncio
import json
import socket
import threading
import time
from pathlib import Path

import pytest

from neo4j_retag.config import Settings
from neo4j_retag.errors import ConfigError
from neo4j_retag.llm import local_embedding
from neo4j_retag.llm.embeddings import Embedder
from neo4j_retag.stages import Stage

REFERENCE = Path(__file__).parents[2] / "data" / "embedding-reference.json"


def local_settings(tmp_path, **extra):
    return Settings(**{"openai_base_url": None, "neo4j_retag_home": tmp_path / "home",
                       "llm_cache_dir": tmp_path / "cache", "llm_max_retries": 0, **extra})


def embed_items(settings, items):
    async def go():
        async with Embedder(settings) as emb:
            return await emb.embed_items(items, stage=Stage.EMBED), emb
    return asyncio.run(go())


@pytest.fixture
def forget_models():
    """The models loaded by a test dropped after it (each test's home is its own)."""
    before = set(local_embedding._models)
    yield
    for key in set(local_embedding._models) - before:
        local_embedding._models.pop(key)


class FakeModel:
    """Stands in for fastembed: counts loads, fails any text holding 'poison'."""

    loads = 0

    def __init__(self, folder, threads, cache_dir):
        time.sleep(0.05)  # a slow load, so that racing threads would load twice
        type(self).loads += 1

    def embed(self, texts):
        if any("poison" in t for t in texts):
            raise RuntimeError("[ONNXRuntimeError] : 2 : INVALID_ARGUMENT")
        return [[1.0] + [0.0] * 383 for _ in texts], 3 * len(texts)


def test_loaded_once_per_process_by_one_thread(tmp_path, monkeypatch, forget_models):
    monkeypatch.setattr(local_embedding, "Model", FakeModel)
    FakeModel.loads = 0
    s = local_settings(tmp_path)
    got = []
    threads = [threading.Thread(target=lambda: got.append(local_embedding.model(s)))
               for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert FakeModel.loads == 1 and len({id(m) for m in got}) == 1
    assert local_embedding.model(s) is got[0] and FakeModel.loads == 1


def test_a_failing_input_fails_only_itself_and_usage_is_counted(tmp_path, monkeypatch,
                                                                 forget_models):
    monkeypatch.setattr(local_embedding, "Model", FakeModel)
    s = local_settings(tmp_path, embedding_batch=4)
    items = {"a": "ghosts", "b": "poison pill", "c": "spirits", "d": "  "}
    (vectors, failures), emb = embed_items(s, items)
    assert set(vectors) == {"a", "c"}
    assert {f.item: f.reason for f in failures} == {"b": "llm_error", "d": "empty"}
    assert "the local embedding model failed" in next(f.error for f in failures
                                                       if f.item == "b")
    st = emb.usage.stages[Stage.EMBED]
    # the batch of three, then each alone: 2 usable calls, 2 failed (the batch, the poison)
    assert st.calls == 2 and st.failed == 2 and st.prompt_tokens == 6
    assert emb.endpoint._client is None  # no HTTP client was made


def test_settings_the_local_model_cannot_serve_are_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(local_embedding, "Model", FakeModel)
    with pytest.raises(ConfigError, match="EMBEDDING_MODEL is 'text-embedding-3-small'"):
        embed_items(local_settings(tmp_path, embedding_model="text-embedding-3-small"),
                    {"x": "text"})
    with pytest.raises(ConfigError, match="gives 384 dimensions, not EMBEDDING_DIMENSIONS=256"):
        embed_items(local_settings(tmp_path, embedding_dimensions=256), {"x": "text"})


def test_an_altered_model_file_is_a_config_error(tmp_path, monkeypatch, forget_models):
    import dataclasses

    from neo4j_retag.llm import embed_files
    monkeypatch.setattr(embed_files, "MODEL",
                        dataclasses.replace(embed_files.MODEL, sha256="0" * 64))
    with pytest.raises(ConfigError, match="is not the pinned file"):
        embed_items(local_settings(tmp_path), {"x": "text"})


@pytest.mark.embed
def test_the_vectors_and_tokens_are_the_removed_servers(tmp_path, forget_models):
    """Against vectors the embedding server computed (tests/data/embedding-reference.json,
    made by its code before it was removed): short texts, a text cut at 256 word pieces."""
    ref = json.loads(REFERENCE.read_text())
    vectors, n = local_embedding.model(local_settings(tmp_path)).embed(ref["texts"])
    assert n == ref["prompt_tokens"]  # 535: the server's count, padding excluded
    for got, want in zip(vectors, ref["vectors"], strict=True):
        cos = sum(a * b for a, b in zip(got, want, strict=True))
        assert cos >= 0.9999, cos
        assert max(abs(a - b) for a, b in zip(got, want, strict=True)) < 1e-4


@pytest.mark.embed
def test_loaded_offline_without_any_network(tmp_path, monkeypatch, forget_models):
    """No socket is opened while the model loads and embeds, its hub cache stays empty, and
    the environment is as it was afterwards."""
    opened = []

    def refuse(self, address):
        opened.append(address)
        raise OSError("network use in an offline test")
    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    s = local_settings(tmp_path)
    (vectors, failures), emb = embed_items(s, {"x": "Marley's ghost visits Scrooge."})
    assert not failures and len(vectors["x"]) == 384 and not opened
    cache = tmp_path / "home" / "embed" / "hub-cache"
    assert not cache.exists() or not any(cache.iterdir())
    import os
    assert "HF_HUB_OFFLINE" not in os.environ
    st = emb.usage.stages[Stage.EMBED]
    assert st.calls == 1 and st.prompt_tokens == 11 and st.seconds > 0
