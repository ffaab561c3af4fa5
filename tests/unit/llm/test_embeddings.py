"""The embedding client against the scripted double (issue 19): batching, the disk cache,
retries of unusable replies, per-item failures, usage per stage, one-line config errors."""

import asyncio

import pytest

from neo4j_retag.config import Settings
from neo4j_retag.errors import ConfigError, LLMError
from neo4j_retag.llm import LLM
from neo4j_retag.llm.embeddings import Embedder, read_vectors
from neo4j_retag.llm.reply import ReplyFault
from neo4j_retag.stages import Stage
from tests.llm_double import EMBED_DIM, Fail, Raw, default_embed


def settings_for(tmp_path, double, **extra):
    return Settings(**{"llm_cache_dir": tmp_path / "cache", "openai_model": "double",
                       "openai_base_url": double.base_url, "llm_max_retries": 1,
                       "embedding_batch": 3, **extra})


def embed_all(settings, items, stage=Stage.EMBED):
    async def go():
        async with Embedder(settings) as emb:
            out = await emb.embed_items(items, stage=stage)
            return out, emb
    return asyncio.run(go())


def test_endpoint_defaults_follow_the_llm():
    s = Settings(openai_base_url="http://h:1/v1", openai_api_key="k")
    assert s.embedding.endpoint(s.llm) == "http://h:1/v1"
    assert s.embedding.key(s.llm) == "k" and not s.embedding.local(s.llm)
    # neither URL set: the local model, in process
    local = Settings(openai_base_url=None)
    assert local.embedding.endpoint(local.llm) == "in process"
    assert local.embedding.local(local.llm)
    # `local` names it beside a chat endpoint
    beside = Settings(openai_base_url="http://h:1/v1", embedding_base_url="local")
    assert beside.embedding.local(beside.llm) and beside.embedding.endpoint(beside.llm) == \
        "in process"
    own = Settings(openai_base_url="http://h:1/v1", embedding_base_url="http://e:2/v1",
                   embedding_api_key="ek")
    assert own.embedding.endpoint(own.llm) == "http://e:2/v1"
    assert own.embedding.key(own.llm) == "ek"


def test_batches_in_order_cached_and_counted(tmp_path, double):
    s = settings_for(tmp_path, double)
    items = {f"t{i}": f"text number {i} about ghosts" for i in range(7)}
    (vectors, failures), emb = embed_all(s, items)
    assert not failures and set(vectors) == set(items)
    # base64 float32 on the wire: equal to float32 precision
    assert all(vectors[k] == pytest.approx(default_embed(t), abs=1e-6)
               for k, t in items.items())
    assert double.count("embed") == 3  # 7 texts in batches of 3
    st = emb.usage.stages[Stage.EMBED]
    assert st.calls == 3 and st.prompt_tokens > 0 and st.cached == 0 and st.failed == 0
    assert emb.dimensions == EMBED_DIM
    # a rerun is served by the cache: no request
    (again, _), emb2 = embed_all(s, items)
    assert again == vectors and double.count("embed") == 3
    assert emb2.usage.stages[Stage.EMBED].cached == 7 and emb2.usage.stages[Stage.EMBED].calls == 0


def test_every_request_names_its_stage(tmp_path, double):
    s = settings_for(tmp_path, double)

    async def go():
        async with LLM(s) as llm:
            v = (await Embedder.of(llm).embed(["Which firms struggled?"]))[0]
            return v, llm.usage
    v, usage = asyncio.run(go())
    assert len(v) == EMBED_DIM and usage.stages[Stage.EMBED_QUERY].calls == 1
    body = double.calls[-1][1]
    assert body["input"] == ["Which firms struggled?"] and body["model"] == "all-minilm-l6-v2"
    assert body["encoding_format"] == "base64" and "dimensions" not in body


def test_an_endpoint_refusing_base64_gets_floats(tmp_path, double):
    def script(body):
        if body["encoding_format"] == "base64":
            raise Fail(400, {"error": {"message": "encoding_format: only 'float' is supported",
                                       "param": "encoding_format"}})
        return Raw({"data": [{"index": i, "embedding": default_embed(t)}
                             for i, t in enumerate(body["input"])],
                    "usage": {"prompt_tokens": 2}})
    double.script["embed"] = script
    (vectors, failures), emb = embed_all(settings_for(tmp_path, double), {"a": "x", "b": "y"})
    assert not failures and vectors["a"] == pytest.approx(default_embed("x"))
    assert emb.endpoint.encoding == "float" and emb.usage.stages[Stage.EMBED].failed == 0
    assert [b["encoding_format"] for _, b in double.calls] == ["base64", "float"]


def test_dimensions_are_sent_and_checked(tmp_path, double):
    s = settings_for(tmp_path, double, embedding_dimensions=8)
    (vectors, failures), _ = embed_all(s, {"a": "one", "b": "two"})
    assert not failures and {len(v) for v in vectors.values()} == {8}
    assert double.calls[-1][1]["dimensions"] == 8
    double.embed = lambda t: [1.0] * 5  # the endpoint ignores `dimensions`
    s2 = settings_for(tmp_path / "other", double, embedding_dimensions=16)
    (vectors, failures), emb = embed_all(s2, {"a": "one"})
    assert not vectors and failures[0].reason == "invalid"
    assert "5 dimensions where 16 were expected" in failures[0].error
    assert emb.usage.faults["invalid"] == 2  # first try and one retry (LLM_MAX_RETRIES 1)


def test_a_bad_input_fails_alone(tmp_path, double):
    def embed(text):
        if "poison" in text:
            raise Fail(400, {"error": {"message": "input too long", "type": "invalid"}})
        return default_embed(text)
    double.embed = embed
    s = settings_for(tmp_path, double)
    items = {"a": "fine", "b": "poison pill", "c": "also fine", "d": ""}
    (vectors, failures), emb = embed_all(s, items)
    assert set(vectors) == {"a", "c"}
    by_item = {f.item: f for f in failures}
    assert by_item["b"].reason == "http400" and "input too long" in by_item["b"].error
    assert by_item["d"].reason == "empty"  # no request for an empty text
    assert emb.usage.stages[Stage.EMBED].calls == 2  # a, c each alone after the batch failed


def test_an_unusable_reply_is_retried_then_the_item_fails(tmp_path, double):
    replies = [Raw({"object": "list"}), None]

    def script(body):
        item = replies.pop(0)
        if item is None:
            return Raw({"data": [{"index": 0, "embedding": [0.6, 0.8]}],
                        "usage": {"prompt_tokens": 3}})
        return item
    double.script["embed"] = script
    (vectors, failures), emb = embed_all(settings_for(tmp_path, double), {"x": "text"})
    assert vectors == {"x": [0.6, 0.8]} and not failures
    assert emb.usage.faults["no_data"] == 1
    double.script["embed"] = lambda body: Raw({"data": [{"index": 0, "embedding": ["a"]}]})
    (vectors, failures), emb = embed_all(settings_for(tmp_path, double), {"y": "other"})
    assert not vectors and failures[0].reason == "invalid"
    assert emb.usage.stages[Stage.EMBED].failed == 1


def test_missing_usage_is_estimated_and_counted(tmp_path, double):
    double.script["embed"] = lambda body: Raw({"data": [
        {"index": i, "embedding": [1.0, 0.0]} for i in range(len(body["input"]))]})
    (_, failures), emb = embed_all(settings_for(tmp_path, double), {"x": "four words of text"})
    assert not failures and emb.usage.faults["nousage"] == 1
    assert emb.usage.stages[Stage.EMBED].prompt_tokens == 4


def test_wrong_model_and_unreachable_endpoint_are_one_line_config_errors(tmp_path, double):
    def not_found(body):
        raise Fail(404, {"error": {"message": "model not found", "code": "model_not_found"}})
    double.script["embed"] = not_found
    with pytest.raises(ConfigError, match="model 'all-minilm-l6-v2' not found at the "
                       "embedding endpoint: check EMBEDDING_MODEL"):
        embed_all(settings_for(tmp_path, double), {"x": "text"})
    s = Settings(llm_cache_dir=tmp_path / "c", openai_base_url="http://127.0.0.1:1/v1",
                 llm_max_retries=0)
    with pytest.raises(ConfigError, match="cannot reach the embedding endpoint at "
                       r"http://127.0.0.1:1/v1: check OPENAI_BASE_URL \(or set "
                       r"EMBEDDING_BASE_URL\)"):
        embed_all(s, {"x": "text"})


def test_embed_raises_the_first_failure(tmp_path, double):
    double.script["embed"] = lambda body: Raw({"data": []})
    with pytest.raises(LLMError, match="no usable embeddings"):
        asyncio.run(_embed(settings_for(tmp_path, double), ["q"]))


async def _embed(settings, texts):
    async with Embedder(settings) as emb:
        return await emb.embed(texts)


def test_read_vectors_orders_by_index_and_decodes_base64():
    import base64
    import struct
    b64 = base64.b64encode(struct.pack("<2f", 0.5, -0.5)).decode()
    body = {"data": [{"index": 1, "embedding": b64}, {"index": 0, "embedding": [1, 0]}],
            "usage": {"prompt_tokens": 7}}
    vectors, pt = read_vectors(body, 2, None)
    assert vectors == [[1.0, 0.0], [0.5, -0.5]] and pt == 7
    with pytest.raises(ReplyFault, match="2 embeddings for 3 inputs"):
        read_vectors(body, 3, None)
    with pytest.raises(ReplyFault, match="NaN"):
        read_vectors({"data": [{"index": 0, "embedding": [float("nan")]}]}, 1, None)


def test_a_text_shared_by_several_items_is_embedded_once(tmp_path, double):
    items = {"a": "the same report", "b": "another", "c": "the same report"}
    (vectors, failures), emb = embed_all(settings_for(tmp_path, double), items)
    assert not failures and vectors["a"] == vectors["c"] and set(vectors) == {"a", "b", "c"}
    assert double.calls[-1][1]["input"] == ["the same report", "another"]

    def embed(text):
        if text == "bad":
            raise Fail(400, {"error": {"message": "refused"}})
        return default_embed(text)
    double.embed = embed
    (vectors, failures), _ = embed_all(settings_for(tmp_path / "2", double),
                                       {"x": "bad", "y": "ok", "z": "bad"})
    assert set(vectors) == {"y"} and sorted(f.item for f in failures) == ["x", "z"]


def test_a_vector_of_zeros_is_an_unusable_reply(tmp_path, double):
    double.embed = lambda t: [0.0] * EMBED_DIM if "zero" in t else default_embed(t)
    s = settings_for(tmp_path, double)
    (vectors, failures), emb = embed_all(s, {"a": "zero", "b": "ok"})
    assert set(vectors) == {"b"} and failures[0].item == "a"
    assert "all zeros" in failures[0].error and emb.usage.faults["invalid"] >= 2


def test_inputs_over_the_window_are_truncated_to_it_learnt_once(tmp_path, double):
    seen = []

    def embed(text):
        seen.append(len(text.split()))
        if len(text.split()) > 50:  # a 64-token model, in llama.cpp's words
            raise Fail(400, {"error": {
                "message": "input is too large to process. increase the physical batch size "
                           "(current batch size: 64)", "type": "invalid_request_error"}})
        return default_embed(text)
    double.embed = embed
    s = settings_for(tmp_path, double, embedding_batch=1)
    items = {f"t{i}": " ".join(f"word{j}" for j in range(200)) + f" end{i}" for i in range(3)}
    (vectors, failures), emb = embed_all(s, items)
    assert not failures and set(vectors) == set(items)
    assert emb.endpoint.window == 57  # nine tenths of the 64 the refusal named
    assert emb.usage.faults["embed_truncated"] >= 3  # each input cut, counted
    refused = [n for n in seen if n > 50]
    assert len(refused) <= 3  # met at most once per request in flight, then learnt


def test_a_batch_refusal_is_learnt_once_naming_embedding_batch(tmp_path, double, caplog):
    def script(body):
        if len(body["input"]) > 2:
            raise Fail(400, {"error": {"message": "too many inputs: at most 2 inputs per "
                                                  "request"}})
        return Raw({"data": [{"index": i, "embedding": default_embed(t)}
                             for i, t in enumerate(body["input"])],
                    "usage": {"prompt_tokens": 2}})
    double.script["embed"] = script
    s = settings_for(tmp_path, double, embedding_batch=8)
    items = {f"t{i}": f"text {i}" for i in range(8)}
    (vectors, failures), emb = embed_all(s, items)
    assert not failures and len(vectors) == 8 and emb.endpoint.batch == 2
    sizes = [len(b["input"]) for _, b in double.calls]
    assert sizes == [8, 2, 2, 2, 2]  # refused once, then batches of 2: never one by one
    assert "EMBEDDING_BATCH=2" in caplog.text
