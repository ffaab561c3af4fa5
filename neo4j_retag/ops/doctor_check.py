"""One line of `doctor`: what was checked, whether it passed, and the fix when it did not."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Check:
    name: str
    ok: bool
    detail: str
    fix: str = ""
    warn: bool = False  # ok, but slow: said with its fix, the exit status unchanged
