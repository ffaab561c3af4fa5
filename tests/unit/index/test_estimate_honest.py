"""Honest estimates and settings (issue 32 item 7): `ingest --estimate` counts the response
cache's hits (no request sent), warns of a reasoning model's hidden tokens; budgets of 0 or
-1 are refused like their flags; `ingest --help` gives --glean's real default."""

import pytest
from click.testing import CliRunner
from pydantic import ValidationError

from neo4j_retag import tokens
from neo4j_retag.cli.main import main
from neo4j_retag.config import Settings
from neo4j_retag.errors import ConfigError
from neo4j_retag.index.estimate import estimate_ingest
from neo4j_retag.index.extract import extract_text_unit
from neo4j_retag.llm import run_with_llm
from neo4j_retag.model import TextUnit
from tests.conftest import make_settings

STORY = "Scrooge met Marley at the Counting House. Belle left Scrooge in London. " * 30


def _folder(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.txt").write_text(STORY)
    return folder


def test_a_warm_cache_is_counted_and_no_request_is_sent(tmp_path, double):
    s = make_settings(tmp_path, {}, openai_base_url=double.base_url, chunk_size=120,
                      chunk_overlap=20, embeddings=False)
    folder = _folder(tmp_path)
    cold = estimate_ingest(s, [folder], None, topics=False)
    assert cold.cached_units == 0 and cold.stages["extract"].calls >= cold.text_units > 1
    assert double.count() == 0  # the dry run sends nothing
    texts = tokens.split(STORY, 120, 20, s.encoding)
    for i, t in enumerate(texts[:-1]):  # all but the last text unit extracted: cached
        run_with_llm(s, lambda llm, t=t, i=i: extract_text_unit(
            llm, s, TextUnit(id=f"u{i}", text=t), glean=0, claims=True))
    sent = double.count()
    warm = estimate_ingest(s, [folder], None, topics=False)
    assert warm.cached_units == len(texts) - 1 and double.count() == sent
    assert warm.stages["extract"].calls < cold.stages["extract"].calls
    assert warm.stages["extract"].calls == round(cold.stages["extract"].calls / len(texts))


@pytest.mark.parametrize(("model", "warned"), [
    ("gpt-5-mini", True), ("o3", True), ("openai/o1-preview", True), ("o4-mini", True),
    # issue 60: DeepSeek's R1 and its distills, Qwen's QwQ, by any provider's name
    ("deepseek-reasoner", True), ("qwq-32b", True), ("Qwen/QwQ-32B-Preview", True),
    ("qwen-qwq-32b", True), ("qwq:32b", True), ("deepseek-r1-distill-qwen-32b", True),
    ("deepseek-ai/DeepSeek-R1-Distill-Llama-70B", True), ("openrouter/deepseek/deepseek-r1", True),
    ("deepseek-r1:7b", True),
    ("gpt-4o-mini", False), ("double", False), ("deepseek-chat", False),
    ("deepseek-v3", False), ("qwen2.5-32b-instruct", False)])
def test_reasoning_models_are_warned_of(tmp_path, model, warned):
    s = make_settings(tmp_path, {}, openai_model=model, llm_cache=False, embeddings=False)
    est = estimate_ingest(s, [_folder(tmp_path)], None, topics=False)
    assert any("reasoning model" in n for n in est.notes) == warned


@pytest.mark.parametrize("name", ["LAZY_BUDGET", "MAP_CONTEXT_TOKENS", "TOP_P", "CHUNK_SIZE",
                                  "LLM_MAX_TOKENS"])
@pytest.mark.parametrize("value", ["0", "-1"])
def test_budgets_of_zero_or_less_are_refused(monkeypatch, name, value):
    monkeypatch.setenv(name, value)
    if name == "LAZY_BUDGET":  # a method's own: refused when read, before any question
        from neo4j_retag.query.lazy import LazySettings
        with pytest.raises(ConfigError, match=f"invalid setting {name}"):
            Settings().method(LazySettings)
    else:
        with pytest.raises(ValidationError, match=name):
            Settings()
    for method in ("lazy", "rag"):  # whichever method is asked for
        out = CliRunner().invoke(main, ["ask", "x", "--method", method])
        assert out.exit_code == 2 and f"invalid setting {name}" in out.output


def test_glean_help_gives_its_real_default():
    out = CliRunner().invoke(main, ["ingest", "--help"])
    assert "default GLEAN, 0" in " ".join(out.output.split())
    assert Settings().index.glean == 0


def test_the_estimate_counts_partial_reduces_behind_a_small_window():
    """Topic mining's reduces are split when their points exceed a known window (issue 46
    item 5): the estimate counts those calls; none when the window holds them or is unknown."""
    from neo4j_retag.index.estimate_topics import _partial_reduces

    small = Settings(openai_base_url=None, llm_ctx=2048, reduce_context_tokens=8000)
    calls, prompt, completion, left = _partial_reduces(small, 6000, 300)
    room = int(2048 * 0.9) - 300 - small.llm.max_tokens
    assert calls >= 6000 / room and prompt >= 6000 and completion > 0 and left <= room
    assert _partial_reduces(Settings(openai_base_url=None, llm_ctx=32768), 6000, 300)[0] == 0
    assert _partial_reduces(Settings(openai_base_url="http://x/v1"), 6000, 300)[0] == 0


def test_the_estimate_counts_a_topic_split_when_topic_split_is_on(tmp_path):
    """A topic holding most of the graph is split at build time (index/topic_split.py): the
    estimate's topics stage counts one split call and the text units assigned again."""
    def topics(split: bool):
        s = make_settings(tmp_path, {}, openai_base_url="http://127.0.0.1:9/v1",
                          chunk_size=120, chunk_overlap=20, embeddings=False, llm_cache=False,
                          topic_split=split)
        (tmp_path / str(split)).mkdir()
        return estimate_ingest(s, [_folder(tmp_path / str(split))], None, topics=True)

    on, off = topics(True).raw["topics"], topics(False).raw["topics"]
    assert on.calls > off.calls and on.prompt_tokens > off.prompt_tokens
