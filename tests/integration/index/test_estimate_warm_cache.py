"""Issue 60: `ingest --estimate` with a warm response cache predicts what the rebuilt index
pays. The report prompt listed a community's claims in the graph's storage order, which the
concurrent extraction writes change from run to run: a rebuild paid for reports the cache
held (493 completion tokens where the estimate said 0); and the embed stage counted every
vector though the cache held them. Real Neo4j + GDS, the scripted double."""

import pytest

from neo4j_retag.index.estimate import estimate_ingest
from neo4j_retag.index.reports import local_context
from neo4j_retag.llm import Usage
from tests.conftest import corpus, ingest, wipe

pytestmark = pytest.mark.integration


def test_a_rebuild_from_a_warm_cache_pays_what_the_estimate_says(settings, graph, tmp_path):
    folder = corpus(tmp_path, 4)
    s = settings.model_copy(update={"embeddings": True})
    ingest(s, graph, [folder])
    wipe(graph)  # `reset --yes`: the graph gone, the response cache kept
    graph.ensure_schema()
    est = estimate_ingest(s, [folder], graph, topics=False)
    usage = Usage()
    ingest(s, graph, [folder], usage)
    paid = usage.total
    assert est.cached_units == est.text_units > 0
    assert (est.total.calls, est.total.prompt_tokens, est.total.completion_tokens) == (
        paid.calls, paid.prompt_tokens, paid.completion_tokens) == (0, 0, 0)
    assert usage.stages["embed"].cached > 0  # the vectors were there to find


def test_claims_are_listed_in_one_order_whatever_the_graph_returns():
    claims = [{"key": "scrooge", "entity": "Scrooge", "type": "mention", "status": "TRUE",
               "description": f"Scrooge claim {c}"} for c in "bca"]
    elements = {"entities": [{"key": "scrooge", "name": "Scrooge", "description": "a miser",
                              "degree": 1}], "relationships": [], "claims": claims}
    first, _ = local_context(elements, 2000, "cl100k_base")
    again, _ = local_context({**elements, "claims": claims[::-1]}, 2000, "cl100k_base")
    assert first == again and first.index("claim a") < first.index("claim b")
