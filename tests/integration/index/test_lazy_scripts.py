"""The lazy index in any script (issue 32 item 1) on real Neo4j + GDS with no LLM call:
German, Russian, Greek and Chinese texts give concepts and communities; a text unit that
gives none is named in the ingest's outcomes; an edited file loses its old text's concepts
and co-occurrence evidence, as `documents delete` does."""

import pytest

from tests.conftest import ingest

pytestmark = pytest.mark.integration

TEXTS = {
    "de.txt": "Die Hafenbehörde von Kleinmünster plant den Umbau des Kais. Jürgen Müller "
              "leitet die Hafenbehörde. Müller sagte, Kleinmünster brauche Fördermittel. "
              "Die Hafenbehörde und Jürgen Müller treffen sich im Rathaus.",
    "ru.txt": "Министр Иван Петров посетил Москву. Иван Петров сказал, что Москва готова. "
              "Москва и Иван Петров ждут решения.",
    "el.txt": "Ο Γιώργος Παπαδόπουλος επισκέφθηκε την Αθήνα. Η Αθήνα υποδέχθηκε τον Γιώργο "
              "Παπαδόπουλο. Γιώργος Παπαδόπουλος και Αθήνα.",
    "zh.txt": "东京大学的研究团队发现了新的方法。东京大学表示，研究团队将继续研究。",
    "digits.txt": "1234 5678 9012 3456 7890.",
}


def _concepts(graph):
    return {r["key"] for r in graph.driver.execute_query(
        "MATCH (k:Concept) RETURN k.key AS key").records}


def test_texts_in_any_script_give_concepts_and_an_empty_one_is_named(settings, graph, double,
                                                                     tmp_path):
    s = settings.model_copy(update={"index_method": "lazy", "embeddings": False})
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text in TEXTS.items():
        (folder / name).write_text(text, encoding="utf-8")
    res = ingest(s, graph, [folder])
    got = _concepts(graph)
    assert {"hafenbehörde", "kleinmünster", "jürgen müller", "иван петров", "москва",
            "αθήνα", "东京", "大学", "研究"} <= got, got
    assert not {"hafenbeh", "kleinm", "f", "m"} & got
    assert res.communities_rebuilt and double.count() == 0
    empty = [o for o in res.outcomes if "gave no concept" in o]
    assert len(empty) == 1 and empty[0].startswith("1 of 5 text units"), res.outcomes

    # the German file edited in place: its old concepts and their co-occurrences go
    (folder / "de.txt").write_text("Der Leuchtturm von Sandhafen steht am Meer. Der "
                                   "Leuchtturm von Sandhafen leuchtet.", encoding="utf-8")
    ingest(s, graph, [folder])
    got = _concepts(graph)
    assert "leuchtturm von sandhafen" in got or "sandhafen" in got, got
    assert not {"hafenbehörde", "kleinmünster", "jürgen müller"} & got
    stale = graph.driver.execute_query(
        "MATCH (a:Concept)-[r:CO_OCCURS]->(b:Concept) WHERE a.key IN $k OR b.key IN $k "
        "RETURN count(r) AS n", k=["hafenbehörde", "kleinmünster"]).records[0]["n"]
    assert stale == 0
    dangling = graph.driver.execute_query(
        "MATCH (:Concept)-[r:CO_OCCURS]->(:Concept) UNWIND r.chunk_ids AS id "
        "WITH id WHERE NOT EXISTS { (:Chunk {id: id}) } RETURN count(*) AS n").records[0]["n"]
    assert dangling == 0  # no evidence of a text unit that is gone
