"""The project's settings, read from env vars and an optional `.env`, in groups.

`Settings` has one group per part of the system (``settings.neo4j``, ``.gds``, ``.llm``,
``.services`` (the local Neo4j / LLM servers the project runs: `services/`),
``.serve`` (`neo4j-retag serve`: `serve/`), ``.index``, ``.query`` (what the query methods
share); see `groups`) plus a few cross-cutting values at the top (``home``, ``encoding``,
``progress_interval``, and the folders and values that combine groups). A query method's own
settings are a group declared beside it (``query/lazy.py``'s ``LazySettings``), reached as
``settings.method(LazySettings)``: config never imports the query side.
Every field reads its environment variable (``NEO4J_URI``, ``OPENAI_BASE_URL``, ``CHUNK_SIZE``,
``LAZY_BUDGET`` ...), and `Settings(...)` / `model_copy(update=...)` take those names in lower
case (``Settings(openai_model="x", lazy_budget=50)``). Unset ``NEO4J_URI`` /
``OPENAI_BASE_URL`` mean "use the local server that ``neo4j-retag neo4j start`` / ``llm start``
manage".
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from functools import cached_property
from pathlib import Path
from typing import Any, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SecretStr,
    ValidationError,
    model_validator,
)

from ..errors import ConfigError
from .groups import (
    LOCAL_LLM_CTX,
    EmbeddingSettings,
    GdsSettings,
    Group,
    LLMSettings,
    Neo4jSettings,
    Top,
    env,
    local_value,
    localise,
)
from .indexing import IndexSettings
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


# the flat name of each field (its environment variable, lower-case: the keyword `Settings`
# and `model_copy` take) -> (group or None for the top level, field name)
FLAT: dict[str, tuple[str | None, str]] = _flat()
G = TypeVar("G", bound=Group)


def flat_name(field: Any) -> str:
    """A field's flat name: its environment variable in lower case."""
    return str(field.validation_alias).lower()


def invalid(err: ValidationError) -> ConfigError:
    """A settings validation error in one line naming the variables."""
    bad = ", ".join(str(e["loc"][0]).upper() for e in err.errors() if e["loc"])
    return ConfigError(f"invalid setting {bad}: {err.errors()[0]['msg']}")

__all__ = ["FLAT", "LOCAL_LLM_CTX", "REPO_ROOT", "EmbeddingSettings", "GdsSettings", "Group",
           "IndexSettings", "LLMSettings", "Neo4jSettings", "QuerySettings", "ServeSettings",
           "ServicesSettings", "Settings", "env", "flat_name", "invalid", "resource_dir"]

REPO_ROOT = Path(__file__).resolve().parent.parent.parent


def resource_dir(name: str) -> Path:
    """`cypher/` and `prompts/` sit beside the package in a checkout, under share/ in a wheel."""
    for base in (REPO_ROOT, Path(sys.prefix) / "share" / "neo4j-retag"):
        if (base / name).is_dir():
            return base / name
    return REPO_ROOT / name


# LLM_MODEL -> the name the local server serves it under (the LLM cache key): the GGUF's stem,
# as for LLM_MODEL_PATH
LOCAL_MODEL_ALIAS = {"qwen2.5-coder-1.5b": "qwen2.5-coder-1.5b-instruct-q4_k_m",
                     "smollm2": "smollm2"}
# the local server's values of the groups' fields (env(..., local=): budgets that fit its
# 8,192-token context and scale with LLM_CTX, never above the defaults meant for large remote
# models; budgets only: what a method does is the method's, whatever the endpoint)
LOCAL_LLM_BUDGETS = {group: local for group, model in GROUPS.items() if (local := {
    n: local_value(f) for n, f in model.model_fields.items() if local_value(f) is not None})}


def _split(values: dict[str, Any]) -> tuple[dict[str | None, dict[str, Any]], dict[str, Any]]:
    """Keyword values by group (None = top level), flat names mapped; and the rest (groups
    given whole, a method's settings by their flat names)."""
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
    # values given by a flat name no group here holds: a query method's own settings (its
    # group is declared beside it), read by :meth:`method`
    overrides: dict[str, Any] = Field(default_factory=dict, repr=False)
    _methods: dict[type[Group], Group] = PrivateAttr(default_factory=dict)

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
        overrides = {**(rest.pop("overrides", None) or {}),
                     **{k: rest.pop(k) for k in list(rest) if k not in cls.model_fields}}
        return {**rest, **out, **Top.read(**by_group[None]).model_dump(),
                "overrides": overrides}

    def method(self, group: type[G]) -> G:
        """The settings ``group`` a query method declares beside it (``LazySettings`` in
        query/lazy.py): read from the environment and `.env`, the flat names given to
        ``Settings(...)`` / ``model_copy(update=...)`` on top; built once per Settings.
        Raises ConfigError naming the variable for a value out of its bounds."""
        got = self._methods.get(group)
        if got is None:
            given = {name: self.overrides[flat_name(f)]
                     for name, f in group.model_fields.items() if flat_name(f) in self.overrides}
            try:
                got = group.read(**given)
            except ValidationError as err:
                raise invalid(err) from None
            if self.llm.local:  # its local values (env(..., local=)) where none is set
                localise(got, self.services.llm_ctx)
            self._methods[group] = got
        return got  # type: ignore[return-value]

    @model_validator(mode="after")
    def _local_llm_budgets(self) -> Settings:
        # the local server's context (LLM_CTX, 8k by default) bounds prompt + completion:
        # budgets the user did not set follow it (8,000-token contexts assume a large remote
        # model); the schema limits keep small models from looping under a grammar
        if self.llm.local:
            for group in GROUPS:
                localise(getattr(self, group), self.services.llm_ctx)
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
        group, a method's (``{"lazy_budget": 50}``) to :meth:`method`. Groups are copied too:
        a copy never shares a group with its original."""
        by_group, rest = _split(update or {})
        own = {k: v for k, v in rest.items() if k in type(self).model_fields}
        top = {**own, **by_group[None], "overrides": {
            **self.overrides, **{k: v for k, v in rest.items() if k not in own}}}
        new = super().model_copy(update=top, deep=deep)
        new._methods = {}  # a method's group reads the copy's overrides
        for group in GROUPS:
            if group not in top:
                part = getattr(self, group).model_copy(update=by_group[group], deep=deep)
                new.__dict__[group] = part
        return new

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

    def masked(self, methods: Iterable[type[Group]] = ()) -> dict[str, str]:
        """Effective settings for display, by their environment names in lower case (the
        names a user sets), group by group, then those of the query methods' ``methods``
        groups (``query.registry.SETTINGS``); secrets masked, never printed."""
        out: dict[str, str] = {}
        values = [(flat, getattr(getattr(self, group) if group else self, name))
                  for flat, (group, name) in FLAT.items()]
        for group in methods:
            part = self.method(group)
            values += [(flat_name(f), getattr(part, n)) for n, f in group.model_fields.items()]
        for flat, value in values:
            if isinstance(value, SecretStr):
                value = "********" if value.get_secret_value() else ""
            out[flat] = "" if value is None else str(value)
        out["bolt_uri (effective)"] = self.neo4j.bolt_uri
        out["llm_base_url (effective)"] = self.llm.endpoint
        out["llm_class (effective)"] = "small" if self.llm.small else "capable"
        out["default_method (effective)"] = self.default_method
        out["topic_mode (effective)"] = self.topic_build_mode
        return out
