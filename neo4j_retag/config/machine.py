"""The machine the local servers share: its cores and how busy other work keeps them, read when
a server starts (its thread count) and by `doctor` (a machine too busy for the embedded model).
"""

from __future__ import annotations

import os


def cores() -> int:
    """The CPUs this process may run on (a container's or `taskset`'s limit, not the host's)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def load() -> float | None:
    """The one-minute load average: runnable processes, on every core; None where the system
    keeps none."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None


def auto_threads(n_cores: int, load_1m: float | None) -> int:
    """The local server's threads on ``n_cores`` with ``load_1m`` of other work: the cores that
    work leaves free (a core counts as free when less than half of it is taken), at least one.

    llama.cpp's threads meet at every layer; a thread whose core another process holds makes
    the others wait for it, so two threads beside other work decode slower than one. Fewer
    threads than cores on a busy machine is what keeps the server from collapsing."""
    if load_1m is None:
        return n_cores
    return max(1, min(n_cores, int(n_cores - load_1m + 0.5)))


def too_busy(n_cores: int, load_1m: float | None) -> bool:
    """More runnable work than cores: every process, the model's included, waits its turn."""
    return load_1m is not None and load_1m > n_cores
