"""ReTAG's topics for a small model, without written topic reports (TOPIC_MODE=communities),
on the real Neo4j + GDS with the scripted double: an LLM_CLASS=small ingest builds topics from
the general graph's communities (no mining, no assignment), each topic's subgraph gets its own
communities and reports composed from evidence, and `retag-quoted-topics` answers from them,
quoting the sources."""

import itertools
import json
import re

import pytest

from neo4j_retag.index.estimate import grouped
from neo4j_retag.index.topics import build_topics
from neo4j_retag.llm import Usage, run_with_llm
from neo4j_retag.model import Query
from neo4j_retag.ops.stats import collect
from neo4j_retag.query.ask import answer
from neo4j_retag.query.retag import RetagOptions, ask_retag
from tests.integration.index.test_evidence import body_sentences
from tests.llm_double import _asked_fields, _text_block

pytestmark = pytest.mark.integration

# four stories with names of their own, each a community of its own: the virus and phone
# stories alone in their text units, the spam and censorship stories sharing one; and a note
# naming two (a community too small to be a topic)
VIRUS = ("Skulls disables Nokia handsets across Europe. Hypponen said Skulls spread through "
         "Bluetooth messages. Nokia told Symbian users to delete Skulls. Hypponen works with "
         "Symbian engineers.\n")
SPAM = ("Spamhaus listed Brightmail servers that relay junk mail. Ferris said Spamhaus blocks "
        "junk mail from Russia. Brightmail filters junk mail for Ferris clients.")
CENSOR = ("Google removed results for users in China. Reporters criticised Google and Yahoo "
          "over China. Yahoo handed Reporters details to China. Google and Yahoo defended their "
          "Beijing offices.")
PHONES = ("Cabir reached Motorola phones in Taiwan. Ericsson said Cabir had not reached "
          "Taiwan. Motorola and Ericsson share a patch.\n")
ARTICLES = {"virus.txt": VIRUS, "mail-and-search.txt": f"{SPAM} {CENSOR}\n",
            "phones.txt": PHONES, "note.txt": "Kaspersky thanked Symonds.\n"}


def _rows(graph, query, **params):
    return [r.data() for r in graph.driver.execute_query(query, params).records]


def by_story(body):
    """A selecting model's extraction: every capitalised name with its sentences, and every
    pair of names of one story (sentences linked by a shared name) related - a story is a
    community, two stories in one text unit are two."""
    lines = {int(k): t for k, t in re.findall(r"^\[(\d+)\] (.*)$", _text_block(body), re.M)}
    named = {k: list(dict.fromkeys(re.findall(r"\b([A-Z][a-z]{2,})\b", t)))
             for k, t in lines.items()}
    story = {k: k for k in named}  # union-find over sentences sharing a name

    def root(k):
        while story[k] != k:
            k = story[k]
        return k

    for a, b in itertools.combinations(named, 2):
        if set(named[a]) & set(named[b]):
            story[root(b)] = root(a)
    cited: dict[str, list[int]] = {}
    for k, names in named.items():
        for n in names:
            cited.setdefault(n, []).append(k)
    rels = []
    for a, b in itertools.combinations(cited, 2):
        if root(cited[a][0]) == root(cited[b][0]):
            both = sorted(set(cited[a]) & set(cited[b]))
            rels.append([a, b, both[:2] or cited[a][:1]])
    out = {"entities": [[n, "organization", ks[:3]] for n, ks in cited.items()],
           "relationships": rels}
    if "claims" in _asked_fields(body):
        out["claims"] = []
    return json.dumps(out)


@pytest.fixture
def small(settings, graph, double, tmp_path):
    """An LLM_CLASS=small index of the articles (the double extracting stories)."""
    double.script["extract"] = by_story
    for name, text in ARTICLES.items():
        (tmp_path / name).write_text(text)
    return settings.model_copy(update={"llm_class": "small", "report_compose_max_entities": 3,
                                       "embeddings": False}), [tmp_path / n for n in ARTICLES]


def test_a_small_models_ingest_builds_topics_from_its_communities(small, graph, double):
    from neo4j_retag.index.pipeline import run_ingest
    settings, paths = small
    assert settings.topic_build_mode == "communities"
    usage = Usage()
    res = run_with_llm(settings, lambda llm: run_ingest(graph, llm, settings, paths), usage)
    out = res.topics
    assert out is not None and out.mode == "communities" and not out.failed
    # no mining and no assignment: no global search, no topic list, no labelling call
    for kind in ("map", "reduce", "topics_list", "assign", "summarize", "topic_split"):
        assert double.count(kind) == 0, kind
    # four topics, one per story, named by their community's (checked) report title
    general = {r["id"]: r for r in _rows(
        graph, "MATCH (c:Community {scope: 'general', level: 0}) RETURN c.id AS id, "
               "c.title AS title, c.size AS size")}
    assert len(out.topics) == 4
    for t in out.topics:
        (cid,) = out.topic_communities[t.name]
        assert general[cid]["title"] == t.name and general[cid]["size"] >= 4
    # described by evidence sentences, word for word; the corpus by the topics' names
    sentences = {" ".join(r["t"].split()) for r in _rows(graph, "MATCH (s:Sentence) "
                                                                "RETURN s.text AS t")}
    for t in out.topics:
        assert t.description and body_sentences(t.description, sentences)
    assert out.corpus_description == "Topics, largest first: " + "; ".join(
        t.name for t in out.topics) + "."
    # the story of two names is no topic: listed as covered by none
    assert [u.size for u in out.uncovered_root_communities] == [2]
    # each topic's entities carry its label, and its subgraph has its own communities whose
    # reports are composed from evidence, reused where they repeat a general one
    for c in out.counts:
        (cid,) = out.topic_communities[c.name]
        members = _rows(graph, "MATCH (e:Entity)-[:IN_COMMUNITY]->(:Community {id: $id}) "
                               "RETURN collect(e.key) AS keys", id=cid)[0]["keys"]
        labelled = _rows(graph, "MATCH (e:Entity) WHERE $label IN labels(e) "
                                "RETURN collect(e.key) AS keys", label=c.label)[0]["keys"]
        assert sorted(members) == sorted(labelled) and c.entities == len(members)
        assert c.communities > 0 and c.reports == c.communities
    reports = _rows(graph, "MATCH (c:Community) WHERE c.scope <> 'general' RETURN "
                           "c.report_source AS source, c.reused_from AS reused")
    assert reports and all(r["source"] == "evidence" for r in reports)
    reused = sum(r["reused"] is not None for r in reports)
    assert reused == sum(c.reused for c in out.counts) > 0
    # what the topics added, apart: the name calls and the topic communities' titles, in the
    # ingest's usage (its trace), the build's counts and `stats`
    titles = sum(r.titled for r in out.reports.values())
    assert out.topic_titles == 0  # four topics of one community each: named without a call
    assert usage.stages.get("topic_title") is None
    assert double.headers.count("topic_report_title") == titles
    assert (usage.stages["topic_report_title"].calls if titles else 0) == titles
    st = collect(graph)
    assert st["topic_mode"] == "communities" and st["topics"] == 4
    assert {t["name"] for t in st["topic_subgraphs"]} == {t.name for t in out.topics}
    assert any("topics: 4 topics of 4 general communities" in o for o in res.outcomes)
    # the ingest's estimate groups them under topics, as `stats` shows them beside it
    assert grouped(usage).get("topics", {}).get("calls", 0) == titles


def test_topics_build_and_stats_on_the_command_line(small, graph, double):
    from click.testing import CliRunner

    from neo4j_retag.cli import main
    from neo4j_retag.index.pipeline import run_ingest
    from tests.conftest import double_vars, neo4j_vars
    settings, paths = small
    run_with_llm(settings, lambda llm: run_ingest(graph, llm, settings, paths, topics=False))
    env = {**double_vars(settings), **neo4j_vars(settings), "LLM_CLASS": "small"}
    out = CliRunner().invoke(main, ["topics", "build", "--json"], env=env)  # TOPIC_MODE=auto
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["mode"] == "communities" and len(data["topics"]) == 4
    assert data["topic_titles"] == 0 and len(data["topic_communities"]) == 4
    out = CliRunner().invoke(main, ["topics", "build", "--mode", "communities",
                                    "--max-topics", "2"], env={**env, "LLM_CLASS": "capable"})
    assert out.exit_code == 0, out.output
    assert "topics: 2 topics of 3 general communities" in " ".join(out.output.split())
    assert "root communities covered by no topic: 2" in out.output
    out = CliRunner().invoke(main, ["stats", "--json"], env=env)
    st = json.loads(out.stdout)
    assert st["topic_mode"] == "communities" and st["topics"] == 2
    assert {u["stage"] for u in st["llm_usage"]} >= {"topic_title"}


def test_topics_build_groups_communities_and_the_topic_variant_quotes_them(small, graph,
                                                                             double):
    from neo4j_retag.index.pipeline import run_ingest
    settings, paths = small
    run_with_llm(settings, lambda llm: run_ingest(graph, llm, settings, paths, topics=False))
    # no general report to reuse: each topic community pays its title, counted apart
    graph.driver.execute_query("MATCH (c:Community) SET c.report_key = null")
    # two topics for four stories: the two largest are the seeds, the spam story joins the
    # censorship one, whose text unit it shares (one title call names that topic), and the
    # phone story shares none: left out
    usage = Usage()
    fresh = settings.model_copy(update={"llm_cache": False})  # the ingest's titles not cached
    out = run_with_llm(fresh, lambda llm: build_topics(graph, llm, fresh, mode="communities",
                                                       max_topics=2), usage)
    assert len(out.topics) == 2 and out.mode == "communities"
    sizes = {r["id"]: r["size"] for r in _rows(
        graph, "MATCH (c:Community {scope: 'general', level: 0}) RETURN c.id AS id, "
               "c.size AS size")}
    assert [[sizes[i] for i in ids] for ids in out.topic_communities.values()] == [[6], [5, 4]]
    assert out.topic_titles == 1 and usage.stages["topic_title"].calls == 1
    assert double.headers.count("topic_title") == 1
    titled = sum(r.titled for r in out.reports.values())
    assert titled and usage.stages["topic_report_title"].calls == titled
    assert double.headers.count("topic_report_title") == titled
    assert "report_title" not in usage.stages  # no general report title in a topic build
    joined = out.topics[1]
    # the double's title names the two names most frequent in the best sentences: kept, as
    # they are in those sentences
    assert out.topic_titles_refused == 0
    assert all(w in CENSOR + SPAM for w in re.findall(r"[A-Z][a-z]+", joined.name))
    assert [u.size for u in out.uncovered_root_communities] == [4, 2]
    # the variant: classified into a topic, its subgraph's reports retrieved, the answer
    # quoted from their evidence sentences (no answer call)
    word = joined.name.split()[0]
    q = Query(question=f"What does the {word} story say?")
    got = run_with_llm(settings, lambda llm: answer("retag-quoted-topics", graph, llm,
                                                    settings, q))
    label = next(c.label for c in out.counts if c.name == joined.name)
    assert got.trace.method == "retag-quoted-topics"
    assert got.trace.topic == joined.name and got.trace.scope == label
    assert got.trace.answer == "quote" and double.count("answer") == 0
    assert double.count("classify") == 1 and got.answered
    topic_ids = {r["id"] for r in _rows(graph, "MATCH (c:Community {scope: $s}) RETURN c.id "
                                               "AS id", s=label)}
    assert got.trace.context and {c.id for c in got.trace.context} <= topic_ids
    sentences = {" ".join(r["t"].split()) for r in _rows(graph, "MATCH (s:Sentence) "
                                                                "RETURN s.text AS t")}
    quoted = [ln for ln in got.answer.splitlines() if ln.strip().startswith("-")]
    assert quoted
    for line in quoted:  # "- **Name**: sentences [Data: Sources (...)]"
        text = re.sub(r"^-\s*(\*\*[^*]+\*\*:\s*)?|\s*\[Data:[^\]]*\]", "", line.strip())
        assert body_sentences(text, sentences), line
        assert all(w in CENSOR + SPAM for w in re.findall(r"[A-Z][a-z]+", text))
    # retag-quoted, on the same index, reads the general graph's reports (no topic layer)
    plain = run_with_llm(settings, lambda llm: answer("retag-quoted", graph, llm, settings, q))
    assert plain.trace.topic is None and plain.trace.scope == "general"
    # a forced topic is taken as asked
    forced = run_with_llm(settings, lambda llm: ask_retag(
        graph, llm, settings.model_copy(update={"retag_topics": True}),
        Query(question="anything", options=RetagOptions(topic=out.topics[0].name))))
    assert forced.trace.topic == out.topics[0].name
