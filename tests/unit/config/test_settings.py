"""Settings read every environment variable a field names - the groups' and each query method's
own (declared beside it) - from the environment and `.env`, take the same names in lower case as
keywords and in copies, and show them all, secrets masked."""

from __future__ import annotations

import types
import typing
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr
from pydantic.fields import FieldInfo

from neo4j_retag.config import FLAT, GROUPS, Group, Settings, flat_name
from neo4j_retag.config.groups import Top
from neo4j_retag.query import SETTINGS

# every field: (flat name, where it is read from Settings, its FieldInfo)
FIELDS: list[tuple[str, Any, str, FieldInfo]] = [
    *((flat, group, name, (GROUPS[group] if group else Top).model_fields[name])
      for flat, (group, name) in FLAT.items()),
    *((flat_name(f), g, name, f) for g in SETTINGS for name, f in g.model_fields.items())]


def _bound(f: FieldInfo, key: str) -> Any:
    return next((getattr(m, key) for m in f.metadata if hasattr(m, key)), None)


def _sample(f: FieldInfo) -> tuple[str, Any]:
    """(the environment text, the value the field should then hold): unlike its default, within
    its bounds."""
    base = f.annotation
    if typing.get_origin(base) in (typing.Union, types.UnionType):  # X | None, X | Literal
        kinds = [a for a in typing.get_args(base) if a is not type(None)]
        other = [c for a in kinds if typing.get_origin(a) is typing.Literal
                 for c in typing.get_args(a) if c != f.default]
        if other:
            return other[0], other[0]
        base = next(a for a in kinds if typing.get_origin(a) is not typing.Literal)
    if typing.get_origin(base) is typing.Annotated:  # Annotated[int, Field(ge=1)]
        base = typing.get_args(base)[0]
    if typing.get_origin(base) is typing.Literal:
        other = next(c for c in typing.get_args(base) if c != f.default)
        return other, other
    if base is Path:
        return "/tmp/sample", Path("/tmp/sample")
    if base is SecretStr:
        return "secret-x", "secret-x"
    if base is bool:
        return str(not f.default).lower(), not f.default
    if typing.get_origin(base) is list:
        return '["a", "b"]', ["a", "b"]
    if base is float:
        hi = _bound(f, "le")
        value = 0.25 if hi is not None and hi <= 1 and f.default != 0.25 else 3.5
        return str(value), value
    if base is int:
        hi = _bound(f, "le")
        value = 4001 if hi is None else min(hi, (f.default or 0) + 1)
        return str(value), value
    return "v-x", "v-x"


def _read(settings: Settings, group: Any, name: str) -> Any:
    part = (settings.method(group) if isinstance(group, type) else
            getattr(settings, group) if group else settings)
    value = getattr(part, name)
    return value.get_secret_value() if isinstance(value, SecretStr) else value


def _check(settings: Settings) -> None:
    wrong = {flat: (_read(settings, g, n), _sample(f)[1]) for flat, g, n, f in FIELDS
             if _read(settings, g, n) != _sample(f)[1]}
    assert not wrong, wrong


def test_the_fields_are_all_there():
    names = [flat for flat, *_ in FIELDS]
    assert len(names) == len(set(names)) and {"neo4j_uri", "lazy_budget", "drift_n_depth",
                                               "local_top_k_entities", "top_p_share"} <= set(names)


def test_every_environment_variable_is_read(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # no .env
    for flat, _, _, f in FIELDS:
        monkeypatch.setenv(flat.upper(), _sample(f)[0])
    _check(Settings())


def test_every_name_is_read_from_dot_env(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    lines = []
    for flat, _, _, f in FIELDS:
        monkeypatch.delenv(flat.upper(), raising=False)
        lines.append(f"{flat.upper()}={_sample(f)[0]}")
    (tmp_path / ".env").write_text("\n".join(lines) + "\n")
    _check(Settings())


def test_flat_keywords_construct_and_copy(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    given = {flat: _sample(f)[1] for flat, _, _, f in FIELDS}
    _check(Settings(**given))
    _check(Settings().model_copy(update=given))


def test_keywords_beat_the_environment_and_the_rest_of_a_group_is_still_read(monkeypatch):
    monkeypatch.setenv("OPENAI_MODEL", "from-env")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://env/v1")
    s = Settings(openai_model="given")
    assert (s.llm.model, s.llm.base_url) == ("given", "http://env/v1")


def test_bare_field_names_are_not_environment_variables(monkeypatch):
    monkeypatch.setenv("MODEL", "nope")  # populate_by_name would read it for llm.model
    monkeypatch.setenv("HOME", "/elsewhere")
    monkeypatch.setenv("LLM", '{"model": "nope"}')
    monkeypatch.setenv("BUDGET", "3")  # LazySettings.budget reads LAZY_BUDGET only
    s = Settings(neo4j_retag_home="/h")
    assert s.llm.model != "nope" and s.home == Path("/h")
    from neo4j_retag.query.lazy import LazySettings
    assert s.method(LazySettings).budget != 3


def test_a_copy_shares_no_group_with_its_original():
    s = Settings(openai_base_url="http://x/v1")
    c = s.model_copy(update={"chunk_size": 7})
    assert (c.index.chunk_size, s.index.chunk_size) == (7, 600)
    c.llm.model = "other"
    assert s.llm.model != "other"


def test_a_flat_name_from_before_the_groups_is_no_attribute():
    with pytest.raises(AttributeError, match="openai_model"):
        getattr(Settings(), "openai_model")  # noqa: B009


def test_masked_shows_every_setting_secrets_hidden_and_what_is_in_effect(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    for flat, *_ in FIELDS:
        monkeypatch.delenv(flat.upper(), raising=False)
    s = Settings(openai_api_key="sk-secret", neo4j_password="pw", lazy_budget=5,
                 openai_base_url=None)
    shown = s.masked(SETTINGS)
    assert set(shown) >= {flat for flat, *_ in FIELDS}
    assert shown["openai_api_key"] == shown["neo4j_password"] == "********"
    assert "sk-secret" not in str(shown) and shown["lazy_budget"] == "5"
    assert shown["llm_max_tokens"] == "800"  # the local server's budget, not the remote one
    assert shown["llm_class (effective)"] == "small"
    assert shown["default_method (effective)"] == "auto"
    assert shown["bolt_uri (effective)"] == "bolt://127.0.0.1:7687"


def test_a_method_group_is_a_group():
    assert all(issubclass(g, Group) for g in SETTINGS)
