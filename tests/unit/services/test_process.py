"""Probing a local server's /v1/models: answering, busy generating, or nothing there."""

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from neo4j_retag.services import process


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_answering_busy_and_absent_servers_are_told_apart():
    class Models(BaseHTTPRequestHandler):
        def do_GET(self):
            body = json.dumps({"data": [{"id": "smollm2"}]}).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    up = ThreadingHTTPServer(("127.0.0.1", 0), Models)
    threading.Thread(target=up.serve_forever, daemon=True).start()
    # llama_cpp.server while generating: the connection is taken, no reply comes
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen(4)
    try:
        models, is_busy = process.probe_models(up.server_address[1], timeout=2)
        assert models == {"data": [{"id": "smollm2"}]} and not is_busy
        assert process.probe_models(busy.getsockname()[1], timeout=0.3) == (None, True)
        assert process.serving(busy.getsockname()[1], timeout=0.3)  # not a free port
        assert process.probe_models(_free_port(), timeout=0.3) == (None, False)
        assert not process.serving(_free_port(), timeout=0.3)
    finally:
        up.shutdown()
        busy.close()
