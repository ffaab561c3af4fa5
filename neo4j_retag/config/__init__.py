"""The project's settings, read from env vars and an optional `.env`, in groups.

`Settings` has one group per part of the system (``settings.neo4j``, ``.gds``, ``.llm``,
``.services`` (the local Neo4j / LLM servers the project runs: `services/`),
``.serve`` (`neo4j-retag serve`: `serve/`), ``.index``, ``.query``; see
`groups`) plus a few cross-cutting values at the top (``home``, ``encoding``,
``progress_interval``, and the folders and values that combine groups).
Every field reads the environment variable it always read (``NEO4J_URI``, ``OPENAI_BASE_URL``,
``CHUNK_SIZE`` ...), and `Settings(...)` / `model_copy(update=...)` still take those names in
lower case (``Settings(openai_model="x")``). Unset ``NEO4J_URI`` / ``OPENAI_BASE_URL`` mean
"use the local server that ``neo4j-retag neo4j start`` / ``llm start`` manage".
"""

from __future__ import annotations

import sys
from functools import cached_property
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, SecretStr, model_validator

from ..errors import ConfigError
from .groups import (
    EmbeddingSettings,
    GdsSettings,
    Group,
    IndexSettings,
    LLMSettings,
    Neo4jSettings,
    Top,
)
from .querying import QuerySettings
from .services import ServicesSettings
from .serving import ServeSettings

# attribute name on Settings -> group class, in display order
GROUPS: dict[str, type[Group]] = {
    "neo4j": Neo4jSettings, "gds": GdsSettings, "llm": LLMSettings,
    "services": ServicesSettings, "serve": ServeSettings, "index": IndexSettings,
    "query": QuerySettings, "embedding": EmbeddingSettings,
}


def _flat() -> dict[str, tuple[str | None, str]]:
    out: dict[str, tuple[str | None, str]] = {}
    for group, model in {None: Top, **GROUPS}.items():
        for name, field in model.model_fields.items():
            out[str(field.validation_alias).lower()] = (group, name)
    return out


# the flat name of each field (its environment variable, lower-case; the keyword `Settings`
# took before the groups) -> (group or None for the top level, field name)
FLAT: dict[str, tuple[str | None, str]] = _flat()

__all__ = ["REPO_ROOT", "FLAT", "EmbeddingSettings", "GdsSettings", "IndexSettings",
           "LLMSettings", "Neo4jSettings", "QuerySettings", "ServeSettings", "ServicesSettings",
           "Settings", "resource_dir"]

REPO_ROOT = Path(__file__).resolve().parent.parent.parent


def resource_dir(name: str) -> Path:
    """`cypher/` and `prompts/` sit beside the package in a checkout, under share/ in a wheel."""
    for base in (REPO_ROOT, Path(sys.prefix) / "share" / "neo4j-retag"):
        if (base / name).is_dir():
            return base / name
    return REPO_ROOT / name


# token budgets that fit the embedded server's default 8,192-token context; they scale with
# LLM_CTX (a larger local model served with a larger context gets larger budgets), never above
# the field defaults meant for large remote models. Budgets only: what a method does is the
# method's (its variants name their settings: query/retag.py), whatever the endpoint
LOCAL_LLM_CTX = 8192
# LLM_MODEL -> the name the local server serves it under (the LLM cache key): the GGUF's stem,
# as for LLM_MODEL_PATH
LOCAL_MODEL_ALIAS = {"qwen2.5-coder-1.5b": "qwen2.5-coder-1.5b-instruct-q4_k_m",
                     "smollm2": "smollm2"}
LOCAL_LLM_BUDGETS = {
    "index": {"report_context_tokens": 3000, "report_max_tokens": 800, "summary_max_tokens": 300},
    # the lazy method's tests sized to the embedded model's speed (~75 prompt tokens/s on two
    # cores: a test's prompt is its cost): short excerpts, a time budget, an early stop
    "query": {"map_context_tokens": 3000, "reduce_context_tokens": 3000,
              "lazy_test_tokens": 300, "lazy_seconds": 90, "lazy_enough": 6},
    "llm": {"max_tokens": 800, "schema_max_items": 6, "schema_max_chars": 150},
}


def _split(values: dict[str, Any]) -> tuple[dict[str | None, dict[str, Any]], dict[str, Any]]:
    """Keyword values by group (None = top level), flat names mapped; and the rest."""
    by_group: dict[str | None, dict[str, Any]] = {g: {} for g in (None, *GROUPS)}
    rest = {}
    for key, value in values.items():
        if key in FLAT:
            group, name = FLAT[key]
            by_group[group][name] = value
        elif key in Top.model_fields:
            by_group[None][key] = value
        else:
            rest[key] = value
    return by_group, rest


class Settings(BaseModel):
    model_config = ConfigDict(extra="ignore")

    home: Path
    encoding: str
    progress_interval: float
    neo4j: Neo4jSettings
    gds: GdsSettings
    llm: LLMSettings
    services: ServicesSettings
    serve: ServeSettings
    index: IndexSettings
    query: QuerySettings
    embedding: EmbeddingSettings

    @model_validator(mode="before")
    @classmethod
    def _read_groups(cls, data: Any) -> Any:
        # each group reads the environment and .env for what it is not given; a group given
        # whole (a model or a dict) is taken, with any flat names given beside it on top
        if not isinstance(data, dict):
            return data
        by_group, rest = _split(data)
        out: dict[str, Any] = {}
        for group, model in GROUPS.items():
            given = rest.pop(group, None)
            if isinstance(given, BaseModel):
                out[group] = given.model_copy(update=by_group[group])
            else:
                out[group] = model.read(**{**(given or {}), **by_group[group]})
        return {**rest, **out, **Top.read(**by_group[None]).model_dump()}

    @model_validator(mode="after")
    def _local_llm_budgets(self) -> Settings:
        # the local server's context (LLM_CTX, 8k by default) bounds prompt + completion:
        # budgets the user did not set follow it (8,000-token contexts assume a large remote
        # model); the schema limits keep small models from looping under a grammar
        if self.llm.local:
            for group, budgets in LOCAL_LLM_BUDGETS.items():
                part = getattr(self, group)
                for name, value in budgets.items():
                    if name in part.model_fields_set:
                        continue
                    if name.endswith("_tokens"):
                        value = value * self.services.llm_ctx // LOCAL_LLM_CTX
                        # never above a remote model's budget; a default of 0 is "off"
                        if cap := type(part).model_fields[name].default:
                            value = min(value, cap)
                    setattr(part, name, value)
            if "model" not in self.llm.model_fields_set:
                # the served alias and the LLM cache key: another model, other answers
                self.llm.model = (self.services.llm_model_path.stem.lower()
                                  if self.services.llm_model_path
                                  else LOCAL_MODEL_ALIAS[self.services.llm_model])
        return self

    @property
    def default_method(self) -> str:
        """The method of `ask`, `serve` and MCP when none is given: ASK_METHOD, else the
        default of the model's class - ``auto`` for a small model (a global question to
        retag-quoted, a specific one to local-quoted), ``retag`` for a capable one."""
        return self.query.ask_method or ("auto" if self.llm.small else "retag")

    @property
    def topic_build_mode(self) -> str:
        """How ReTAG's topics are built: TOPIC_MODE, else the default of the model's class -
        ``communities`` for a small model (no written topic reports), ``assign`` (mined) for a
        capable one."""
        mode = self.index.topic_mode
        return mode if mode != "auto" else ("communities" if self.llm.small else "assign")

    def model_copy(self, *, update: dict[str, Any] | None = None, deep: bool = False
                   ) -> Settings:
        """A copy with ``update`` applied; flat names (``{"chunk_size": 120}``) go to their
        group. Groups are copied too: a copy never shares a group with its original."""
        by_group, rest = _split(update or {})
        # a name no setting has (one removed, a typo) would be set and never read: refused
        if unknown := sorted(set(rest) - set(type(self).model_fields)):
            raise ValueError(f"no such setting: {', '.join(unknown)}")
        top = {**rest, **by_group[None]}
        new = super().model_copy(update=top, deep=deep)
        for group in GROUPS:
            if group not in top:
                part = getattr(self, group).model_copy(update=by_group[group], deep=deep)
                new.__dict__[group] = part
        return new

    def __getattr__(self, name: str) -> Any:
        if name in FLAT:  # a name from before the groups: say where it went
            group, field = FLAT[name]
            raise AttributeError(f"Settings.{name} is now Settings.{group}.{field}")
        return super().__getattr__(name)  # type: ignore[misc]

    # --- where things live, and values that combine groups ---------------------------------

    @cached_property
    def cypher_dir(self) -> Path:
        return resource_dir("cypher")

    @property
    def neo4j_home(self) -> Path:
        local = self.services
        return self.home / f"neo4j-{local.neo4j_version}-gds-{local.gds_version}"

    @property
    def neo4j_data_dir(self) -> Path:
        return self.services.neo4j_data or self.home / "neo4j-data"

    @property
    def password_file(self) -> Path:
        return self.neo4j_data_dir / "password"

    @property
    def cache_dir(self) -> Path:
        """LLM response cache: LLM_CACHE_DIR, or <home>/llm-cache."""
        return self.llm.cache_dir or self.home / "llm-cache"

    def neo4j_auth(self) -> tuple[str, str]:
        """(user, password); the local server's generated password when none is set.

        Raises ``ConfigError`` naming NEO4J_PASSWORD when no password can be found.
        """
        db = self.neo4j
        if db.password is not None:
            return db.username, db.password.get_secret_value()
        if db.local and self.password_file.exists():
            return db.username, self.password_file.read_text().strip()
        raise ConfigError(
            "no Neo4j password: set NEO4J_PASSWORD, or run `neo4j-retag neo4j start` "
            "to start the local server (it generates one)"
        )

    def gds_sessions_problem(self) -> str | None:
        """What GDS_MODE=sessions lacks, as one line naming the setting; None when complete."""
        gds = self.gds
        if not gds.aura_api_client_id:
            return ("GDS_MODE=sessions needs AURA_API_CLIENT_ID (an Aura API client: "
                    "console.neo4j.io, Account settings, API keys)")
        if gds.aura_api_client_secret is None:
            return ("GDS_MODE=sessions needs AURA_API_CLIENT_SECRET (shown once when the Aura "
                    "API client is created)")
        if self.neo4j.local:
            return ("GDS_MODE=sessions needs NEO4J_URI: a database Aura can reach (the local "
                    "server on 127.0.0.1 is not)")
        if not gds.aura_instance_id and not gds.session_location:
            return ("GDS_MODE=sessions needs AURA_INSTANCE_ID (for an AuraDB) or "
                    "GDS_SESSION_LOCATION=provider/region (for a self-managed database)")
        if gds.session_location and "/" not in gds.session_location:
            return "GDS_SESSION_LOCATION must be provider/region, e.g. gcp/europe-west1"
        return None

    def masked(self) -> dict[str, str]:
        """Effective settings for display, by their environment names in lower case (the
        names a user sets), group by group; secrets masked, never printed."""
        out: dict[str, str] = {}
        for flat, (group, name) in FLAT.items():
            value = getattr(getattr(self, group) if group else self, name)
            if isinstance(value, SecretStr):
                value = "********" if value.get_secret_value() else ""
            out[flat] = "" if value is None else str(value)
        out["bolt_uri (effective)"] = self.neo4j.bolt_uri
        out["llm_base_url (effective)"] = self.llm.endpoint
        out["llm_class (effective)"] = "small" if self.llm.small else "capable"
        out["default_method (effective)"] = self.default_method
        return out
