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
    p.cpuparams.n_threads = args.threads
    p.cpuparams_batch.n_threads = args.threads
    p.use_jinja = True  # the chat template stored in the GGUF
    # llama-cpp-python's server default, which the prompts were tuned with (as llm_local
    # gives llama-server)
    p.sampling.penalty_repeat = 1.1
    p.ui = False
    return p


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True)
    parser.add_argument("--alias", required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--ctx", type=int, default=8192)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
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
