"""The connections under the app: uvicorn's h11 protocol with the bounds it lacks. A client
has ``header_timeout`` seconds from connecting (or from its previous response) to send a
whole request head and ``body_timeout`` more for the body, else it gets a 408 and the
connection is closed: trickling clients cannot hold connections open (uvicorn has no read
timeout of its own; its keep-alive timer only covers an idle connection). Past
``max_connections`` open at once a new connection gets a 503 and is closed. Every answer
from here carries the security headers (:mod:`.headers`), and an HTTP request h11 cannot
parse gets its 400 as one JSON line too."""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from .headers import for_path

log = logging.getLogger(__name__)
REASONS = {400: "Bad Request", 408: "Request Timeout", 503: "Service Unavailable"}


@dataclass(frozen=True)
class Limits:
    """The connection bounds (docs/serve.md: "Connections")."""

    header_timeout: float = 10.0  # seconds to a complete request head
    body_timeout: float = 30.0  # seconds from the head to the body's last byte
    keep_alive: int = 5  # seconds an idle connection is kept between requests (uvicorn's)
    max_connections: int = 256  # open at once; the next one gets a 503


def raw_response(status: int, message: str, extra: tuple[tuple[str, str], ...] = ()) -> bytes:
    """A whole HTTP/1.1 response (one JSON line, security headers, ``Connection: close``)
    written straight to the transport, where no ASGI cycle (or h11 state) can send one."""
    body = json.dumps({"error": message}).encode()
    lines = [f"HTTP/1.1 {status} {REASONS[status]}", "content-type: application/json",
             f"content-length: {len(body)}", "connection: close",
             *(f"{k}: {v}" for k, v in extra),
             *(f"{k.decode()}: {v.decode()}" for k, v in for_path(""))]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def protocol(limits: Limits) -> type[H11Protocol]:
    """uvicorn's h11 protocol bounded by ``limits``."""

    class Bounded(H11Protocol):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._timer: asyncio.TimerHandle | None = None
            self._waiting_for: Any = None  # the h11 state the timer waits to see left
            self._refused = False

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            if len(self.connections) > limits.max_connections:
                self._refused = True
                log.warning("connection refused: %d open (the cap)", limits.max_connections)
                transport.write(raw_response(
                    503, f"too many connections ({limits.max_connections} open): retry "
                    "shortly", (("retry-after", "1"),)))
                # half-closed, then closed: a client still sending reads its 503 instead of
                # a reset (closing with unread bytes would send a TCP reset)
                if transport.can_write_eof():
                    transport.write_eof()
                    self.loop.call_later(2.0, transport.close)
                else:
                    transport.close()
                return
            self._follow()

        def data_received(self, data: bytes) -> None:
            if self._refused:
                return  # over the cap: what it sends is dropped until the close
            super().data_received(data)
            self._follow()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._follow()

        def connection_lost(self, exc: Exception | None) -> None:
            self._stop_timer()
            super().connection_lost(exc)

        def send_400_response(self, msg: str) -> None:
            self._stop_timer()
            self.transport.write(raw_response(400, f"invalid HTTP request: {msg}"))
            self.transport.close()

        def _follow(self) -> None:
            """(Re)arm the timer for what the client owes now: a head (IDLE), a body
            (SEND_BODY) or nothing. A deadline runs from the moment the client started
            owing it: bytes arriving meanwhile do not extend it."""
            state = self.conn.their_state
            if state is self._waiting_for or self.transport.is_closing():
                return
            self._stop_timer()
            seconds = {h11.IDLE: limits.header_timeout,
                       h11.SEND_BODY: limits.body_timeout}.get(state)
            if seconds is not None:
                self._waiting_for = state
                self._timer = self.loop.call_later(seconds, self._expire, state)

        def _stop_timer(self) -> None:
            if self._timer is not None:
                self._timer.cancel()
            self._timer, self._waiting_for = None, None

        def _expire(self, state: Any) -> None:
            self._timer, self._waiting_for = None, None
            if self.transport.is_closing() or self.conn.their_state is not state:
                return
            what = "request head" if state is h11.IDLE else "request body"
            seconds = limits.header_timeout if state is h11.IDLE else limits.body_timeout
            # answered unless the route has begun its answer (a client still sending a body
            # the route never read is just closed)
            if state is h11.IDLE or (self.cycle is not None and not self.cycle.response_started):
                self.transport.write(raw_response(
                    408, f"the {what} did not arrive within {seconds:g} s"))
            self.transport.close()

    return Bounded


def server_config(app: Any, host: str, port: int, limits: Limits | None = None,
                  **kwargs: Any) -> uvicorn.Config:
    """uvicorn's configuration for ``app`` on ``host``:``port`` with the connection bounds;
    ``kwargs``: further uvicorn settings (TLS files, log level ...)."""
    limits = limits or Limits()
    return uvicorn.Config(app, host=host, port=port, http=protocol(limits),
                          timeout_keep_alive=limits.keep_alive,
                          **{"log_level": "warning", **kwargs})
