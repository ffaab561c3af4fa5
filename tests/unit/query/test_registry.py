"""The registry collects every method a module of ``query`` declares, and each declaration
tells the truth: the settings it names are QuerySettings fields and cover what its module
reads, its trace part is a Trace field, its render prints that part."""

from __future__ import annotations

import ast
import importlib
import inspect

import pytest

from neo4j_retag.config.querying import QuerySettings
from neo4j_retag.model import Trace
from neo4j_retag.query import METHODS
from neo4j_retag.query.registry import declared


def test_every_method_module_declaration_is_registered_in_rank_order():
    found = declared()
    assert list(found) == [n for n in METHODS if n != "auto"]
    assert list(found)[:4] == ["retag", "retag-quoted", "global", "global-dynamic"]
    assert {"local", "local-quoted", "drift", "rag", "ts", "lazy"} <= set(found)


@pytest.mark.parametrize("name", [n for n in METHODS if n != "auto"])
def test_a_declaration_names_the_settings_its_module_reads(name):
    m = METHODS[name]
    assert set(m.settings) <= set(QuerySettings.model_fields), m.settings
    source = inspect.getsource(importlib.import_module(m.module))
    read = {node.attr for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute)
            and node.value.attr == "query" and node.attr in QuerySettings.model_fields}
    assert read <= set(m.settings), f"{name} reads {read - set(m.settings)} undeclared"


@pytest.mark.parametrize("name", list(METHODS))
def test_a_trace_part_is_a_trace_field_and_its_render_prints_it(name):
    from neo4j_retag.model import Answer
    m = METHODS[name]
    assert m.trace_part is None or m.trace_part in Trace.model_fields
    assert isinstance(m.render(Answer(answer="a", trace=Trace(method=name))), list)
