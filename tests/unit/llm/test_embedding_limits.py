"""Issue 60: the limits an embeddings endpoint taught (a batch of 4 inputs, a 300-token
window) are remembered per endpoint + model apart from the response cache: with
LLM_CACHE=false the next run starts with them instead of meeting both refusals again; another
embedding model at the same endpoint starts afresh; `doctor` says what was learnt."""

import asyncio

from neo4j_retag.config import Settings
from neo4j_retag.llm.embeddings import Embedder
from neo4j_retag.ops.doctor import _embeddings
from neo4j_retag.tokens import count
from tests.llm_double import Fail, Raw, default_embed

WINDOW, BATCH = 300, 4


def _endpoint(refusals):
    """An embeddings endpoint taking at most BATCH inputs of at most WINDOW tokens each,
    refusing more in OpenAI's / TEI's words."""
    def script(body):
        texts = body["input"]
        if len(texts) > BATCH:
            refusals.append("batch")
            raise Fail(400, {"error": {"message": f"too many inputs: at most {BATCH} inputs "
                                                  "per request"}})
        if any(count(t) > WINDOW for t in texts):
            refusals.append("window")
            raise Fail(400, {"error": {"message": f"This model's maximum context length is "
                                                  f"{WINDOW} tokens, however you requested "
                                                  "more", "code": "context_length_exceeded"}})
        return Raw({"data": [{"index": i, "embedding": default_embed(t)}
                             for i, t in enumerate(texts)], "usage": {"prompt_tokens": 9}})
    return script


def _run(settings, items):
    async def go():
        async with Embedder(settings) as emb:
            return await emb.embed_items(items)
    return asyncio.run(go())


def test_limits_learnt_are_remembered_without_the_response_cache(tmp_path, double):
    refusals: list[str] = []
    double.script["embed"] = _endpoint(refusals)
    s = Settings(llm_cache=False, llm_cache_dir=tmp_path / "cache", openai_model="double",
                 openai_base_url=double.base_url, embedding_model="double-embedding",
                 embedding_batch=16, llm_max_retries=1)
    long = " ".join(f"word{j}" for j in range(600))
    items = {f"t{i}": (long if i == 0 else f"text {i} about ghosts") for i in range(10)}
    vectors, failures = _run(s, items)
    assert not failures and len(vectors) == 10
    assert "batch" in refusals and "window" in refusals  # the first run learnt both
    first = len(refusals)

    vectors, failures = _run(s, items)  # a new run, nothing cached
    assert not failures and len(vectors) == 10
    assert len(refusals) == first  # neither refusal met again
    sizes = [len(b["input"]) for _, b in double.calls[-3:]]
    assert sorted(sizes, reverse=True) == [4, 4, 2]  # sent at once: any order

    check = asyncio.run(_embeddings(s.model_copy(update={"neo4j_uri": "bolt://127.0.0.1:9"})))
    assert "batches of 4 inputs and inputs cut to 270 tokens" in check.detail

    other = s.model_copy(update={"embedding_model": "another-embedding"})
    _run(other, {"x": "one", **{f"y{i}": "two" * i for i in range(1, 6)}})
    assert len(refusals) == first + 1  # another model: its own limits, learnt afresh
