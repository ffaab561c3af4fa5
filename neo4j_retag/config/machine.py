"""The machine the local servers share: its cores and how busy other work keeps them, read when
a server starts (its thread count) and by `doctor` (a machine too busy for the embedded model).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

STAT = Path("/proc/stat")


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


def busy(seconds: float = 0.5) -> float | None:
    """Cores busy now: the CPU time all processes used over ``seconds`` (Linux /proc/stat), in
    cores; None where there is no /proc/stat."""
    def sample() -> tuple[int, int]:
        fields = [int(x) for x in STAT.read_text().split("\n", 1)[0].split()[1:]]
        idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
        return sum(fields[:8]), idle  # guest time is counted in user already
    try:
        total0, idle0 = sample()
        time.sleep(seconds)
        total1, idle1 = sample()
    except (OSError, ValueError, IndexError):
        return None
    spent = total1 - total0
    return (spent - (idle1 - idle0)) / spent * cores() if spent > 0 else 0.0


def other_work() -> float | None:
    """The cores other work holds: the one-minute load average, or the cores busy this half
    second when fewer - the average lags a minute behind work that just ended (an install, a
    build), and a server started then would keep too few threads for good."""
    averaged, now = load(), busy()
    if averaged is None or now is None:
        return averaged if now is None else now
    return min(averaged, now)


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
