"""Evaluation questions, activity-centred (Edge et al. 2024 §3.3): from the corpus
description, K user personas; for each, N tasks; for each task, M global questions that need
the corpus as a whole. The questions file is written for the user to edit and reuse, and read
back by `neo4j-retag eval QUESTIONS_FILE`.
"""

from __future__ import annotations

import asyncio
import functools
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, create_model, field_validator

from ..config import Settings
from ..errors import Failure, InputError, LLMError
from ..llm import LLM
from ..prompts import render
from ..stages import Stage


def _unique(texts: list[str], n: int) -> list[str]:
    """The first ``n`` distinct texts (case ignored): the same persona or task twice would ask
    the same questions twice."""
    seen: dict[str, str] = {}
    for t in texts:
        seen.setdefault(t.casefold(), t)
    return list(seen.values())[:n]


def _texts(v: Any) -> list[str]:
    items = v if isinstance(v, list) else [v] if v else []
    out = []
    for x in items:
        if isinstance(x, dict):  # {"name": ..., "description": ...} and the like
            x = " - ".join(str(val) for val in x.values() if val)
        if str(x).strip():
            out.append(" ".join(str(x).split()))
    return out


class _TextList(BaseModel):
    """Lists of one-line texts, leniently parsed (a dict item becomes its values joined)."""

    @field_validator("*", mode="before")
    @classmethod
    def _texts(cls, v: Any) -> list[str]:
        return _texts(v)


@functools.lru_cache(maxsize=64)
def _list_of(field: str, n: int) -> type[_TextList]:
    """``{field: [n one-line texts]}``: the schema asks for exactly ``n`` items of 15+ chars
    (under a grammar SmolLM2 otherwise gives one persona, one task and a two-word question)."""
    items = {"type": "string", "minLength": 15}
    return create_model(field.title(), __base__=_TextList, **{field: (list[str], Field(
        [], json_schema_extra={"minItems": n, "maxItems": n, "items": items}))})


class EvalQuestion(BaseModel):
    """One evaluation question and, when generated, the persona and task it came from."""

    question: str
    persona: str = ""
    task: str = ""


async def generate_questions(llm: LLM, settings: Settings, corpus_description: str, *,
                             personas: int = 5, tasks: int = 5,
                             questions: int = 5) -> tuple[list[EvalQuestion], list[Failure]]:
    """``personas`` x ``tasks`` x ``questions`` questions (fewer when the LLM gives fewer) and
    the failures (a persona's tasks or a task's questions that failed).

    Raises LLMError when no persona or no question at all could be generated.
    """
    desc = corpus_description or "(no description)"
    msgs = render("eval/personas", corpus_description=desc,
                  k=personas)
    reply = await llm.structured(msgs, _list_of("personas", personas), stage=Stage.EVAL_QUESTIONS)
    people = _unique(reply.personas, personas)  # type: ignore[attr-defined]
    if not people:
        raise LLMError("the LLM generated no user personas")
    failures: list[Failure] = []

    async def tasks_of(persona: str) -> list[str]:
        msgs = render("eval/tasks", corpus_description=desc,
                      persona=persona, n=tasks)
        try:
            reply = await llm.structured(msgs, _list_of("tasks", tasks), stage=Stage.EVAL_QUESTIONS)
            got = _unique(reply.tasks, tasks)  # type: ignore[attr-defined]
        except LLMError as err:
            failures.append(Failure.of(f"tasks of persona {persona!r}", err))
            return []
        if not got:
            failures.append(Failure.of(f"tasks of persona {persona!r}", "the LLM gave none"))
        return got

    async def questions_of(persona: str, task: str) -> list[EvalQuestion]:
        msgs = render("eval/questions", corpus_description=desc,
                      persona=persona, task=task, n=questions)
        try:
            reply = await llm.structured(msgs, _list_of("questions", questions),
                                         stage=Stage.EVAL_QUESTIONS)
            got = reply.questions  # type: ignore[attr-defined]
        except LLMError as err:
            failures.append(Failure.of(f"questions of task {task!r}", err))
            return []
        return [EvalQuestion(question=q, persona=persona, task=task) for q in got[:questions]]

    plans = await asyncio.gather(*(tasks_of(p) for p in people))
    lists = await asyncio.gather(*(questions_of(p, t) for p, ts in zip(people, plans,
                                                                     strict=True) for t in ts))
    out: dict[str, EvalQuestion] = {}
    for q in (q for ql in lists for q in ql):
        out.setdefault(q.question.casefold(), q)  # the same question twice is asked once
    if not out:
        raise LLMError("the LLM generated no evaluation questions: "
                       + "; ".join(f.line() for f in failures))
    return list(out.values()), failures


def write_questions(folder: Path, questions: list[EvalQuestion]) -> tuple[Path, Path]:
    """``questions.json`` (with personas and tasks) and ``questions.txt`` (one per line) in
    ``folder``; either can be edited and given back to `eval` as QUESTIONS_FILE."""
    folder.mkdir(parents=True, exist_ok=True)
    js, txt = folder / "questions.json", folder / "questions.txt"
    js.write_text(json.dumps([q.model_dump() for q in questions], indent=2, ensure_ascii=False)
                  + "\n")
    txt.write_text("".join(q.question + "\n" for q in questions))
    return js, txt


def read_questions(path: Path) -> list[EvalQuestion]:
    """Questions from a ``.json`` file (a list of strings or of ``{"question", ...}`` objects,
    or ``{"questions": [...]}``) or a text file (one per line; ``#`` lines are comments).

    Raises InputError for a malformed file or one without questions.
    """
    text = path.read_text(encoding="utf-8")
    if path.suffix.lower() == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as err:
            raise InputError(f"{path}: not valid JSON ({err})") from err
        if isinstance(data, dict):
            data = data.get("questions")
        if not isinstance(data, list):
            raise InputError(f"{path}: expected a list of questions")
        out = []
        for i, item in enumerate(data):
            if isinstance(item, str):
                item = {"question": item}
            if not isinstance(item, dict) or not str(item.get("question", "")).strip():
                raise InputError(f"{path}: item {i} has no question")
            out.append(EvalQuestion(question=str(item["question"]).strip(),
                                    persona=str(item.get("persona") or ""),
                                    task=str(item.get("task") or "")))
    else:
        out = [EvalQuestion(question=ln.strip()) for ln in text.splitlines()
               if ln.strip() and not ln.lstrip().startswith("#")]
    if not out:
        raise InputError(f"{path}: no questions")
    return out
