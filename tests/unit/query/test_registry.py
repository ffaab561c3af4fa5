"""The registry collects every method a module of ``query`` declares, and each declaration
tells the truth: its settings are a group declared beside it (every such group is some
method's, so `config` shows it), read from their own environment variables; its options a
typed model of optional fields; its trace part a Trace field its render prints."""

from __future__ import annotations

import importlib
import pkgutil

import pytest
from click.testing import CliRunner

from neo4j_retag import query as query_pkg
from neo4j_retag.cli import main
from neo4j_retag.config import FLAT, Group, Settings, flat_name
from neo4j_retag.model import Answer, Options, Trace
from neo4j_retag.query import METHODS, SETTINGS
from neo4j_retag.query.registry import declared


def _groups_in_query() -> set[type[Group]]:
    """Every settings group a module of ``query`` defines."""
    found = set()
    for info in pkgutil.walk_packages(query_pkg.__path__, f"{query_pkg.__name__}."):
        module = importlib.import_module(info.name)
        found |= {v for v in vars(module).values() if isinstance(v, type)
                  and issubclass(v, Group) and v.__module__ == module.__name__}
    return found


def test_every_method_module_declaration_is_registered_in_rank_order():
    found = declared()
    assert list(found) == [n for n in METHODS if n != "auto"]
    assert list(found)[:4] == ["retag", "retag-quoted", "global", "global-dynamic"]
    assert {"local", "local-quoted", "drift", "rag", "ts", "lazy"} <= set(found)


def test_every_settings_group_of_the_query_side_is_a_method_s_and_named_once():
    groups = _groups_in_query()
    assert {g.__name__ for g in groups} >= {"LazySettings", "DriftSettings", "DynamicSettings",
                                           "LocalSettings", "RetagSettings"}
    assert groups == set(SETTINGS), "a group no method declares: config would not show it"
    names = [flat_name(f) for g in SETTINGS for f in g.model_fields.values()]
    assert len(names) == len(set(names)) and not set(names) & set(FLAT), names
    for g in SETTINGS:  # each field reads its own variable, said in capitals, described
        for name, f in g.model_fields.items():
            assert str(f.validation_alias).isupper() and f.description, (g, name)


@pytest.mark.parametrize("name", [n for n in METHODS if n != "auto"])
def test_a_method_s_settings_and_options_are_typed_models(name):
    m = METHODS[name]
    assert m.settings is None or (issubclass(m.settings, Group) and m.settings in SETTINGS)
    assert issubclass(m.options, Options)
    for opt, f in m.options.model_fields.items():  # not given = None: the setting applies
        assert f.default is None and f.description, (name, opt)


def test_a_method_s_setting_is_read_from_its_variable_and_its_flat_name(monkeypatch):
    from neo4j_retag.query.drift import DriftSettings
    from neo4j_retag.query.lazy import LazySettings
    monkeypatch.setenv("LAZY_BUDGET", "42")
    monkeypatch.setenv("DRIFT_N_DEPTH", "2")
    s = Settings(drift_k_followups=4)
    assert s.method(LazySettings).budget == 42
    assert (s.method(DriftSettings).n_depth, s.method(DriftSettings).k_followups) == (2, 4)
    assert s.model_copy(update={"lazy_budget": 9}).method(LazySettings).budget == 9


def test_config_shows_every_method_s_setting(monkeypatch):
    monkeypatch.setenv("LAZY_BUDGET", "77")
    out = CliRunner().invoke(main, ["config"], terminal_width=200)
    assert out.exit_code == 0, out.output
    shown = {line.split("│")[1].strip(): line.split("│")[2].strip()
             for line in out.output.splitlines() if line.count("│") == 3}
    assert shown["lazy_budget"] == "77"
    for g in SETTINGS:
        assert {flat_name(f) for f in g.model_fields.values()} <= set(shown), g
    assert shown["default_method (effective)"] in METHODS


@pytest.mark.parametrize("name", list(METHODS))
def test_a_trace_part_is_a_trace_field_and_its_render_prints_it(name):
    m = METHODS[name]
    assert m.trace_part is None or m.trace_part in Trace.model_fields
    assert isinstance(m.render(Answer(answer="a", trace=Trace(method=name))), list)
