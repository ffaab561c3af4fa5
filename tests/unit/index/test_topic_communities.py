"""Topics from the general graph's communities (TOPIC_MODE=communities): which communities,
how they group, how topics are named and described (the build on real Neo4j + GDS:
tests/integration/index/test_community_topics.py)."""

import asyncio

import pytest

from neo4j_retag.config import Settings
from neo4j_retag.index.topic_communities import (
    Candidate,
    candidates,
    community_topics,
    description,
    group,
    unique_names,
)
from neo4j_retag.llm import LLM

# a root holding most of the graph (40 of 60 entities) with two sub-communities, a root whose
# only child is its carried copy, a small root
ROWS = [
    {"id": 1, "level": 0, "size": 40, "parent": None, "title": "Everything"},
    {"id": 2, "level": 0, "size": 15, "parent": None, "title": "Spam"},
    {"id": 3, "level": 0, "size": 5, "parent": None, "title": "Censorship"},
    {"id": 10, "level": 1, "size": 25, "parent": 1, "title": "Viruses"},
    {"id": 11, "level": 1, "size": 15, "parent": 1, "title": "Phones"},
    {"id": 12, "level": 1, "size": 15, "parent": 2, "title": "Spam"},  # carried copy
    {"id": 20, "level": 2, "size": 20, "parent": 10, "title": "Skulls"},
    {"id": 21, "level": 2, "size": 5, "parent": 10, "title": "Cabir"},
]


def test_a_root_over_the_share_is_replaced_by_its_sub_communities_largest_first():
    got = candidates(ROWS, total=60, max_share=0.5)
    # root 1 (67 %) goes; its child 10 (42 %) stays; the carried copy of 2 is no split
    assert [c.id for c in got] == [10, 2, 11, 3]
    assert got[0] == Candidate(10, 1, 25, "Viruses", 1)
    # a lower share goes deeper: 10 (42 %) is split into 20 and 21 too
    assert [c.id for c in candidates(ROWS, total=60, max_share=0.4)] == [20, 2, 11, 3, 21]
    # a root alone over the share that cannot be split stays (the query side does not offer it)
    lone = [{"id": 5, "level": 0, "size": 9, "parent": None, "title": "All"}]
    assert [c.id for c in candidates(lone, total=9, max_share=0.5)] == [5]
    assert candidates([], total=0, max_share=0.5) == []


def _c(cid: int, size: int) -> Candidate:
    return Candidate(cid, 0, size, f"title {cid}")


def test_the_largest_are_seeds_the_rest_join_by_shared_text_units_or_are_left_out():
    cands = [_c(1, 30), _c(2, 20), _c(3, 10), _c(4, 8), _c(5, 6), _c(6, 3)]
    units = {1: {"a", "b"}, 2: {"c", "d"}, 3: {"d", "e"}, 4: {"x"}, 5: {"a", "c"}}
    plan = group(cands, max_topics=2, min_entities=4, units=units)
    # 3 shares a text unit with 2; 5 one with each seed (the larger takes it); 4 none
    assert [g.ids for g in plan.groups] == [[1, 5], [2, 3]]
    assert [c.id for c in plan.unattached] == [4]
    assert [c.id for c in plan.too_small] == [6]
    # enough room: every community of at least TOPIC_MIN_ENTITIES is a topic of its own
    wide = group(cands, max_topics=8, min_entities=4, units={})
    assert [g.ids for g in wide.groups] == [[1], [2], [3], [4], [5]] and not wide.unattached


def test_a_tie_on_shared_text_units_goes_to_the_larger_seed():
    cands = [_c(1, 30), _c(2, 20), _c(5, 6)]
    plan = group(cands, max_topics=2, min_entities=4, units={1: {"a"}, 2: {"c"}, 5: {"a", "c"}})
    assert [g.ids for g in plan.groups] == [[1, 5], [2]]
    # more shared with the smaller seed: it goes there
    units = {1: {"a"}, 2: {"c", "d"}, 5: {"a", "c", "d"}}
    plan = group(cands, max_topics=2, min_entities=4, units=units)
    assert [g.ids for g in plan.groups] == [[1], [2, 5]]
    # unless that takes the topic past the cap (RETAG_TOPIC_MAX_SHARE of the entities): then
    # the next seed it shares a text unit with, or none
    units = {1: {"a", "b"}, 2: {"c"}, 5: {"a", "b", "c"}}
    assert [g.ids for g in group(cands, 2, 4, units, cap=36).groups] == [[1, 5], [2]]
    assert [g.ids for g in group(cands, 2, 4, units, cap=34).groups] == [[1], [2, 5]]
    plan = group(cands, max_topics=2, min_entities=4, units=units, cap=25)
    assert [g.ids for g in plan.groups] == [[1], [2]] and [c.id for c in plan.unattached] == [5]


def _s(text: str) -> dict:
    return {"id": text[:8], "text": text}


def test_a_description_is_the_best_sentence_of_each_entity_up_to_the_words():
    findings = [("Nokia", [_s("A program  called Skulls\ndisables Nokia phones."),
                           _s("Nokia said it would look.")]),
                ("Skulls", [_s("Skulls replaces icons with skulls.")]),
                ("Hypponen", [_s("Hypponen said " + "very " * 60 + "limited.")])]
    got = description(findings, words=20)
    assert got == ("A program called Skulls disables Nokia phones. Skulls replaces icons "
                   "with skulls.")
    # at least one sentence, however long
    assert description(findings[2:], words=5).startswith("Hypponen said very")
    assert description([]) == ""


def test_names_stay_distinct():
    assert unique_names(["Spam", "Spam e-mails", "Viruses"],
                        ["A, B", "C, D", "E"]) == ["Spam", "Spam e-mails", "Viruses"]
    # a near-duplicate takes its members' names; an exact one still taken gets a number
    assert unique_names(["Phone viruses", "Phone virus", "Phone viruses"],
                        ["Nokia and Skulls", "Cabir", "Nokia and Skulls"]) == [
        "Phone viruses", "Cabir", "Nokia and Skulls"]
    assert unique_names(["Spam", "spam"], ["Spam", "Spam"]) == ["Spam", "Spam (2)"]


class Graph:
    """The reads and writes of a build, answered from the rows given; writes kept."""

    def __init__(self, rows, members, evidence, units):
        self.rows, self.members, self.evidence, self.units = rows, members, evidence, units
        self.writes: dict[str, dict] = {}

    def run(self, name, **params):
        if name == "index/graph_counts":
            return [{"nodes": 60}]
        if name == "index/topic_candidates":
            return self.rows
        self.writes[name] = params
        return []

    def run_paged(self, name, key, values, **params):
        table = {"index/community_members": self.members,
                 "index/community_evidence": self.evidence,
                 "index/community_text_units": self.units}[name]
        return [table[i] for i in values if i in table]

    def run_script(self, name, **params):
        self.writes[name] = params


SENTENCES = {
    2: ["Spammers sent millions of e-mails.", "Spamhaus listed the spammers."],
    3: ["Spamhaus warned of phishing e-mails.", "Phishing e-mails copy banks."],
    4: ["China blocked the search engine.", "The search engine removed results."],
}


def _members(cid):
    names = {2: ["Spammers", "Spamhaus"], 3: ["Phishing", "Banks"], 4: ["China", "Engine"]}
    return {"id": cid, "members": [{"key": f"{n.lower()}", "name": n, "degree": 5 - i}
                                   for i, n in enumerate(names[cid])]}


def _evidence(cid):
    texts = SENTENCES[cid]
    keys = [m["key"] for m in _members(cid)["members"]]
    return {"id": cid, "links": [], "claimed": [],
            "mentions": [{"sentence": f"s{cid}{i}", "entity": k} for i, k in enumerate(keys)],
            "sentences": [{"id": f"s{cid}{i}", "text": t, "document_id": f"d{cid}",
                           "index": i, "chunk": f"u{cid}"} for i, t in enumerate(texts)]}


def _graph():
    rows = [{"id": c, "level": 0, "size": s, "parent": None, "title": t}
            for c, s, t in ((2, 20, "Spammers and Spamhaus"), (3, 10, "Phishing e-mails"),
                            (4, 12, "China blocks the search engine"), (5, 2, "Tiny"))]
    units = {2: {"id": 2, "units": ["u2", "u23"]}, 3: {"id": 3, "units": ["u23"]},
             4: {"id": 4, "units": ["u4"]}}
    return Graph(rows, {c: _members(c) for c in (2, 3, 4)},
                 {c: _evidence(c) for c in (2, 3, 4)}, units)


@pytest.fixture
def small(tmp_path, double):
    return Settings(llm_cache_dir=tmp_path / "cache", openai_model="double",
                    openai_base_url=double.base_url, llm_class="small",
                    llm_json_mode="json_schema")


def _build(settings, graph, max_topics):
    async def go():
        llm = LLM(settings)
        try:
            return await community_topics(graph, llm, settings, max_topics)
        finally:
            await llm.close()
    return asyncio.run(go())


def test_topics_of_one_community_are_named_by_its_title_without_a_call(small, double):
    graph = _graph()
    built = _build(small, graph, max_topics=8)
    assert [t.name for t in built.topics] == ["Spammers and Spamhaus",
                                              "China blocks the search engine",
                                              "Phishing e-mails"]
    assert built.communities == [[2], [4], [3]] and built.labels == ["Topic0", "Topic1",
                                                                     "Topic2"]
    # described by their evidence sentences, the most central entity's first
    assert built.topics[0].description == ("Spammers sent millions of e-mails. Spamhaus listed "
                                           "the spammers.")
    assert built.corpus == ("Topics, largest first: Spammers and Spamhaus; China blocks the "
                            "search engine; Phishing e-mails.")
    assert double.count() == 0 and built.titles == 0
    # the topics written, with their communities; their entities labelled; community 5 (two
    # entities) is no topic
    written = graph.writes["index/create_topics"]
    assert [t["communities"] for t in written["topics"]] == [[2], [4], [3]]
    assert graph.writes["index/label_topic_communities"]["topics"] == written["topics"]
    assert "index/clear_topics" in graph.writes and [c.id for c in built.plan.too_small] == [5]


def test_a_topic_of_several_communities_gets_one_checked_title_call(small, double):
    graph = _graph()
    built = _build(small, graph, max_topics=2)
    # 3 shares a text unit with 2 (seeds: 2 and 4)
    assert built.communities == [[2, 3], [4]] and built.plan.unattached == []
    assert double.count("report_title") == 1 and built.titles == 1
    assert double.headers.count("topic_title") == 1
    # the double's title (the most frequent names of the sentences) is in them: kept, in
    # place of the largest community's title
    assert built.topics[0].name == "Spamhaus and Spammers" and built.titles_refused == 0
    assert built.topics[1].name == "China blocks the search engine"  # one community: no call


def test_a_refused_topic_title_falls_back_to_its_largest_communitys_title(small, double):
    double.script["report_title"] = lambda body: "Global Cybercrime Syndicates"  # not in them
    graph = _graph()
    built = _build(small, graph, max_topics=2)
    assert built.titles == 1 and built.titles_refused == 1
    assert built.topics[0].name == "Spammers and Spamhaus"
