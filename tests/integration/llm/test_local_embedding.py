"""The local embedding model in process for real (all-MiniLM-L6-v2, int8 ONNX on fastembed):
through the project's own client its vectors put a paraphrase nearest to what it paraphrases,
usage is counted, and `doctor` reports it beside the graph's vectors."""

import asyncio

import pytest

from neo4j_retag.config import Settings
from neo4j_retag.llm.embeddings import Embedder
from neo4j_retag.ops.doctor import _embeddings

pytestmark = [pytest.mark.integration, pytest.mark.embed]


def _settings(tmp_path, env, **extra):
    return Settings(**{"llm_cache_dir": tmp_path / "cache", "llm_max_retries": 0, **env,
                       **extra})


def embed(settings, texts):
    async def go():
        async with Embedder(settings) as emb:
            return await emb.embed(texts), emb.usage
    return asyncio.run(go())


def test_paraphrases_are_nearest_and_usage_is_counted(tmp_path, local_embedding):
    s = _settings(tmp_path, local_embedding)
    texts = ["Which firms struggled?",
             "The carmaker reported heavy losses and will cut 2,000 jobs.",
             "The striker scored twice in the cup final.",
             "Oscar nominations were announced for several films."]
    vectors, usage = embed(s, texts)
    assert {len(v) for v in vectors} == {384}
    assert all(abs(sum(x * x for x in v) - 1) < 1e-3 for v in vectors)  # unit length
    sims = [sum(a * b for a, b in zip(vectors[0], v, strict=True)) for v in vectors[1:]]
    assert sims[0] == max(sims) and sims[0] - max(sims[1:]) > 0.1, sims
    st = usage.stages["embed_query"]
    assert st.calls == 1 and st.prompt_tokens > 20  # the tokenizer's word pieces


def test_doctor_reports_the_local_model_and_its_dimension(tmp_path, local_embedding,
                                                          neo4j_env):
    from neo4j_retag.db import Graph
    from tests.conftest import wipe
    real = _settings(tmp_path, {**neo4j_env, **local_embedding})
    with Graph(real) as g:  # the check compares with the graph's vectors: none in a new graph
        wipe(g)
    check = asyncio.run(_embeddings(real))
    assert check.ok and "384 dimensions" in check.detail, check
    if real.embedding.local(real.llm):
        assert "'all-minilm-l6-v2' in process" in check.detail
    off = asyncio.run(_embeddings(_settings(tmp_path, neo4j_env, embeddings=False)))
    assert off.ok and "EMBEDDINGS=false" in off.detail
    wrong = asyncio.run(_embeddings(_settings(tmp_path, neo4j_env, openai_base_url=None,
                                              embedding_model="nomic-embed-text")))
    assert not wrong.ok and "EMBEDDING_MODEL is 'nomic-embed-text'" in wrong.detail
    assert "embed status" in wrong.fix
