"""The connections under the app: uvicorn's h11 protocol with the bounds it lacks. A client
has ``header_timeout`` seconds from connecting (or from its previous response) to send a
whole request head and ``body_timeout`` more for the body, else it gets a 408 and the
connection is closed: trickling clients cannot hold connections open (uvicorn has no read
timeout of its own; its keep-alive timer only covers an idle connection). Past
``max_connections`` open at once a new connection gets a 503 and is closed, and past
``per_client`` open from one client address a 429, so one client cannot take every
connection. A request head over ``max_head`` bytes is a 431 (h11 bounds only a head still
arriving, not one read whole), and a request with both ``Content-Length`` and
``Transfer-Encoding`` a 400 (two framings: request smuggling); both close the connection,
so nothing sent after them on it is read. Every answer from here carries the security
headers (:mod:`.headers`), and an HTTP request h11 cannot parse gets its 400 as one JSON
line too."""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
from dataclasses import dataclass
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from ..config import ServeSettings
from .headers import for_path

log = logging.getLogger(__name__)
REASONS = {400: "Bad Request", 408: "Request Timeout", 429: "Too Many Requests",
           431: "Request Header Fields Too Large", 503: "Service Unavailable"}
LINGER = 2.0  # seconds a refused connection stays half-closed before it is closed


@dataclass(frozen=True)
class Limits:
    """The connection bounds (docs/serve.md: "Connections")."""

    header_timeout: float = 10.0  # seconds to a complete request head
    body_timeout: float = 30.0  # seconds from the head to the body's last byte
    keep_alive: int = 5  # seconds an idle connection is kept between requests (uvicorn's)
    max_connections: int = 256  # open at once; the next one gets a 503
    # open at once from one client address (SERVE_CONNECTIONS_PER_CLIENT); the next a 429
    per_client: int = ServeSettings.model_fields["connections_per_client"].default
    max_head: int = 16 * 1024  # bytes of a request head: its line and headers (431 beyond)

    @classmethod
    def of(cls, api: ServeSettings) -> Limits:
        """The bounds with serve's settings (the connections per client)."""
        return cls(per_client=api.connections_per_client)


def raw_response(status: int, message: str, extra: tuple[tuple[str, str], ...] = ()) -> bytes:
    """A whole HTTP/1.1 response (one JSON line, security headers, ``Connection: close``)
    written straight to the transport, where no ASGI cycle (or h11 state) can send one."""
    body = json.dumps({"error": message}).encode()
    lines = [f"HTTP/1.1 {status} {REASONS[status]}", "content-type: application/json",
             f"content-length: {len(body)}", "connection: close",
             *(f"{k}: {v}" for k, v in extra),
             *(f"{k.decode()}: {v.decode()}" for k, v in for_path(""))]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


class Checked(h11.Connection):
    """h11's server side with the checks it leaves to the server, made on every request head
    however it arrived (whole, in pieces, or pipelined behind another request): its size and
    its framing. A refusal raises h11's RemoteProtocolError (uvicorn answers it by
    ``send_400_response``) with the status and line to send in ``refusal``."""

    def __init__(self, max_head: int) -> None:
        # h11's own bound covers a head still arriving; the one read whole is checked below
        super().__init__(h11.SERVER, max_incomplete_event_size=max_head)
        self.max_head = max_head
        self.refusal: tuple[int, str] | None = None

    def next_event(self) -> Any:
        # the head's bytes as read, spaces and folded lines included (the parsed headers
        # leave out the padding a client could fill a head with)
        before = len(self._receive_buffer)
        try:
            event = super().next_event()
        except h11.RemoteProtocolError as err:
            self.refusal = ((431, self._too_long()) if err.error_status_hint == 431
                            else (400, f"invalid HTTP request: {err}"))
            raise
        if isinstance(event, h11.Request):
            names = {name for name, _ in event.headers}
            if before - len(self._receive_buffer) > self.max_head:
                self.refusal = (431, self._too_long())
            elif b"content-length" in names and b"transfer-encoding" in names:
                self.refusal = (400, "invalid HTTP request: both Content-Length and "
                                "Transfer-Encoding (two framings of one body) are refused")
            if self.refusal is not None:
                raise h11.RemoteProtocolError(self.refusal[1], self.refusal[0])
        return event

    def _too_long(self) -> str:
        return (f"the request head (its line and headers) is over {self.max_head // 1024} KB "
                f"({self.max_head} bytes)")


def client_key(host: str) -> str:
    """The address a client's connections are counted under: its IPv4 address, or its IPv6
    /64 (one host is handed a whole /64)."""
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


def protocol(limits: Limits) -> type[H11Protocol]:
    """uvicorn's h11 protocol bounded by ``limits``."""

    class Bounded(H11Protocol):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.conn = Checked(limits.max_head)
            self._timer: asyncio.TimerHandle | None = None
            self._waiting_for: Any = None  # the h11 state the timer waits to see left
            self._refused = False
            self._key: str | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            if self.client:
                self._key = client_key(self.client[0])
            # a refused connection lingers half-closed (LINGER): not counted, so a client
            # refused many times over does not fill the cap for the others
            held = [c for c in self.connections if not getattr(c, "_refused", False)]
            if len(held) > limits.max_connections:
                log.warning("connection refused: %d open (the cap)", limits.max_connections)
                self._refuse(503, f"too many connections ({limits.max_connections} open): "
                             "retry shortly", (("retry-after", "1"),))
                return
            if self._key is not None and sum(
                    getattr(c, "_key", None) == self._key for c in held) > limits.per_client:
                log.warning("connection from %s refused: %d open from it (the cap per "
                            "client)", self._key, limits.per_client)
                self._refuse(429, f"too many connections from your address "
                             f"({limits.per_client} open): close some or retry shortly",
                             (("retry-after", "1"),))
                return
            self._follow()

        def data_received(self, data: bytes) -> None:
            if self._refused:
                return  # refused: what it sends is dropped until the close
            super().data_received(data)
            if not self._refused:
                self._follow()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._follow()

        def connection_lost(self, exc: Exception | None) -> None:
            self._stop_timer()
            super().connection_lost(exc)

        def send_400_response(self, msg: str) -> None:
            status, line = self.conn.refusal or (400, f"invalid HTTP request: {msg}")
            self._refuse(status, line)

        def _refuse(self, status: int, line: str,
                    extra: tuple[tuple[str, str], ...] = ()) -> None:
            """Answer ``status`` with ``line`` and close the connection: half-closed first, so
            a client still sending reads its answer instead of a reset (closing with unread
            bytes would send a TCP reset); what it sends meanwhile is dropped unread."""
            self._refused = True
            self._stop_timer()
            transport = self.transport
            transport.write(raw_response(status, line, extra))
            if transport.can_write_eof():
                transport.write_eof()
                self.loop.call_later(LINGER, transport.close)
            else:
                transport.close()

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
                          h11_max_incomplete_event_size=limits.max_head,
                          **{"log_level": "warning", **kwargs})
