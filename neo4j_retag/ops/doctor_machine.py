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
    threads = f"the local model runs {running} threads" if running else \
        f"the local model would start with {settings.services.threads} threads"
    detail = (f"{n} cores, load average {got:.1f} (1 min; the model's own work counts in it); "
              f"{threads}, {free} free")
    restart = "`neo4j-retag llm stop` then `neo4j-retag llm start`"
    nice = "" if settings.services.llm_nice else ", LLM_NICE=10 to let the other work go first"
    if too_busy(n, got):
        return Check("machine load", True, f"{detail}: busier than its cores, so the model "
                     "runs slowly", f"set LLM_THREADS={free} (or unset it: auto){nice}, then "
                     f"{restart}; or let the other work end first", warn=True)
    if running and running > free:
        return Check("machine load", True, f"{detail}: more threads than free cores",
                     f"unset LLM_THREADS (auto) or set LLM_THREADS={free}, then {restart}",
                     warn=True)
    return Check("machine load", True, detail)
