"""Answers saved as each one ends and kept by a rerun: `eval --resume` and the benchmarks'
runner (benchmarks/runner.py) share this, so an hours-long run on a slow model can stop
anywhere and the rerun pays only for the answers it lacks.

An answer is kept only for the same question, method (``lazy@50`` is its own method) and
settings: ``answer_settings`` is the key of everything else that shapes an answer (model,
endpoint, completion settings, every query setting, the level), stored in each record.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ..config import Settings, flat_name
from ..errors import InputError
from ..query.registry import SETTINGS
from .records import AnswerRecord, Judgement

KEY_CHARS = 12  # hex digits of the settings key: enough to tell runs apart, short to read
# the methods' own settings the key always held (they were the query group's when keys began):
# the others join it only when set away from their defaults, so that a method added since
# (its settings at their defaults) leaves every saved answer's key as it was
FIRST_KEY = frozenset({
    "top_p_share", "retag_report_tokens", "retag_max_topics", "retrieval", "lazy_budget",
    "dynamic_threshold", "dynamic_use_summary", "dynamic_max_level", "local_top_k_entities",
    "local_top_k_relationships", "local_text_unit_prop", "local_community_prop",
    "drift_n_depth", "drift_k_followups", "drift_primer_folds", "lazy_seconds", "lazy_enough",
    "lazy_test_tokens"})


def answer_settings(settings: Settings, level: int) -> str:
    """The settings key of an answer (``KEY_CHARS`` hex digits): a hash of the LLM model,
    endpoint, temperature, completion tokens, JSON mode and answer check, the embedding model,
    the token encoding, every query setting (the shared ones, ``TOP_P`` ..., and each method's
    own, ``LAZY_BUDGET`` ..., by their flat names; see ``FIRST_KEY``) and ``level``. Ports,
    paths, secrets and concurrency are left out: they do not change what is answered."""
    llm = settings.llm
    query = settings.query.model_dump(mode="json")
    for group in SETTINGS:
        own = settings.method(group)
        dumped = own.model_dump(mode="json")  # as the query group's dump wrote them
        query.update((flat_name(f), dumped[n]) for n, f in group.model_fields.items()
                     if flat_name(f) in FIRST_KEY or getattr(own, n) != f.default)
    shaping = {"model": llm.model, "endpoint": llm.base_url, "temperature": llm.temperature,
               "max_tokens": llm.max_tokens, "json_mode": llm.json_mode,
               "answer_check": llm.answer_check, "embedding": settings.embedding.model,
               "encoding": settings.encoding, "level": level, "query": query}
    text = json.dumps(shaping, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:KEY_CHARS]


def read_saved(path: Path) -> Any:
    """The JSON in ``path`` (gzip-compressed when it ends in ``.gz``), or in ``path`` + ``.gz``
    when only that exists (big result files are kept compressed); None when neither does.
    Raises InputError for a file that is not JSON (a half-written one is never left:
    ``save_records`` replaces files whole)."""
    for p in (path, path.with_name(path.name + ".gz")):
        if not p.exists():
            continue
        try:
            raw = p.read_bytes()
            return json.loads(gzip.decompress(raw) if p.suffix == ".gz" else raw)
        except (ValueError, OSError) as err:  # bad JSON: a ValueError; bad gzip: an OSError
            raise InputError(f"{p}: cannot read the saved answers ({err})") from err
    return None


def kept_answers(data: Any, key: str | None, methods: list[str], questions: list[str],
                 keyless: bool = False) -> tuple[list[AnswerRecord], list[str]]:
    """The saved answers worth keeping from ``data`` (a list of answer records, or an object
    with ``answers``): of one of ``methods`` to one of ``questions``, not failed, and with the
    settings key ``key`` (None: any key). A record saved before keys existed has none: kept
    only with ``keyless`` (a benchmark's older results), with a note. Returns them and one
    note per kind of answer left out or kept without a key (to print)."""
    saved = data.get("answers", []) if isinstance(data, dict) else (data or [])
    kept, stale, failed, other, unkeyed = [], 0, 0, 0, 0
    for raw in saved:
        rec = AnswerRecord.model_validate(raw)
        if rec.method not in methods or rec.question not in questions:
            other += 1
        elif rec.error is not None:
            failed += 1
        elif key is not None and rec.settings is None and keyless:
            unkeyed += 1
            kept.append(rec)
        elif key is not None and rec.settings != key:
            stale += 1
        else:
            kept.append(rec)
    notes = [f"{n} saved answers {why}" for n, why in (
        (failed, "had failed: asked again"),
        (stale, "were made with other settings (model, level or a query setting): asked "
                "again"),
        (other, "are of other methods or questions: left out of these results"),
        (unkeyed, "carry no settings key (saved before keys were): kept as they are"),
    ) if n]
    return kept, notes


def save_records(path: Path, records: Sequence[BaseModel], run: dict[str, Any] | None = None,
                 ) -> None:
    """Write ``records`` (answers or verdicts) to ``path`` whole (a temporary file renamed over
    it: a run killed mid-write leaves the previous version): a JSON list, or with ``run`` an
    object of ``run``'s fields and ``answers``."""
    plain = [r.model_dump(mode="json") for r in records]
    data: Any = plain if run is None else {**run, "answers": plain}
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def kept_judgements(data: Any, answers: list[AnswerRecord]) -> list[Judgement]:
    """The saved verdicts (``data``: judgements.json's list) still true: not failed, and both
    answers they compared among the kept ``answers`` (an answer asked again is judged again)."""
    kept = {(a.question, a.method) for a in answers}
    verdicts = [Judgement.model_validate(j) for j in data or []]
    return [j for j in verdicts if not j.failed
            and (j.question, j.a) in kept and (j.question, j.b) in kept]


@dataclass
class SavedRun:
    """What an evaluation keeps and saves as it goes: the answers and verdicts a rerun keeps
    (``answers``, ``judgements``), written to ``folder``/answers.json and judgements.json
    after each new one (no ``folder``: nothing is written)."""

    folder: Path | None = None
    answers: list[AnswerRecord] = field(default_factory=list)
    judgements: list[Judgement] = field(default_factory=list)

    def save_answers(self, answers: Sequence[AnswerRecord]) -> None:
        if self.folder is not None:
            save_records(self.folder / "answers.json", answers)

    def save_judgements(self, judgements: Sequence[Judgement]) -> None:
        if self.folder is not None:
            save_records(self.folder / "judgements.json", judgements)
