"""Saved answers (`eval --resume`, benchmarks/runner.py): the settings key changes with what
shapes an answer only, a rerun keeps only same-key answers that did not fail, files are
replaced whole and read back plain or gzip-compressed."""

import gzip
import json

import pytest

from neo4j_retag.config import Settings
from neo4j_retag.errors import Failure, InputError
from neo4j_retag.eval.records import AnswerRecord
from neo4j_retag.eval.saved import (
    KEY_CHARS,
    answer_settings,
    kept_answers,
    read_saved,
    save_records,
)

BASE = {"openai_base_url": "http://127.0.0.1:9/v1", "openai_model": "m", "neo4j_bolt_port": 7000}


def test_the_key_follows_what_shapes_an_answer_and_nothing_else():
    key = answer_settings(Settings(**BASE), 0)
    assert len(key) == KEY_CHARS and key == answer_settings(Settings(**BASE), 0)
    # ports, concurrency and the cache do not change an answer
    assert key == answer_settings(Settings(**{**BASE, "neo4j_bolt_port": 7001,
                                              "llm_concurrency": 3, "llm_cache": False}), 0)
    for other in ({"openai_model": "n"}, {"top_p_share": 0.5}, {"retag_topics": False},
                  {"llm_temperature": 0.5}):
        assert answer_settings(Settings(**{**BASE, **other}), 0) != key, other
    assert answer_settings(Settings(**BASE), 1) != key  # the level


def test_a_method_s_own_settings_are_in_the_key_as_they_were_in_the_query_group(monkeypatch,
                                                                                tmp_path):
    """Keys computed before LAZY_BUDGET, RETRIEVAL ... moved from the query group into their
    methods' groups: saved answers stay kept (a default changed since changes them, rightly)."""
    from neo4j_retag.config import FLAT
    from neo4j_retag.query import SETTINGS
    monkeypatch.chdir(tmp_path)  # no .env
    for name in [*FLAT, *(str(f.validation_alias) for group in SETTINGS
                          for f in group.model_fields.values())]:
        monkeypatch.delenv(name.upper(), raising=False)
    base = {"openai_base_url": "http://x/v1", "openai_model": "m"}
    assert answer_settings(Settings(**base), 1) == "b1606cec07dc"
    assert answer_settings(Settings(**base, lazy_budget=7, retrieval="bm25"), 1) == \
        "096ff30e0646"
    local = {**base, "openai_base_url": None}  # the lazy method's local values (LAZY_SECONDS)
    assert answer_settings(Settings(**local), 1) == "71514467440a"
    # a method added since (global-quoted) changes no key at its defaults; set, it does
    assert answer_settings(Settings(**base, global_quoted_cover=True), 1) == "b1606cec07dc"
    assert answer_settings(Settings(**base, global_quoted_cover=False), 1) != "b1606cec07dc"


def _rec(q: str, m: str, key: str | None, error: bool = False) -> AnswerRecord:
    return AnswerRecord(question=q, method=m, answer=None if error else f"{m} on {q}",
                        settings=key,
                        error=Failure(item=f"answer by {m}", reason="http500") if error else None)


def test_kept_answers_are_same_key_not_failed_and_asked_for():
    saved = [_rec("q1", "global", "k"), _rec("q1", "retag", "k", error=True),
             _rec("q2", "global", "old"), _rec("q2", "retag", "k"), _rec("q3", "global", "k"),
             _rec("q1", "local", "k")]
    data = [r.model_dump(mode="json") for r in saved]
    kept, notes = kept_answers(data, "k", ["global", "retag"], ["q1", "q2"])
    assert [(r.question, r.method) for r in kept] == [("q1", "global"), ("q2", "retag")]
    assert notes == ["1 saved answers had failed: asked again",
                     "1 saved answers were made with other settings (model, level or a query "
                     "setting): asked again",
                     "2 saved answers are of other methods or questions: left out of these "
                     "results"]
    # an object with ``answers`` (a benchmark's file), any key: a key-less (older) record too
    kept, notes = kept_answers({"model": "m", "answers": data + [
        _rec("q2", "global", None).model_dump(mode="json")]}, None, ["global"], ["q2"])
    assert [r.settings for r in kept] == ["old", None] and notes[-1].startswith("5 saved")
    assert kept_answers(None, "k", ["global"], ["q1"]) == ([], [])
    # a key asked for: a key-less record is asked again, or kept with ``keyless`` (noted)
    old = [_rec("q1", "global", None).model_dump(mode="json")]
    assert kept_answers(old, "k", ["global"], ["q1"])[0] == []
    kept, notes = kept_answers(old, "k", ["global"], ["q1"], keyless=True)
    assert len(kept) == 1 and notes == ["1 saved answers carry no settings key (saved before "
                                        "keys were): kept as they are"]


def test_saved_answers_are_replaced_whole_and_read_back_plain_or_gzipped(tmp_path):
    path = tmp_path / "out" / "answers.json"
    assert read_saved(path) is None
    save_records(path, [_rec("q1", "global", "k")])
    assert [a["method"] for a in read_saved(path)] == ["global"]
    save_records(path, [_rec("q1", "global", "k")], {"model": "m"})
    assert read_saved(path)["model"] == "m"
    assert [p.name for p in path.parent.iterdir()] == ["answers.json"]  # no .tmp left
    big = tmp_path / "nuggets-x.json"
    (tmp_path / "nuggets-x.json.gz").write_bytes(gzip.compress(json.dumps([1]).encode()))
    assert read_saved(big) == [1] == read_saved(tmp_path / "nuggets-x.json.gz")
    path.write_text('[{"question": ')  # a file cut short by something else
    with pytest.raises(InputError, match="cannot read the saved answers"):
        read_saved(path)
