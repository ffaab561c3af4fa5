"""`embed status|start|stop` and `up` for the local embedding model, which runs in process:
where embeddings are made, its files checked, and the removed server's commands told in one
line."""

import dataclasses
import json

from click.testing import CliRunner

from neo4j_retag.cli import main
from neo4j_retag.llm import embed_files

REMOTE = {"NEO4J_URI": "bolt://127.0.0.1:1", "NEO4J_PASSWORD": "x",
          "OPENAI_BASE_URL": "http://127.0.0.1:1/v1"}


def cli(args, env):
    return CliRunner().invoke(main, args, env=env)


def test_embed_status_says_where_embeddings_are_made_and_checks_the_files():
    out = cli(["embed", "status"], {"EMBEDDING_BASE_URL": "local"})
    assert out.exit_code == 0, out.output
    info = json.loads(out.stdout)
    assert info["in_process"] and info["endpoint"] == "in process"
    assert info["model"] == "all-minilm-l6-v2"
    assert all(not v.startswith("problem:") for v in info["files"].values())
    remote = json.loads(cli(["embed", "status"], {"OPENAI_BASE_URL": "http://h:1/v1"}).stdout)
    assert not remote["in_process"] and remote["endpoint"] == "http://h:1/v1"


def test_embed_has_no_server_to_start_or_stop():
    for verb in ("start", "stop"):  # the removed server's commands are gone, not shims
        out = cli(["embed", verb], {})
        assert out.exit_code == 2 and "No such command" in out.output


def test_up_stops_at_a_model_file_not_the_pinned_one(monkeypatch):
    monkeypatch.setattr(embed_files, "MODEL",
                        dataclasses.replace(embed_files.MODEL, sha256="0" * 64))
    out = cli(["up"], {**REMOTE, "EMBEDDING_BASE_URL": "local"})
    assert out.exit_code == 1 and "is not the pinned file" in out.output
    assert "Traceback" not in out.output
    out = cli(["embed", "status"], {"EMBEDDING_BASE_URL": "local"})
    assert out.exit_code == 1 and "problem:" in out.output
    missing = dataclasses.replace(embed_files.MODEL, package="no_such_model_package_x")
    monkeypatch.setattr(embed_files, "MODEL", missing)
    out = cli(["up"], {**REMOTE, "EMBEDDING_BASE_URL": "local"})
    assert out.exit_code == 2 and "pip install" in out.output and "Traceback" not in out.output


def test_up_with_the_local_model_reports_it_in_process():
    out = cli(["up"], {**REMOTE, "EMBEDDING_BASE_URL": "local"})
    assert out.exit_code == 0, out.output
    assert "embeddings: in process, model: all-minilm-l6-v2 (files verified)" in out.output
