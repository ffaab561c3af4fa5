"""The local embedding server's process (``python -m neo4j_retag.services.embed_server``; started
by `neo4j-retag embed start`, see ``embed_local``): a sentence-embedding model in ONNX on
onnxruntime behind an OpenAI-compatible API on loopback.

    POST /v1/embeddings  {"model", "input": str | [str], "encoding_format"?, "dimensions"?}
    GET  /v1/models, /health

The pipeline is sentence-transformers' for all-MiniLM-L6-v2: WordPiece tokens (the model's
own ``tokenizer.json``) truncated at 256, the transformer, mean pooling over the attention
mask, L2 normalisation. Inputs are run in batches of similar length (less padding); one batch
at a time (a lock: onnxruntime already uses every thread it is given). A request for another
model name is answered 404 (the client says: check EMBEDDING_MODEL), for another dimension
400: the vectors of this model are never stored under another name or size.
"""

from __future__ import annotations

import argparse
import base64
import json
import logging
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

log = logging.getLogger("neo4j_retag.embed_server")
MAX_INPUTS = 2048  # per request, as OpenAI's API
MAX_BODY = 64 << 20
SUB_BATCH = 16  # texts per forward pass


class Model:
    def __init__(self, model_file: str, tokenizer_file: str, threads: int,
                 max_length: int = 256) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.tokenizer = Tokenizer.from_file(tokenizer_file)
        self.tokenizer.enable_truncation(max_length=max_length)
        self.tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = 3
        self.session = ort.InferenceSession(model_file, sess_options=options,
                                            providers=["CPUExecutionProvider"])
        self.inputs = {i.name for i in self.session.get_inputs()}
        self.dimensions = int(self.session.get_outputs()[0].shape[-1])
        self.lock = threading.Lock()

    def embed(self, texts: list[str]) -> tuple[list[list[float]], int]:
        """Unit vectors in input order, and the tokens read (padding excluded)."""
        import numpy as np

        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out: list[Any] = [None] * len(texts)
        n_tokens = 0
        with self.lock:
            for start in range(0, len(order), SUB_BATCH):
                idx = order[start:start + SUB_BATCH]
                enc = self.tokenizer.encode_batch([texts[i] for i in idx])
                ids = np.array([e.ids for e in enc], dtype=np.int64)
                mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
                feeds = {"input_ids": ids, "attention_mask": mask}
                if "token_type_ids" in self.inputs:
                    feeds["token_type_ids"] = np.zeros_like(ids)
                hidden = self.session.run(None, feeds)[0]
                weights = mask[..., None].astype(np.float32)
                pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
                pooled /= np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
                n_tokens += int(mask.sum())
                for row, i in enumerate(idx):
                    out[i] = pooled[row].astype(np.float32)
        return [v.tolist() for v in out], n_tokens


def _b64(vector: list[float]) -> str:
    import numpy as np
    return base64.b64encode(np.asarray(vector, dtype="<f4").tobytes()).decode()


def make_handler(model: Model, alias: str) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt: str, *args: Any) -> None:
            log.debug(fmt, *args)

        def _send(self, status: int, payload: Any) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _error(self, status: int, message: str, code: str) -> None:
            self._send(status, {"error": {"message": message, "type": "invalid_request_error",
                                          "code": code}})

        def do_GET(self) -> None:
            if self.path.rstrip("/") in ("/v1/models", "/models"):
                self._send(200, {"object": "list", "data": [
                    {"id": alias, "object": "model", "owned_by": "neo4j-retag",
                     "dimensions": model.dimensions}]})
            elif self.path.rstrip("/") == "/health":
                self._send(200, {"status": "ok"})
            else:
                self._error(404, f"no route {self.path}", "not_found")

        def do_POST(self) -> None:
            if self.path.rstrip("/") not in ("/v1/embeddings", "/embeddings"):
                self._error(404, f"no route {self.path}", "not_found")
                return
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BODY:
                self._error(413, "request body too large", "too_large")
                return
            try:
                body = json.loads(self.rfile.read(length))
            except ValueError:
                self._error(400, "the body is not JSON", "invalid_json")
                return
            self._embeddings(body if isinstance(body, dict) else {})

        def _embeddings(self, body: dict[str, Any]) -> None:
            if body.get("model") != alias:
                self._error(404, f"model {body.get('model')!r} not found: this server embeds "
                            f"with {alias!r}", "model_not_found")
                return
            texts = body.get("input")
            texts = [texts] if isinstance(texts, str) else texts
            if (not isinstance(texts, list) or not texts or len(texts) > MAX_INPUTS
                    or not all(isinstance(t, str) and t for t in texts)):
                self._error(400, f"input must be a non-empty string or a list of 1 to "
                            f"{MAX_INPUTS} non-empty strings", "invalid_input")
                return
            if body.get("dimensions") not in (None, model.dimensions):
                self._error(400, f"this model gives {model.dimensions} dimensions, not "
                            f"{body['dimensions']}", "invalid_dimensions")
                return
            t0 = time.perf_counter()
            vectors, n = model.embed(texts)
            b64 = body.get("encoding_format") == "base64"
            log.info("%d inputs, %d tokens, %.0f ms", len(texts), n,
                     1000 * (time.perf_counter() - t0))
            self._send(200, {"object": "list", "model": alias, "data": [
                {"object": "embedding", "index": i, "embedding": _b64(v) if b64 else v}
                for i, v in enumerate(vectors)],
                "usage": {"prompt_tokens": n, "total_tokens": n}})

    return Handler


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model-file", required=True)
    ap.add_argument("--tokenizer-file", required=True)
    ap.add_argument("--alias", required=True, help="the model name requests must use")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    model = Model(args.model_file, args.tokenizer_file, args.threads)
    server = ThreadingHTTPServer((args.host, args.port), make_handler(model, args.alias))
    server.daemon_threads = True
    log.info("serving %s (%d dimensions) on http://%s:%d/v1", args.alias, model.dimensions,
             args.host, args.port)
    try:
        server.serve_forever()
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
