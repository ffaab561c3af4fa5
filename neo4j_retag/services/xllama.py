"""llama.cpp's own C++ server from the prebuilt ``xllamacpp`` wheel (MIT, Xorbits; the backend
of Xinference): the same OpenAI-compatible server as ``llama-server`` with nothing to compile.

Run as ``python -m neo4j_retag.services.xllama --model GGUF --port P ...`` by ``llm_local``
(which spawns it, writes its pid and stops it with SIGTERM); the wheel serves HTTP on its own
threads, so this process only sets the parameters and waits.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading

# LLM_SPECULATIVE -> the member of xllamacpp.common_speculative_type
SPEC_TYPES = ("none", "ngram-simple", "ngram-map-k", "ngram-map-k4v", "ngram-mod", "ngram-cache")


def params(args: argparse.Namespace):  # noqa: ANN201 - xllamacpp.CommonParams, imported lazily
    """The server's parameters, as ``llm_local.command`` gives llama-server's flags."""
    import xllamacpp

    p = xllamacpp.CommonParams()
    p.model.path = args.model
    p.model_alias = {args.alias}
    p.hostnames = [args.host]
    p.port = args.port
    p.n_ctx = args.ctx
    p.n_batch = 512
    p.n_parallel = 1  # one slot with the whole context, requests served in turn
    for cpu in (p.cpuparams, p.cpuparams_batch):
        cpu.n_threads = args.threads
        cpu.poll = args.poll
    p.use_jinja = True  # the chat template stored in the GGUF
    # llama-cpp-python's server default, which the prompts were tuned with (as llm_local
    # gives llama-server)
    p.sampling.penalty_repeat = 1.1
    p.ui = False
    p.cache_prompt = args.cache_prompt
    p.n_cache_reuse = args.cache_reuse
    speculate(p, args.spec_type, args.spec_ngram_n, args.draft_max)
    return p


def speculate(p, kind: str, n: int, draft: int) -> None:  # noqa: ANN001 - CommonParams
    """Draftless speculative decoding of ``kind`` (``--spec-type``): drafts of up to ``draft``
    tokens found after the last ``n`` tokens where they occurred before in the context."""
    if kind == "none":
        return
    import xllamacpp

    s = p.speculative
    s.types = [getattr(xllamacpp.common_speculative_type,
                       "COMMON_SPECULATIVE_TYPE_" + kind.upper().replace("-", "_"))]
    for part in (s.ngram_simple, s.ngram_map_k, s.ngram_map_k4v):
        part.size_n, part.size_m = n, draft
    s.ngram_mod.n_match, s.ngram_mod.n_max = n, draft
    s.ngram_mod.n_min = min(s.ngram_mod.n_min, draft)
    s.draft.n_max = draft


def parser() -> argparse.ArgumentParser:
    """The options ``llm_local.command`` passes."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True)
    parser.add_argument("--alias", required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--ctx", type=int, default=8192)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--poll", type=int, default=50)
    parser.add_argument("--cache-prompt", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--cache-reuse", type=int, default=0)
    parser.add_argument("--spec-type", choices=SPEC_TYPES, default="none")
    parser.add_argument("--spec-ngram-n", type=int, default=12)
    parser.add_argument("--draft-max", type=int, default=16)
    return parser


def main(argv: list[str] | None = None) -> None:
    args = parser().parse_args(argv)
    import xllamacpp

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    server = xllamacpp.Server(params(args))
    print(f"listening on {server.listening_address}", flush=True)
    stop.wait()
    sys.stdout.flush()
    # the wheel's HTTP threads are not daemon threads: leave without joining them
    import os
    os._exit(0)


if __name__ == "__main__":
    main()
