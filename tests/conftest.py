"""Shared fixtures.

Neo4j for tests: ``NEO4J_URI`` if set (and ``NEO4J_RETAG_TEST_WIPE=1``, since tests empty the
database); else a Neo4j container through testcontainers when a Docker engine answers; else
the project's own local server on test ports (7688/7475, or RETAG_TEST_BOLT_PORT /
RETAG_TEST_HTTP_PORT) with its own data folder, so a test run never touches the data of
`neo4j-retag neo4j start` on 7687.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from neo4j_retag.config import Settings
from neo4j_retag.db import Graph, vectors
from neo4j_retag.index.pipeline import run_ingest
from neo4j_retag.llm import Usage, run_with_llm

from .llm_double import ScriptedLLM

HOME = Path(os.environ.get("NEO4J_RETAG_HOME", Path.home() / ".cache" / "neo4j-retag"))
# shared/ beside the checkout (CI, /work/main), or beside its parent folder (a git worktree)
CORPORA = next((p / "shared" / "corpora" for p in Path(__file__).resolve().parents[2:4]
                if (p / "shared" / "corpora").is_dir()),
               Path(__file__).resolve().parents[2] / "shared" / "corpora")
REQUIRE = os.environ.get("RETAG_TEST_REQUIRE") == "1"
# the tests' real local LLM is the small one (speed over sense; the default Qwen is measured in
# the benchmarks): set before any Settings is read, for the CLI runs and subprocesses too
os.environ.setdefault("LLM_MODEL", "smollm2")  # CI: a missing service fails, not skips


def _missing(what: str) -> None:
    if REQUIRE:
        pytest.fail(what)
    pytest.skip(what)


def _docker_answers() -> bool:
    try:
        import docker
        docker.from_env(timeout=3).ping()
        return True
    except Exception:  # noqa: BLE001 - no engine, no socket, no permission: all "no Docker"
        return False


@pytest.fixture(scope="session")
def neo4j_env() -> Iterator[dict[str, Any]]:
    """Settings overrides pointing at a real Neo4j 5 + GDS that tests may empty."""
    if os.environ.get("NEO4J_URI"):
        if os.environ.get("NEO4J_RETAG_TEST_WIPE") != "1":
            _missing("NEO4J_URI is set: tests empty the database; set NEO4J_RETAG_TEST_WIPE=1")
        yield {}
        return
    if _docker_answers() and os.environ.get("RETAG_TEST_NO_DOCKER") != "1":
        from testcontainers.neo4j import Neo4jContainer
        with Neo4jContainer("neo4j:5.26-community", password="retag-test-pw").with_env(
            "NEO4J_PLUGINS", '["graph-data-science"]'
        ).with_env("NEO4J_dbms_security_procedures_unrestricted", "gds.*") as c:
            yield {"neo4j_uri": c.get_connection_url(), "neo4j_password": "retag-test-pw"}
        return
    from neo4j_retag.services import neo4j_local
    # RETAG_TEST_BOLT_PORT / RETAG_TEST_HTTP_PORT: a second test server beside the first
    bolt = int(os.environ.get("RETAG_TEST_BOLT_PORT", "7688"))
    http = int(os.environ.get("RETAG_TEST_HTTP_PORT", "7475"))
    data = HOME / ("neo4j-data-test" if bolt == 7688 else f"neo4j-data-test-{bolt}")
    env = {"neo4j_retag_home": HOME, "neo4j_bolt_port": bolt, "neo4j_http_port": http,
           "neo4j_data": data, "neo4j_heap": "1g", "neo4j_pagecache": "256m"}
    try:
        neo4j_local.start(Settings(**env))
    except Exception as err:  # noqa: BLE001
        _missing(f"cannot start the local Neo4j test server: {err}")
    yield env


@pytest.fixture
def double() -> Iterator[ScriptedLLM]:
    d = ScriptedLLM()
    d.start()
    yield d
    d.stop()


def make_settings(tmp_path: Path, base: dict[str, Any], **extra: Any) -> Settings:
    # reports composed for single entities only (as before issue 18): the tests' tiny graphs
    # would otherwise get no LLM report at all
    return Settings(**{"llm_cache_dir": tmp_path / "llm-cache", "openai_model": "double",
                       "embedding_model": "double-embedding", "llm_json_mode": "json_schema",
                       "llm_max_retries": 1,
                       "report_compose_max_entities": 1,
                       # the double gives every text unit the first topic: a topic holding
                       # the whole graph, split by the tests of the split only
                       "topic_split": False, **base, **extra})


@pytest.fixture
def settings(tmp_path: Path, neo4j_env: dict[str, Any], double: ScriptedLLM) -> Settings:
    """Real Neo4j + the scripted LLM double; a fresh LLM cache per test."""
    return make_settings(tmp_path, neo4j_env, openai_base_url=double.base_url,
                         report_context_tokens=2000, map_context_tokens=1500)


def neo4j_vars(settings: Settings) -> dict[str, str]:
    """Environment variables pointing a CLI run (CliRunner or a subprocess) at the test Neo4j."""
    if settings.neo4j.uri:
        return {"NEO4J_URI": settings.neo4j.uri, "NEO4J_PASSWORD": settings.neo4j_auth()[1]}
    return {"NEO4J_BOLT_PORT": str(settings.neo4j.bolt_port),
            "NEO4J_HTTP_PORT": str(settings.neo4j.http_port),
            "NEO4J_DATA": str(settings.neo4j_data_dir), "NEO4J_RETAG_HOME": str(settings.home)}


def double_vars(settings: Settings) -> dict[str, str]:
    """Environment variables pointing a CLI run at the scripted LLM double of ``settings``."""
    return {"OPENAI_BASE_URL": settings.llm.endpoint, "OPENAI_MODEL": "double",
            "EMBEDDING_MODEL": settings.embedding.model,
            "LLM_JSON_MODE": "json_schema", "LLM_CACHE_DIR": str(settings.cache_dir),
            "REPORT_COMPOSE_MAX_ENTITIES": str(settings.index.report_compose_max_entities),
            "TOPIC_SPLIT": str(settings.index.topic_split).lower()}


def wipe(graph: Graph) -> None:
    graph.driver.execute_query("CALL gds.graph.list() YIELD graphName "
                               "CALL gds.graph.drop(graphName, false) YIELD graphName AS g "
                               "RETURN count(*)")
    with graph.driver.session(database=graph.database) as session:
        session.run("MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS").consume()
    vectors.drop(graph)  # vector indexes are made with a dimension: a fresh graph has none


@pytest.fixture
def graph(settings: Settings) -> Iterator[Graph]:
    """An empty graph with the schema in place."""
    with Graph(settings) as g:
        wipe(g)
        g.ensure_schema()
        yield g


@pytest.fixture(scope="session")
def local_llm_env() -> dict[str, Any]:
    """The real local LLM (llama.cpp + SmolLM2-135M), started if it is not running."""
    if os.environ.get("OPENAI_BASE_URL"):
        return {}
    from neo4j_retag.services import llm_local
    s = Settings()
    try:
        llm_local.start(s)
    except Exception as err:  # noqa: BLE001
        _missing(f"cannot start the local LLM server: {err}")
    return {}


@pytest.fixture(scope="session")
def local_embedding() -> dict[str, Any]:
    """Overrides pointing embeddings at the local model, in process (all-MiniLM-L6-v2, int8
    ONNX on fastembed), beside whatever chat endpoint the test uses; its files checked first
    (missing: skipped, or failed under RETAG_TEST_REQUIRE=1). EMBEDDING_BASE_URL set: that endpoint
    instead."""
    if os.environ.get("EMBEDDING_BASE_URL"):
        return {"embedding_base_url": os.environ["EMBEDDING_BASE_URL"]}
    from neo4j_retag.llm import embed_files
    problems = [v for v in embed_files.files().values() if v.startswith("problem:")]
    if problems or importlib.util.find_spec("fastembed") is None:
        _missing(f"the local embedding model cannot run: {problems or 'fastembed missing'}")
    return {"embedding_base_url": "local", "embedding_model": embed_files.ALIAS}


@pytest.fixture
def real_settings(tmp_path: Path, neo4j_env: dict[str, Any], local_llm_env: dict[str, Any],
                  local_embedding: dict[str, Any]) -> Settings:
    """Real Neo4j + the real local LLM and embedding model, with a fresh response cache."""
    return Settings(**{**neo4j_env, **local_llm_env, **local_embedding,
                       "llm_cache_dir": tmp_path / "llm-cache"})


@pytest.fixture
def real_graph(real_settings: Settings) -> Iterator[Graph]:
    with Graph(real_settings) as g:
        wipe(g)
        g.ensure_schema()
        yield g


STORY = """Scrooge worked in his counting-house with Cratchit. Marley had been dead for seven years.
Fezziwig gave a ball, and Scrooge remembered Belle. Cratchit went home to Tiny Tim.
The Ghost of Christmas Past took Scrooge to see Fezziwig. Belle left Scrooge for his love of gold.
"""


def ingest(settings: Settings, graph: Graph, paths: list[Path], usage: Usage | None = None):
    """run_ingest with a fresh LLM client, quietly."""
    return run_with_llm(settings, lambda llm: run_ingest(graph, llm, settings, paths,
                                                         topics=False), usage)


def corpus(tmp_path: Path, n: int = 6) -> Path:
    """n small story files (the scripted double extracts their capitalised names)."""
    folder = tmp_path / "corpus"
    folder.mkdir()
    for i in range(n):
        (folder / f"doc{i}.txt").write_text(STORY * (i + 1) + f"\nChapter {i} ends with Scrooge.")
    return folder


@pytest.fixture
def indexed(settings: Settings, graph: Graph, tmp_path: Path) -> Settings:
    """Settings (120-token text units) for a graph indexed from four story files."""
    settings = settings.model_copy(update={"chunk_size": 120, "chunk_overlap": 20})
    ingest(settings, graph, [corpus(tmp_path, 4)])
    return settings
