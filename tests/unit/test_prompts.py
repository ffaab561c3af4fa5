"""Prompts are named, not located: the folder is resolved once (`prompts.FOLDER`), and a test
that points it elsewhere reads the other folder's text (no stale cache either way)."""

from __future__ import annotations

import pytest

from neo4j_retag import prompts
from neo4j_retag.config import resource_dir
from neo4j_retag.errors import ConfigError


def test_the_folder_is_the_project_s_prompts():
    assert resource_dir("prompts") == prompts.FOLDER
    assert prompts.render("query/rate_relevance", question="q", report="r")[0]["content"]


def test_pointing_the_folder_elsewhere_reads_there(monkeypatch, tmp_path):
    (tmp_path / "query").mkdir()
    (tmp_path / "query" / "map.txt").write_text("<<system>>\nbe brief\n<<user>>\nsay ${word}\n")
    (tmp_path / "query" / "no_answer.txt").write_text("nothing here\n")
    monkeypatch.setattr(prompts, "FOLDER", tmp_path)
    assert prompts.render("query/map", word="hi") == [
        {"role": "system", "content": "be brief"}, {"role": "user", "content": "say hi"}]
    assert prompts.fragment("query/no_answer") == "nothing here"
    with pytest.raises(ConfigError, match="no prompt file"):
        prompts.render("query/reduce")
    monkeypatch.undo()
    assert prompts.fragment("query/no_answer") != "nothing here"
