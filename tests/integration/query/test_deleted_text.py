"""Issue 46 point 5: between a `documents delete` and its rebuild, no query reads the text of
the deleted document: an entity or relationship description that may cite it is withheld and
the remaining text units' descriptions are read instead, with a trace note; the next ingest's
summary lifts it."""

import json

import pytest

from neo4j_retag.index.delete import delete_documents
from neo4j_retag.llm import run_with_llm as run
from neo4j_retag.model import Query
from neo4j_retag.query import METHODS
from tests.conftest import ingest
from tests.llm_double import default_extract

pytestmark = pytest.mark.integration
SECRET = "Zanzibargold"


def _sent(double, since: int) -> str:
    return json.dumps([body for _, body in double.calls[since:]])


def test_local_search_never_reads_a_deleted_documents_text(settings, graph, double, tmp_path):
    def extract(body):  # the text unit that tells the secret puts it in every description
        out = json.loads(default_extract(body))
        if SECRET in json.dumps(body):
            for e in out["entities"]:
                e["description"] += f" {SECRET} is where Scrooge hid it."
            for r in out["relationships"]:
                r["description"] += f" Both know of {SECRET}."
        return json.dumps(out)
    double.script["extract"] = extract
    double.script["summarize"] = lambda body: ("Merged: " + (SECRET if SECRET in json.dumps(body)
                                                           else "nothing hidden") + ".")
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "kept.txt").write_text("Scrooge met Marley at the Exchange. Marley was rich. "
                                     "Scrooge and Marley kept the counting house.")
    (folder / "secret.txt").write_text(f"Scrooge met Marley at night. Scrooge hid the gold in "
                                       f"{SECRET}. Marley never knew.")
    s = settings.model_copy(update={"embeddings": False})
    ingest(s, graph, [folder])
    q = Query(question="What did Scrooge and Marley do?")
    n = len(double.calls)
    before = run(s, lambda llm: METHODS["local"](graph, llm, s, q))
    assert SECRET in _sent(double, n)  # the test can fail: the secret is there to be read
    assert not any("withheld" in x for x in before.trace.notes)

    delete_documents(graph, [str(folder / "secret.txt")])
    n = len(double.calls)
    after = run(s, lambda llm: METHODS["local"](graph, llm, s, q))
    assert SECRET not in _sent(double, n)
    assert any("withheld" in x for x in after.trace.notes), after.trace.notes
    assert "Scrooge appears in the text." in _sent(double, n)  # the remaining evidence

    ingest(s, graph, [])  # the rebuild: re-summarised from what remains, nothing withheld
    n = len(double.calls)
    rebuilt = run(s, lambda llm: METHODS["local"](graph, llm, s, q))
    assert SECRET not in _sent(double, n)
    assert not any("withheld" in x for x in rebuilt.trace.notes), rebuilt.trace.notes
