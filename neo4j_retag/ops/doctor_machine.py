"""`doctor`'s check of the machine the local model shares: more runnable work than cores slows
every process, and a model server with more threads than the cores left free slows most
(its threads wait for each other at every layer)."""

from __future__ import annotations

from ..config import Settings
from ..config.machine import auto_threads, cores, load, too_busy
from ..services import llm_local
from .doctor_check import Check


def machine_load(settings: Settings, n_cores: int | None = None,
                 load_1m: float | None = None) -> Check:
    """The cores, the load average and the local server's threads against the cores free now:
    a warning (never a failure: the machine may calm down) with what to set when the machine
    is busier than its cores or the server runs more threads than are free."""
    n = n_cores or cores()
    got = load() if load_1m is None else load_1m
    if got is None:
        return Check("machine load", True, f"{n} cores; no load average on this system")
    free = auto_threads(n, got)
    running = llm_local.status(settings)["threads"]
    threads = running or settings.services.threads
    told = (f"the local model runs {_threads(running)}" if running else
            f"the local model would start with {_threads(threads)}")
    detail = (f"{n} cores, load average {got:.1f} (1 min; the model's own work counts in it); "
              f"{told}, {free} free")
    restart = "then `neo4j-retag llm stop` and `neo4j-retag llm start`"
    # auto starts on the cores free then: only a running server or a number can be too many
    too_many = threads > free and (running or settings.services.llm_threads != "auto")
    fixes = []
    if too_many:
        fixes.append(f"unset LLM_THREADS (auto) or set LLM_THREADS={free}")
    if not settings.services.llm_nice:
        fixes.append("set LLM_NICE=10 to let the other work go first")
    if too_busy(n, got):
        fix = (f"{'; '.join(fixes)}, {restart}; or let the other work end first" if fixes
               else "let the other work end first")
        return Check("machine load", True, f"{detail}: busier than its cores, so the model "
                     "runs slowly", fix, warn=True)
    if too_many:
        return Check("machine load", True, f"{detail}: more threads than free cores",
                     f"{fixes[0]}, {restart}", warn=True)
    return Check("machine load", True, detail)


def _threads(n: int) -> str:
    return f"{n} thread{'s' if n != 1 else ''}"
