"""Every code block of the README and docs/ either runs in a test or says it is not run: a
Python block is marked ``<!-- run by tests/....py -->`` (a test that reads its page and runs
it) or ``<!-- not run: why -->`` just above it; every `neo4j-retag ...` line of a shell block
is parsed by the real CLI (the command and each option must exist: a renamed option fails
here, not in a user's terminal), `bash scripts/...` names a script that exists, and
`python -m benchmarks...` a module that exists. JSON blocks must parse."""

from __future__ import annotations

import importlib.util
import json
import re
import shlex
from pathlib import Path

import click
import pytest

from neo4j_retag.cli import main

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
_BLOCK = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.M | re.S)
_NOT_RUN = re.compile(r"<!--\s*not run:[^>]+-->\s*$")
_RUN_BY = re.compile(r"<!--\s*run by (tests/[\w/]+\.py)\s*-->\s*$")


def blocks(page: Path) -> list[tuple[str, str, str]]:
    """(language, body, the text just before the block) of every fenced block of ``page``."""
    text = page.read_text()
    return [(m.group(1), m.group(2), text[max(0, m.start() - 300):m.start()])
            for m in _BLOCK.finditer(text)]


def _commands(body: str) -> list[list[str]]:
    """The commands of a shell block: continuation lines joined, comments and prompts
    dropped, each split into words (one per `&&`/`;` part)."""
    body = re.sub(r"\\\n\s*", " ", body)
    out = []
    for line in body.splitlines():
        line = line.split(" #", 1)[0].strip().removeprefix("$ ")
        if not line or line.startswith("#"):
            continue
        for part in re.split(r"\s*(?:&&|;|\|\|)\s*", line):
            try:
                words = shlex.split(part)
            except ValueError:
                words = part.split()
            while words and "=" in words[0] and not words[0].startswith("-"):
                words = words[1:]  # VAR=value before the command
            if words:
                out.append(words)
    return out


def _left(ctx: click.Context) -> list[str]:
    """The words a group left for its subcommand (click 8.2 keeps the first apart)."""
    return [*getattr(ctx, "_protected_args", []), *ctx.args]


def _check_cli(words: list[str]) -> str | None:
    """Why ``neo4j-retag <words>`` would not parse, or None."""
    # a synopsis's optional parts ("[--json]") and "..." are not arguments
    args = [w for w in words if w != "..." and not (w.startswith("[") or w.endswith("]"))]
    try:
        ctx = main.make_context("neo4j-retag", list(args), resilient_parsing=False)
        cmd: click.Command = main
        while isinstance(cmd, click.Group) and _left(ctx):
            name, *rest = _left(ctx)
            sub = cmd.get_command(ctx, name)
            if sub is None:
                return f"no command {name!r}"
            ctx = sub.make_context(name, list(rest), parent=ctx, resilient_parsing=True)
            cmd = sub
            if not isinstance(sub, click.Group):
                sub.make_context(name, list(rest), parent=ctx.parent)
                break
    except click.exceptions.Exit:
        return None
    except click.UsageError as err:
        if "Missing argument" in str(err) or "does not exist" in str(err):
            return None  # a placeholder the reader fills in (a path of theirs)
        return str(err)
    return None


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_code_block_runs_in_a_test_or_says_it_does_not(page):
    rel = str(page.relative_to(ROOT))
    wrong = []
    for lang, body, before in blocks(page):
        if lang == "python":
            run_by = _RUN_BY.search(before)
            if run_by and rel not in (ROOT / run_by.group(1)).read_text():
                wrong.append(f"{run_by.group(1)} does not read {rel}")
            elif not run_by and not _NOT_RUN.search(before):
                wrong.append(f"a Python block neither run by a test (<!-- run by tests/... -->) "
                             f"nor marked <!-- not run: why -->: {body.splitlines()[0][:60]!r}")
        elif lang == "json":
            try:
                json.loads(body)
            except ValueError as err:
                wrong.append(f"a JSON block that does not parse ({err})")
        elif lang in ("bash", "sh", "shell", "console"):
            for words in _commands(body):
                if words[0] == "neo4j-retag" or words[0].endswith("/neo4j-retag"):
                    if (why := _check_cli(words[1:])) is not None:
                        wrong.append(f"{' '.join(words)}: {why}")
                elif words[0] == "bash" and len(words) > 1 and words[1].startswith("scripts/"):
                    if not (ROOT / words[1]).is_file():
                        wrong.append(f"{' '.join(words)}: no such script")
                elif "-m" in words and words[words.index("-m") + 1:][:1]:
                    module = words[words.index("-m") + 1]
                    if module.startswith(("benchmarks", "neo4j_retag")) and \
                            importlib.util.find_spec(module) is None:
                        wrong.append(f"{' '.join(words)}: no module {module}")
    assert not wrong, wrong


def test_the_check_catches_a_wrong_option_and_a_missing_command():
    assert _check_cli(["ask", "Q?", "--method", "retag"]) is None
    assert _check_cli(["ask", "Q?", "--no-such-option"]) is not None
    assert _check_cli(["no-such-command"]) is not None
    assert _check_cli(["ingest", "~/corpus", "--estimate"]) is None
