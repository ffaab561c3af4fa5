"""Topic assignment in batches (issue 18): several text units per call, each labelled on its
own, a failed batch failing each of its text units."""

import json
import re

from neo4j_retag.index.topic_assign import assign_text_units, labels_model
from neo4j_retag.index.topic_names import Topic
from neo4j_retag.llm import Usage, run_with_llm
from neo4j_retag.model import TextUnit, no_progress
from tests.conftest import make_settings
from tests.llm_double import Fail

TOPICS = [Topic(name="Rail", description="trains"), Topic(name="Money", description="banks")]


class Rows:
    def __init__(self):
        self.rows = []
        self.marked = []  # text units marked labelled (an incremental build skips them)

    def write(self, name, rows, **p):
        assert name in ("index/label_topic_chunks", "index/mark_topic_assigned")
        (self.rows if name == "index/label_topic_chunks" else self.marked).extend(rows)


def _by_passage(body):
    """Label each passage from its own text: 'train' -> Rail, 'bank' -> Money."""
    text = body["messages"][-1]["content"]
    if "FAIL" in text:
        raise Fail(400)
    def labels(t):
        return [n for w, n in (("train", "Rail"), ("bank", "Money")) if w in t]

    passages = re.findall(r'<text passage="(\d+)">\n(.*?)\n</text>', text, re.S)
    if not passages:  # a batch of one: the single-unit prompt and reply
        return json.dumps({"topics": labels(text)})
    return json.dumps({f"passage_{i}": labels(t) for i, t in passages})


def _run(tmp_path, double, units, batch):
    settings = make_settings(tmp_path, {}, openai_base_url=double.base_url, llm_cache=False,
                             llm_max_retries=0)
    graph, failed = Rows(), []
    run_with_llm(settings, lambda llm: assign_text_units(
        graph, llm, settings, TOPICS, no_progress, failed, units, batch), Usage())
    _run.marked = sorted(r["id"] for r in graph.marked)
    return graph.rows, failed


def test_batches_label_each_passage_on_its_own(tmp_path, double):
    double.script["assign"] = _by_passage
    texts = ["a train", "a bank", "a train and a bank", "nothing", "the bank", "train",
             "trains"]
    units = [TextUnit(id=f"u{i}", text=t) for i, t in enumerate(texts)]
    rows, failed = _run(tmp_path, double, units, 3)
    assert double.count("assign") == 3 and not failed  # 7 text units, 3 per call
    got = sorted((r["chunk_id"], r["topic"]) for r in rows)
    assert got == [("u0", "Rail"), ("u1", "Money"), ("u2", "Money"), ("u2", "Rail"),
                   ("u4", "Money"), ("u5", "Rail"), ("u6", "Rail")]
    assert _run.marked == [f"u{i}" for i in range(7)]  # "nothing" (no topic) too


def test_a_failed_batch_fails_each_of_its_text_units(tmp_path, double):
    double.script["assign"] = _by_passage
    units = [TextUnit(id=f"u{i}", text=t) for i, t in enumerate(["train", "FAIL", "bank",
                                                                  "bank"])]
    rows, failed = _run(tmp_path, double, units, 2)
    assert sorted(f.item for f in failed) == ["topic labels of text unit u0",
                                              "topic labels of text unit u1"]
    assert sorted((r["chunk_id"], r["topic"]) for r in rows) == [("u2", "Money"),
                                                                ("u3", "Money")]
    assert _run.marked == ["u2", "u3"]  # the failed batch's units are labelled next run


def test_every_passage_is_required():
    schema = labels_model(("Rail", "Money"), 3).model_json_schema()
    assert schema["required"] == ["passage_1", "passage_2", "passage_3"]
    assert "required" not in labels_model(("Rail",), 1).model_json_schema()
