"""A TCP proxy between the Neo4j driver and a server that makes the network fail on cue (the
fault tests and benchmarks/faults/neo4j_faults.py).

States: ``up`` forwards; ``refuse`` is a server gone (every open connection reset, nothing
listening: connects are refused); ``reset`` a flaky network (every open connection reset, each
new one reset at once); ``blackhole`` a silent drop (nothing forwarded or answered, connects
accepted and left hanging; when it ends the held connections are reset, as a NAT that forgot
them answers the next packet). :meth:`reset_all` resets the open connections once;
:meth:`drop_all` silently drops them for good (an idle connection a firewall forgot: no
answer, no reset) while new connections work. ``idle_drop`` (seconds) does that to each
connection that carried nothing for so long, as a NAT or firewall with an idle timeout does.
"""

from __future__ import annotations

import contextlib
import select
import socket
import struct
import threading
import time

POLL = 0.05  # seconds a pump waits before it looks at the state again


def _rst(sock: socket.socket) -> None:
    """Close with a TCP reset (SO_LINGER 0), not a FIN."""
    with contextlib.suppress(OSError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    with contextlib.suppress(OSError):
        sock.close()


class Proxy:
    """``Proxy(upstream_port).start()`` listens on ``port`` (default a free one: ``.port``)."""

    def __init__(self, upstream_port: int, port: int = 0, host: str = "127.0.0.1",
                 idle_drop: float | None = None) -> None:
        self.host, self.upstream, self.port = host, upstream_port, port
        self.idle_drop = idle_drop  # seconds of silence after which a connection is held
        self.dropped = 0  # connections held by idle_drop so far
        self.state = "up"
        self.connections = 0  # accepted so far
        self._lock = threading.Lock()
        self._open: set[tuple[socket.socket, socket.socket | None]] = set()
        self._held: set[tuple[socket.socket, socket.socket | None]] = set()  # drop_all
        self._listener: socket.socket | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept_loop, daemon=True)

    def start(self) -> Proxy:
        self._listen()
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)
        self._close_listener()
        self.reset_all()

    def __enter__(self) -> Proxy:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def set(self, state: str) -> None:
        """Go to ``state`` (see the module doc); open connections are reset on the way into
        refuse or reset, and on the way out of blackhole."""
        assert state in ("up", "refuse", "reset", "blackhole"), state
        with self._lock:
            before, self.state = self.state, state
        if state in ("refuse", "reset") or before == "blackhole":
            self.reset_all()

    def outage(self, seconds: float, kind: str = "refuse") -> None:
        """``kind`` for ``seconds``, then up again (blocking)."""
        self.set(kind)
        time.sleep(seconds)
        self.set("up")

    def reset_all(self) -> int:
        """Reset every open connection; how many there were."""
        with self._lock:
            conns, self._open = self._open, set()
        for pair in conns:
            for s in pair:
                if s is not None:
                    _rst(s)
        return len(conns)

    def drop_all(self) -> int:
        """Hold every open connection for good: nothing forwarded, answered or reset; how
        many there were."""
        with self._lock:
            self._held |= self._open
            return len(self._open)

    def _listen(self) -> None:
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((self.host, self.port))
        s.listen(64)
        s.settimeout(POLL)
        self.port = s.getsockname()[1]
        self._listener = s

    def _close_listener(self) -> None:
        if self._listener is not None:
            with contextlib.suppress(OSError):
                self._listener.close()
            self._listener = None

    def _accept_loop(self) -> None:
        while not self._stop.is_set():
            if self.state == "refuse":
                self._close_listener()
                time.sleep(POLL)
                continue
            if self._listener is None:
                try:
                    self._listen()
                except OSError:  # the port is still held by the closed listener: a moment
                    time.sleep(POLL)
                    continue
            try:
                client, _ = self._listener.accept()
            except (TimeoutError, OSError):
                continue
            self.connections += 1
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        state = self.state
        if state in ("reset", "refuse"):
            _rst(client)
            return
        upstream = None
        if state == "up":
            try:
                upstream = socket.create_connection((self.host, self.upstream), timeout=5)
            except OSError:
                _rst(client)
                return
        pair = (client, upstream)
        with self._lock:
            self._open.add(pair)
        try:
            self._pump(client, upstream, pair)
        finally:
            with self._lock:
                gone = pair not in self._open
                self._open.discard(pair)
            if not gone:
                for s in pair:
                    if s is not None:
                        with contextlib.suppress(OSError):
                            s.close()

    def _pump(self, client: socket.socket, upstream: socket.socket | None,
              pair: tuple[socket.socket, socket.socket | None]) -> None:
        last = time.monotonic()  # the last byte either way
        while not self._stop.is_set():
            with self._lock:
                if pair not in self._open:
                    return  # reset from outside
                if (self.idle_drop is not None and pair not in self._held
                        and time.monotonic() - last > self.idle_drop):
                    self._held.add(pair)
                    self.dropped += 1
            if upstream is None or self.state == "blackhole" or pair in self._held:
                time.sleep(POLL)  # held: nothing forwarded, nothing answered
                continue
            try:
                ready, _, _ = select.select([client, upstream], [], [], POLL)
                for src in ready:
                    data = src.recv(65536)
                    if not data:
                        return
                    (upstream if src is client else client).sendall(data)
                    last = time.monotonic()
            except (OSError, ValueError):
                return
