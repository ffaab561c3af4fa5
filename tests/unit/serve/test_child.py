"""A child process starts with SIGINT ignored (a Ctrl-C to the process group while it
imports leaves no KeyboardInterrupt traceback; the server stops it), and the server's own
handler is as it was."""

from __future__ import annotations

import signal

from neo4j_retag.serve.child import spawn


def report_handler(conn) -> None:
    conn.send(signal.getsignal(signal.SIGINT) == signal.SIG_IGN)


def test_a_child_starts_with_sigint_ignored_and_ours_is_unchanged():
    before = signal.getsignal(signal.SIGINT)
    process, conn = spawn(report_handler, (), "retag-test")
    try:
        ignored = conn.recv() if conn.poll(60) else None
    finally:
        process.join(30)
    assert ignored is True
    assert signal.getsignal(signal.SIGINT) is before
