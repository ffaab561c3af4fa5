"""`ingest --estimate`'s topics as TOPIC_MODE builds them: topics from the communities are
title calls only (no mining, no assignment); mined topics keep their structure."""

from neo4j_retag.index.estimate import estimate_ingest
from neo4j_retag.index.report_compose import TITLE_TOKENS
from neo4j_retag.index.topic_names import MAX_TOPICS
from tests.conftest import make_settings

STORY = "Scrooge met Marley at the Counting House. Belle left Scrooge in London. " * 60


def _folder(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.txt").write_text(STORY)
    return folder


def test_topics_from_communities_are_estimated_as_title_calls(tmp_path):
    # one profile for both classes: the topic figures compared are the mode's, not a profile's
    base = make_settings(tmp_path, {}, llm_cache=False, embeddings=False, chunk_size=120,
                         chunk_overlap=20, openai_base_url="http://127.0.0.1:9/v1",
                         estimate_profile="remote")
    folder = _folder(tmp_path)
    small = base.model_copy(update={"llm_class": "small"})
    assert small.topic_build_mode == "communities" and base.topic_build_mode == "assign"
    est = estimate_ingest(small, [folder], None)
    topics = est.raw["topics"]
    # a name for each topic, upper side; the topic communities reuse the general reports
    assert topics.calls == MAX_TOPICS
    assert abs(topics.completion_tokens - topics.calls * TITLE_TOKENS) <= TITLE_TOKENS
    assert 0 < topics.prompt_tokens / topics.calls < 400
    # the mined topics of the same run: mining and one assignment per text unit
    mined = estimate_ingest(small.model_copy(update={"topic_mode": "assign"}), [folder], None)
    assert mined.raw["topics"].calls >= est.text_units + 3
    assert mined.raw["topics"].prompt_tokens > 2 * topics.prompt_tokens
    # a capable model's default is mined; TOPIC_MODE=communities asks for the cheap form
    assert estimate_ingest(base, [folder], None).raw["topics"] == mined.raw["topics"]
    cheap = estimate_ingest(base.model_copy(update={"topic_mode": "communities"}), [folder],
                            None)
    assert cheap.raw["topics"] == topics
