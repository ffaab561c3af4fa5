"""The grouped Settings read every environment variable the flat class read, take the flat
keyword names, copy by them, and display what the flat class displayed.

``settings_env_old.json`` was generated from the flat class before the groups (env name, field,
type, default); its ``path`` column is where each now lives. ``settings_masked_old.json`` holds
the flat class's ``masked()`` and derived values for two configurations."""

from __future__ import annotations

import json
import operator
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from neo4j_retag.config import FLAT, Settings

HERE = Path(__file__).parent
OLD = json.loads((HERE / "settings_env_old.json").read_text())
MASKED = json.loads((HERE / "settings_masked_old.json").read_text())
# values unlike each default, one per kind of field (Literal fields take a listed value)
LITERALS = {"gds_mode": "sessions", "llm_json_mode": "json_object", "claims_call": "separate"}


def _sample(row: dict[str, Any]) -> tuple[str, Any]:
    """(the environment text, the value the field should then hold)."""
    field, kind = row["field"], row["type"]
    if field in LITERALS:
        return LITERALS[field], LITERALS[field]
    if "Path" in kind:
        return f"/tmp/{field}", Path(f"/tmp/{field}")
    if "SecretStr" in kind:
        return f"secret-{field}", f"secret-{field}"
    if "bool" in kind:
        return "false", False
    if "list" in kind:
        return '["a", "b"]', ["a", "b"]
    if "float" in kind:
        return "3.5", 3.5
    if "int" in kind:
        n = 4000 + len(field)
        return str(n), n
    return f"v-{field}", f"v-{field}"


def _read(settings: Settings, path: str) -> Any:
    value = operator.attrgetter(path)(settings)
    return value.get_secret_value() if isinstance(value, SecretStr) else value


def _check(settings: Settings) -> None:
    wrong = {r["env"]: (_read(settings, r["path"]), _sample(r)[1]) for r in OLD
             if _read(settings, r["path"]) != _sample(r)[1]}
    assert not wrong, wrong


def test_the_list_is_the_flat_class_s():
    assert len(OLD) == 59 and len({r["env"] for r in OLD}) == 59


def test_every_old_environment_variable_is_read(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # no .env
    for row in OLD:
        monkeypatch.setenv(row["env"], _sample(row)[0])
    _check(Settings())


def test_every_old_name_is_read_from_dot_env(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    lines = []
    for row in OLD:
        monkeypatch.delenv(row["env"], raising=False)
        lines.append(f"{row['env']}={_sample(row)[0]}")
    (tmp_path / ".env").write_text("\n".join(lines) + "\n")
    _check(Settings())


def test_flat_keywords_construct_and_copy(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    given = {r["field"]: _sample(r)[1] for r in OLD}
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
    s = Settings(neo4j_retag_home="/h")
    assert s.llm.model != "nope" and s.home == Path("/h")


def test_a_copy_shares_no_group_with_its_original():
    s = Settings(openai_base_url="http://x/v1")
    c = s.model_copy(update={"chunk_size": 7})
    assert (c.index.chunk_size, s.index.chunk_size) == (7, 600)
    c.llm.model = "other"
    assert s.llm.model != "other"


def test_an_old_attribute_names_its_new_place():
    old: object = Settings()  # not typed Settings: the codemod leaves this flat name alone
    with pytest.raises(AttributeError, match=r"Settings\.llm\.model"):
        getattr(old, "openai_model")  # noqa: B009


@pytest.mark.parametrize("case", sorted(MASKED))
def test_masked_and_derived_values_are_the_flat_class_s(case, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    for row in OLD:
        monkeypatch.delenv(row["env"], raising=False)
    old = MASKED[case]
    s = Settings(**old["kwargs"])
    shown = s.masked()  # the env names, lower case, as keys; a field added since may join
    assert {k: shown.get(k) for k in old["masked"]} == old["masked"]
    assert set(shown) - set(old["masked"]) <= set(FLAT) | {k for k in shown if "effective" in k}
    assert (s.llm.parallel, s.neo4j.bolt_uri, s.llm.endpoint) == (
        old["concurrency"], old["bolt_uri"], old["llm_base_url"])
    assert [str(p) for p in (s.neo4j_home, s.neo4j_data_dir, s.cache_dir, s.password_file)] == [
        old["neo4j_home"], old["neo4j_data_dir"], old["cache_dir"], old["password_file"]]
