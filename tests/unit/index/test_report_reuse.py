"""Each report paid once (issue 18): keys, composed reports, and build_reports' exact call
counts on a small planted hierarchy held by an in-memory stand-in for the graph."""

import json

from neo4j_retag.index.report_reuse import (
    composed_props,
    membership_hash,
    report_key,
    reuse_props,
)
from neo4j_retag.index.reports import build_reports
from neo4j_retag.llm import Usage, run_with_llm
from tests.conftest import make_settings


def _elements(keys, degree=1, desc="works here"):
    ents = [{"key": k, "name": k.upper(), "description": f"{k} {desc}.", "degree": degree}
            for k in keys]
    rels = [{"source_key": a, "target_key": b, "source": a.upper(), "target": b.upper(),
             "description": f"{a} knows {b}", "combined_degree": 2 * degree}
            for a, b in zip(keys, keys[1:], strict=False)]
    return {"entities": ents, "relationships": rels, "claims": []}


def test_keys_follow_members_and_descriptions_not_order_or_degree():
    assert membership_hash(["b", "a"]) == membership_hash(["a", "b"])
    assert membership_hash(["a"]) != membership_hash(["a", "b"])
    base = report_key(_elements(["a", "b", "c"]), "m")
    assert report_key(_elements(["a", "b", "c"], degree=9), "m") == base
    assert report_key(_elements(["a", "b", "c"], desc="moved"), "m") != base
    assert report_key(_elements(["a", "b", "c"]), "other-model") != base


def test_composed_report_carries_every_description():
    props = composed_props(_elements(["a", "b", "c"]))
    assert props["report_source"] == "composed" and props["report_status"] == "ok"
    assert props["title"] == "A, B and C"
    for text in ("a works here", "b works here", "c works here", "a knows b", "b knows c"):
        assert text in props["full_content"]
    assert len(json.loads(props["findings"])) == 2


def test_reuse_prefers_the_communitys_own_earlier_report():
    found = [{"id": 4, "archived": False, "report": {"title": "T4", "report_source": "llm"}},
             {"id": 9, "archived": True, "report": {"title": "T9", "report_source": "llm"}}]
    assert reuse_props(9, found)["title"] == "T9" and reuse_props(9, found)["reused_from"] is None
    assert reuse_props(5, found)["reused_from"] == 4
    assert reuse_props(5, []) is None


class PlantedGraph:
    """The few queries build_reports runs, over communities held in a dict."""

    def __init__(self, comms):
        self.comms = comms  # id -> {level, members, children, props}

    def _elements(self, cid):
        return {"id": cid, **_elements(self.comms[cid]["members"])}

    def run(self, name, **p):
        if name == "index/pending_reports":
            return [{"id": i, "level": c["level"], "size": len(c["members"])}
                    for i, c in sorted(self.comms.items()) if c.get("props", {}).get(
                        "report_status") != "ok"]
        if name == "index/community_elements":
            return [self._elements(i) for i in p["ids"]]
        if name == "index/community_children":
            return [{"parent": i, "id": ch, "status": self.comms[ch]["props"].get(
                "report_status"), "members": self.comms[ch]["members"], "title": "",
                     "full_content": self.comms[ch]["props"].get("full_content"), "size": 1,
                     "carried": False} for i in p["ids"] for ch in self.comms[i]["children"]]
        if name == "index/reports_by_key":
            return [{"key": c["props"]["report_key"], "id": i, "archived": False,
                     "report": c["props"]} for i, c in sorted(self.comms.items())
                    if c.get("props", {}).get("report_key") in p["keys"]
                    and c["props"].get("report_status") == "ok"]
        return []

    def run_paged(self, name, key, values, **p):
        return self.run(name, **p, **{key: values})

    def run_batched(self, name, **p):
        return {}

    def write(self, name, rows, **p):
        for row in rows:
            self.comms[row["id"]].setdefault("props", {}).update(row["props"])


def test_build_reports_pays_each_membership_once(tmp_path, double):
    settings = make_settings(tmp_path, {}, openai_base_url=double.base_url, llm_cache=False,
                             report_compose_max_entities=2)
    big, a, b = list("abcdefgh"), list("abcd"), list("efgh")
    graph = PlantedGraph({
        0: {"level": 0, "members": big, "children": [1, 2]},
        1: {"level": 1, "members": a, "children": [3]},
        2: {"level": 1, "members": b, "children": [4]},
        3: {"level": 2, "members": a, "children": []},  # Leiden did not split it
        4: {"level": 2, "members": list("ef"), "children": []},
        5: {"level": 0, "members": ["x", "y"], "children": [6]},
        6: {"level": 1, "members": ["x", "y"], "children": []},
    })
    graph.comms[2]["children"] = [4, 7]
    graph.comms[7] = {"level": 2, "members": list("gh"), "children": []}
    done = run_with_llm(settings, lambda llm: build_reports(graph, llm, settings, "general"),
                        Usage())
    # LLM: a (once, for levels 2 and 1), b, the root; composed: ef, gh, xy twice
    assert double.count("report") == 3
    assert done.model_dump(exclude={"failures", "invalid_citations", "left_out", "titled",
                                    "titles_refused"}) == {
        "ok": 3, "failed": 0, "reused": 1, "composed": 4, "waiting": 0,
        "unsupported_findings": 0}
    assert graph.comms[1]["props"]["reused_from"] == 3
    # a second scope with the same memberships: no call at all
    topic = PlantedGraph({10 + i: {**c, "props": {}} for i, c in graph.comms.items()})
    for c in topic.comms.values():
        c["children"] = [10 + ch for ch in c["children"]]
    topic.run, plain = (lambda name, **p: graph.run(name, **p) if name == "index/reports_by_key"
                        else plain(name, **p)), topic.run
    run_with_llm(settings, lambda llm: build_reports(topic, llm, settings, "Topic0"), Usage())
    assert double.count("report") == 3
