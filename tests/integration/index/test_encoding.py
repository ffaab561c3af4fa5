"""Issue 21 kind 9: the tokenizer is recorded with the index at its first ingest, and an
ingest under another one is refused with a message naming both (real Neo4j, LLM double)."""

import pytest

from neo4j_retag.errors import ConfigError
from tests.conftest import corpus, ingest

pytestmark = pytest.mark.integration


def test_encoding_recorded_and_a_change_refused(settings, graph, double, tmp_path):
    folder = corpus(tmp_path, 2)
    ingest(settings, graph, [folder])
    assert graph.run("index/index_encoding")[0]["encoding"] == "cl100k_base"
    calls = double.count()
    other = settings.model_copy(update={"encoding": "o200k_base"})
    (folder / "new.txt").write_text("Belle married a merchant in Cornhill.")
    with pytest.raises(ConfigError, match=r"built with ENCODING=cl100k_base.*"
                                          r"set ENCODING=cl100k_base"):
        ingest(other, graph, [folder])
    assert double.count() == calls  # refused before any text unit was cut or sent
    assert graph.run("index/index_encoding")[0]["encoding"] == "cl100k_base"
    res = ingest(settings, graph, [folder])  # the recorded one goes on
    assert res.documents_new == 1
