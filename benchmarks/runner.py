"""The answer-producing benchmarks' runner: every answer saved as it ends, and a rerun with
``--resume`` keeps what was saved, so an hours-long run on a slow local model can stop
anywhere and pays nothing twice. Built on `neo4j-retag eval --resume`'s own saving
(neo4j_retag/eval/saved.py): an answer is kept for the same question, method and settings.

Files: a stopped run's answers in bench-results/PREFIX-NAME.partial.json, a finished run's
results (with ``answers``) in PREFIX-NAME.json - or PREFIX-NAME.json.gz, as raw result files
over about 1 MB are kept in git (docs/benchmarks.md, "Where results go").
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from benchmarks.common import RESULTS
from neo4j_retag.errors import InputError
from neo4j_retag.eval.records import AnswerRecord
from neo4j_retag.eval.saved import kept_answers, read_saved, save_records


class AnswerRun:
    """One named run's answer files: ``partial`` (saved after every answer) and ``final``
    (the finished results), both under ``results``."""

    def __init__(self, prefix: str, name: str, results: Path = RESULTS) -> None:
        self.partial = results / f"{prefix}-{name}.partial.json"
        self.final = results / f"{prefix}-{name}.json"

    def resumed(self, methods: list[str], questions: list[str], key: str | None = None,
                ) -> tuple[list[AnswerRecord], dict[str, Any]]:
        """The answers of ``methods`` to ``questions`` a stopped run saved (``partial``), else
        those a finished run wrote (``final``, so a later run adds methods or questions to
        it), with settings key ``key`` (None: any; answers saved before keys existed are kept,
        noted), and what else that file holds (level, notes, endpoint, model, seconds).
        Failed answers are asked again. Prints to stderr what was left out and why. Exits
        with a one-line reason when the saved file is unreadable."""
        try:
            data = read_saved(self.partial)
            if data is None:
                data = read_saved(self.final)
        except InputError as err:
            raise SystemExit(f"--resume: {err}") from None
        if data is None:
            return [], {}
        kept, notes = kept_answers(data, key, methods, questions, keyless=True)
        print(f"--resume: {len(kept)} saved answers kept", file=sys.stderr)
        for note in notes:
            print(f"--resume: {note}", file=sys.stderr)
        run = {k: v for k, v in data.items() if k != "answers"} if isinstance(data, dict) else {}
        return kept, run

    def save(self, answers: list[AnswerRecord], **run: Any) -> None:
        """Every answer so far and the run's fields to ``partial``, replaced whole."""
        save_records(self.partial, answers, run)

    def done(self) -> None:
        """The run's results are written to ``final``: the partial file goes."""
        self.partial.unlink(missing_ok=True)


def read_results(path: Path) -> Any:
    """A finished run's results file (``path``, or ``path``.gz when that is how it is kept);
    None when there is neither. Exits with a one-line reason for an unreadable file."""
    try:
        return read_saved(path)
    except InputError as err:
        raise SystemExit(str(err)) from None
