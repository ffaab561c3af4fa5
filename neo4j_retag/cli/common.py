"""What every command shares: the context object, one-line errors, running library work with
the graph and the LLM open, progress display and the usage table."""

from __future__ import annotations

import functools
import json
import logging
import sys
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TextIO, TypeVar

import click

from ..errors import ConfigError, DatabaseUnreachable, RetagError
from .progress import ProgressLines

# The heavy modules (the openai and neo4j clients, pydantic, rich, and the library behind
# them) are imported where a command uses them, so `neo4j-retag --help` starts in a blink.
if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table as RichTable

    from ..config import Settings
    from ..db import Graph
    from ..errors import Failure
    from ..llm import LLM, Usage

T = TypeVar("T")
log = logging.getLogger("neo4j_retag.cli")


class LazyConsole:
    """A rich ``Console`` made on first use (rich is imported only then)."""

    def __init__(self, **options: Any) -> None:
        self._options = options
        self._console: Console | None = None

    def __getattr__(self, name: str) -> Any:
        if self._console is None:
            from rich.console import Console
            self._console = Console(**self._options)
        return getattr(self._console, name)


console: Console = LazyConsole()  # type: ignore[assignment]
err_console: Console = LazyConsole(stderr=True)  # type: ignore[assignment]


def Table(*args: Any, **kwargs: Any) -> RichTable:  # noqa: N802 - stands in for the class
    """``rich.table.Table``, imported on first use."""
    from rich.table import Table as RichTable
    return RichTable(*args, **kwargs)


class Ctx:
    """The click context object: --debug and the settings, read once on first use."""

    def __init__(self, debug: bool) -> None:
        self.debug = debug
        self._settings: Settings | None = None

    @property
    def settings(self) -> Settings:
        if self._settings is None:
            from pydantic import ValidationError

            from ..config import Settings
            try:
                self._settings = Settings()
            except ValidationError as err:
                bad = ", ".join(str(e["loc"][0]).upper() for e in err.errors() if e["loc"])
                raise ConfigError(f"invalid setting {bad}: {err.errors()[0]['msg']}") from err
        return self._settings


def friendly(fn: Callable[..., T]) -> Callable[..., T]:
    """One-line errors for RetagError (exit 2 for ConfigError, else 1); the traceback only
    with --debug. Anything else is a bug and keeps its traceback. A command given ``--json``
    prints its JSON whatever happens: the error as ``{"error", "kind", "reason",
    "exit_code"}`` on stdout, beside the line on stderr."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> T:
        try:
            return fn(*args, **kwargs)
        except RetagError as err:
            obj = click.get_current_context().find_object(Ctx)
            if obj is not None and obj.debug:
                raise
            code = 2 if isinstance(err, ConfigError) else 1
            if kwargs.get("as_json"):
                click.echo(json.dumps({"error": str(err), "kind": type(err).__name__,
                                       "reason": getattr(err, "reason", None),
                                       "exit_code": code}, indent=2))
            err_console.print(f"[red]error:[/red] {err}", highlight=False, soft_wrap=True)
            sys.exit(code)

    return wrapper


WAIT_HELP = ("queue behind a run that holds the database's lock (up to LOCK_TIMEOUT seconds "
             "when set, else until it finishes) instead of failing at once")


def waiting(settings: Settings, wait: bool) -> Settings:
    """``settings`` for a writing command's ``--wait``: without a LOCK_TIMEOUT, no limit."""
    if wait and not settings.neo4j.lock_timeout:
        return settings.model_copy(update={"lock_timeout": float("inf")})  # LOCK_TIMEOUT
    return settings


def dumps(data: Any) -> str:
    """``--json`` output: library results (pydantic models, `Failure` records) as JSON."""
    from pydantic_core import to_jsonable_python
    return json.dumps(to_jsonable_python(data, fallback=str), indent=2)


def print_failures(groups: Mapping[str, Sequence[Failure]], retry: str) -> None:
    """The one printer of failed items: ``failed <kind> <item> (<reason>): <error>`` per item
    (``groups``: kind -> failures), then how many and the command that retries them (the
    command exits 3)."""
    from rich.markup import escape
    n = 0
    for kind, failures in groups.items():
        for f in failures:
            console.print(f"[red]failed {kind}[/red] {escape(f.line())}", highlight=False,
                          soft_wrap=True)
            n += 1
    if n:
        console.print(f"[red]{n} item(s) failed[/red]: rerun {retry} to retry them "
                      "(exit code 3)", highlight=False)


def run_with_services(coro_fn: Callable[[LLM, Graph], Awaitable[T]], settings: Settings,
                      usage: Usage) -> T:
    """Open the graph and the LLM, run ``coro_fn``, record LLM usage in the graph."""
    import asyncio

    from ..db import Graph
    from ..llm import LLM
    from ..ops.stats import record_usage

    async def main() -> T:
        with Graph(settings) as graph:
            graph.ensure_schema()  # idempotent: indexes added by newer versions appear too
            try:
                async with LLM(settings, usage) as llm:
                    return await coro_fn(llm, graph)
            finally:
                try:
                    record_usage(graph, usage)
                except DatabaseUnreachable as err:  # the run's own error says so
                    log.info("could not record LLM usage in the graph: %s", err)
                except Exception as err:  # noqa: BLE001 - accounting must never mask the real error
                    log.warning("could not record LLM usage in the graph: %s", err)

    return asyncio.run(main())


class ProgressBars:
    """A library progress callback (``model.Progress``): rich progress bars on ``console``
    when stdout is a terminal, else plain lines (``ProgressLines``: stage start/end and every
    ``interval`` seconds, to ``stream`` or stdout) a log can read; nothing when ``quiet``."""

    def __init__(self, console: Console | None = None, *, quiet: bool = False,
                 stream: TextIO | None = None, interval: float = 10.0) -> None:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )
        console = console or err_console
        tty = sys.stdout.isatty()
        self.bars = Progress(TextColumn("[bold]{task.description}"), BarColumn(),
                             MofNCompleteColumn(), TimeElapsedColumn(), console=console,
                             transient=False,
                             disable=quiet or not tty or not console.is_terminal)
        self.lines = None if quiet or tty else ProgressLines(stream or sys.stdout, interval)
        self.tasks: dict[str, Any] = {}

    def __enter__(self) -> ProgressBars:
        self.bars.__enter__()
        if self.lines:
            self.lines.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.lines:
            self.lines.__exit__(*exc)
        self.bars.__exit__(*exc)  # type: ignore[arg-type]

    def __call__(self, task: str, n: int, total: int | None = None) -> None:
        if self.lines:
            self.lines(task, n, total)
        if task not in self.tasks:
            self.tasks[task] = self.bars.add_task(task, total=total)
        elif n == 0 and total is not None and self._finished(self.tasks[task]):
            self.bars.reset(self.tasks[task], total=total)  # the same stage again (a topic)
        elif total is not None:
            self.bars.update(self.tasks[task], total=total)
        if n:
            self.bars.advance(self.tasks[task], n)

    def _finished(self, task_id: Any) -> bool:
        return any(t.id == task_id and t.finished for t in self.bars.tasks)


def usage_table(usage: Usage) -> RichTable:
    table = Table(title="LLM usage by stage")
    for col in ("stage", "calls", "cached", "failed", "prompt tokens", "completion tokens", "s"):
        table.add_column(col, justify="right" if col != "stage" else "left")
    for name, s in sorted(usage.stages.items()):
        table.add_row(name, str(s.calls), str(s.cached), str(s.failed), str(s.prompt_tokens),
                      str(s.completion_tokens), f"{s.seconds:.1f}")
    return table
