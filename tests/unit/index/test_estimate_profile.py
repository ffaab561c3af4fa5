"""`ingest --estimate`'s model profiles and calibration from the last run (issue 18)."""

from pathlib import Path

import pytest

from neo4j_retag.index.estimate import estimate_ingest
from neo4j_retag.index.estimate_profile import PROFILES, calibration, profile_for
from tests.conftest import make_settings

SAMPLE = Path(__file__).resolve().parents[3] / "examples" / "sample-corpus"
# the four stories the local-small profile was measured on (not the library report PDF)
STORIES = sorted(SAMPLE.glob("*.txt"))


class Graph:
    """The reads estimate_ingest makes (a new graph: no index yet), and the stored last
    estimate."""

    def __init__(self, last=(), units=0):
        self.last, self.units = list(last), units

    def run(self, name, **p):
        return {"index/existing_documents": [], "index/chunk_count": [{"n": self.units}],
                "index/index_method": [{"method": None}],
                "index/last_estimate": self.last}[name]


def test_profile_by_model(tmp_path):
    # a model that selects (the local server, a small model by name): the select profile
    assert profile_for(make_settings(tmp_path, {})).name == "select"
    remote = make_settings(tmp_path, {}, openai_base_url="http://x/v1", openai_model="gpt-4o")
    assert profile_for(remote).name == "remote"
    smol = make_settings(tmp_path, {}, openai_base_url="http://x/v1",
                         openai_model="SmolLM2-135M")
    assert profile_for(smol).name == "select"
    writing = make_settings(tmp_path, {"llm_class": "capable"})  # the embedded SmolLM2 writing
    assert profile_for(writing).name == "local-small"
    forced = remote.model_copy(update={"index": remote.index.model_copy(
        update={"estimate_profile": "local-small"})})
    assert profile_for(forced).name == "local-small"


def test_local_small_profile_expects_replies_at_the_cap_and_retries(tmp_path):
    local = make_settings(tmp_path, {"llm_class": "capable"})
    remote = make_settings(tmp_path, {}, openai_base_url="http://x/v1", openai_model="gpt-4o",
                           llm_max_tokens=800)
    lo, re_ = estimate_ingest(local, STORIES), estimate_ingest(remote, STORIES)
    u = lo.text_units
    assert u == re_.text_units > 0
    assert lo.stages["extract"].calls == round(u * (1 + PROFILES["local-small"].extract_retry))
    assert re_.stages["extract"].calls == u
    # SmolLM2 writes until the cap: about max_tokens per extraction reply
    per_call = lo.stages["extract"].completion_tokens / lo.stages["extract"].calls
    assert per_call == pytest.approx(local.llm.max_tokens * 1.07, rel=0.05)
    assert not lo.calibrated and lo.stages == lo.raw


def test_calibration_scales_each_stage_by_the_last_runs_actual_over_raw(tmp_path):
    s = make_settings(tmp_path, {}, openai_base_url="http://x/v1", openai_model="m")
    last = [{"stage": "extract", "profile": "remote", "model": "m", "raw_calls": 4,
             "raw_prompt_tokens": 1000, "raw_completion_tokens": 100, "actual_calls": 6,
             "actual_prompt_tokens": 1500, "actual_completion_tokens": 1000},
            {"stage": "report", "profile": "remote", "model": "other", "raw_calls": 4,
             "raw_prompt_tokens": 1000, "raw_completion_tokens": 100, "actual_calls": 40,
             "actual_prompt_tokens": 1, "actual_completion_tokens": 1}]
    f = calibration(Graph(last), "remote", "m")
    assert f == {"extract": {"calls": 1.5, "prompt_tokens": 1.5, "completion_tokens": 4.0}}
    est = estimate_ingest(s, [SAMPLE], Graph(last))  # type: ignore[arg-type]
    assert est.calibrated
    raw, got = est.raw["extract"], est.stages["extract"]
    assert got.calls == round(raw.calls * 1.5)
    assert got.completion_tokens == round(raw.completion_tokens * 4.0)  # clamped at 4
    assert est.stages["report"] == est.raw["report"]  # another model's figures: not used


def test_a_lazy_ingest_before_calibrates_no_llm_stage(tmp_path):
    # a newcomer's `--estimate --full` after a lazy ingest (0 LLM calls, embeddings only) said
    # "calibrated by the last ingest's actual figures"
    s = make_settings(tmp_path, {}, openai_base_url="http://x/v1", openai_model="m")
    last = [{"stage": "embed", "profile": "remote", "model": "m", "raw_calls": 4,
             "raw_prompt_tokens": 1000, "raw_completion_tokens": 0, "actual_calls": 2,
             "actual_prompt_tokens": 900, "actual_completion_tokens": 0}]
    est = estimate_ingest(s, [SAMPLE], Graph(last))  # type: ignore[arg-type]
    assert not est.calibrated
    assert est.stages["extract"] == est.raw["extract"]


def test_topics_mined_again_only_when_the_new_text_units_exceed_the_share(tmp_path):
    s = make_settings(tmp_path, {}, openai_base_url="http://x/v1", openai_model="m")
    fresh = estimate_ingest(s, [SAMPLE], Graph())  # type: ignore[arg-type]
    u = fresh.text_units
    # a large indexed graph: the sample's text units are a small share -> assignment only
    big = estimate_ingest(s, [SAMPLE], Graph(units=100 * u))  # type: ignore[arg-type]
    assert big.stages["topics"].calls == u  # one assignment call per new text unit
    # a small indexed graph: mining again (map, 2 reduces, list) and every text unit labelled
    small = estimate_ingest(s, [SAMPLE], Graph(units=u))  # type: ignore[arg-type]
    assert small.stages["topics"].calls == 1 + 3 + 2 * u


def test_a_model_that_selects_pays_short_extractions_no_summary_and_report_titles(tmp_path):
    small = make_settings(tmp_path, {})
    capable = make_settings(tmp_path, {"llm_class": "capable"})
    sel, wrote = estimate_ingest(small, STORIES), estimate_ingest(capable, STORIES)
    assert sel.profile == "select" and "summarize" not in sel.stages
    assert sel.stages["extract"].completion_tokens < wrote.stages["extract"].completion_tokens
    # a composed report's title: a short prompt, a few tokens
    r = sel.stages["report"]
    assert r.calls == 0 or r.completion_tokens <= 10 * r.calls
