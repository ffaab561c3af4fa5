"""Graph Data Science through its own Python client (``graphdatascience``), one code path for
every place GDS runs (Edge et al. 2024 §3.1.4 runs Leiden here):

- ``GDS_MODE=plugin`` (default): the GDS plugin of the database itself: the local server,
  a self-managed Neo4j with GDS, or AuraDS. ``GraphDataScience`` on our own driver; Arrow off
  (the OpenGDS plugin has no Arrow server, and the calls below are procedure calls anyway).
- ``GDS_MODE=sessions``: Aura Graph Analytics (``GdsSessions``): an on-demand GDS session
  beside an AuraDB (``AURA_INSTANCE_ID``) or a self-managed database (``GDS_SESSION_LOCATION``)
  without the plugin; the graph is projected remotely and Leiden's results written back.

Projections differ by mode (a native projection in the plugin, a remote Cypher projection in a
session); dropping, Leiden stream and Leiden write are the same client calls. Projection names
are unique per process and call (``unique_name``), so two processes never collide in the
catalog. The client (and pandas under it) is imported only here, when communities are built.
"""

from __future__ import annotations

import atexit
import itertools
import logging
import uuid
from typing import Any

from ..config import Settings
from ..db import Graph, Record
from ..errors import ConfigError

log = logging.getLogger(__name__)
_RUN = uuid.uuid4().hex[:8]  # this process's part of every projection name
_names = itertools.count()


def unique_name(prefix: str) -> str:
    """A GDS catalog name no other process or call uses: ``prefix-<run>-<n>``."""
    return f"{prefix}-{_RUN}-{next(_names)}"


def sessions_requirements(settings: Settings) -> None:
    """Raise ConfigError (one line, naming the first missing setting) unless GDS_MODE=sessions
    has what ``GdsSessions`` needs (``Settings.gds_sessions_problem``)."""
    problem = settings.gds_sessions_problem()
    if problem:
        raise ConfigError(problem)


class Gds:
    """Projections and Leiden for one graph, in the mode the settings name.

    The client connects on first use (the plugin's shares our driver; a session's connections
    close at exit, and the session stays alive for ``GDS_SESSION_TTL`` idle minutes, so the
    next run reuses it).
    """

    def __init__(self, graph: Graph, settings: Settings) -> None:
        self.graph = graph
        self.settings = settings
        self.sessions = settings.gds.mode == "sessions"
        self._client: Any = None
        if self.sessions:
            sessions_requirements(settings)

    @property
    def client(self) -> Any:
        if self._client is None:
            self._client = self._session() if self.sessions else self._plugin()
        return self._client

    def _plugin(self) -> Any:
        from graphdatascience import GraphDataScience
        from graphdatascience.error.gds_not_installed import GdsNotFound
        try:
            return GraphDataScience(self.graph.driver, database=self.graph.database,
                                    arrow=False, show_progress=False)
        except GdsNotFound as err:
            raise ConfigError(
                f"Neo4j at {self.settings.neo4j.bolt_uri} has no Graph Data Science plugin: "
                "install it (AuraDS has it), or set GDS_MODE=sessions for Aura Graph Analytics"
            ) from err

    def _session(self) -> Any:  # pragma: no cover - needs an Aura account (docs/configuration.md)
        from datetime import timedelta

        from graphdatascience.session import (
            AuraAPICredentials,
            CloudLocation,
            DbmsConnectionInfo,
            GdsSessions,
        )
        s, g = self.settings, self.settings.gds
        secret = g.aura_api_client_secret.get_secret_value() if g.aura_api_client_secret else ""
        sessions = GdsSessions(AuraAPICredentials(g.aura_api_client_id or "", secret,
                                                  g.aura_api_project_id))
        user, password = s.neo4j_auth()
        db = DbmsConnectionInfo(uri=s.neo4j.uri, username=user, password=password,
                                database=s.neo4j.database, aura_instance_id=g.aura_instance_id)
        location = None
        if g.session_location and not g.aura_instance_id:
            provider, region = g.session_location.split("/", 1)
            location = CloudLocation(provider, region)
        client = sessions.get_or_create(
            g.session_name, memory=g.session_memory, db_connection=db,
            ttl=timedelta(minutes=g.session_ttl), cloud_location=location,
            show_progress=False)
        # its connections close with the process; the session itself lives on for the TTL
        atexit.register(client.close)
        return client

    # --- projections ------------------------------------------------------------------

    def project(self, name: str, labels: list[str]) -> tuple[Any, int]:
        """Entities with any of ``labels`` over RELATED, undirected and weighted (Leiden in
        GDS runs on undirected graphs only); returns the projection and its relationship
        count."""
        if self.sessions:  # pragma: no cover - Aura only
            g, result = self.client.graph.project.cypher(
                name, self.graph.cypher("index/gds_project_remote"),
                query_parameters={"labels": labels}, undirected_relationship_types=["*"])
        else:
            # a Cypher projection in key order: Leiden's result depends on GDS's node
            # numbering, which a native projection takes from creation order
            g, result = self.client.graph.project.cypher(
                self.graph.cypher("index/gds_project"), name=name, labels=labels)
        return g, int(result.relationship_count)

    def project_keys(self, name: str, keys: list[str]) -> tuple[Any, int]:
        """Just the entities in ``keys`` and the RELATED between them (splitting an oversized
        community); returns the projection and its relationship count."""
        if self.sessions:  # pragma: no cover - Aura only
            g, result = self.client.graph.project.cypher(
                name, self.graph.cypher("index/gds_project_keys_remote"),
                query_parameters={"keys": keys}, undirected_relationship_types=["*"])
        else:
            g, result = self.client.graph.project.cypher(
                self.graph.cypher("index/gds_project_keys"), name=name, keys=keys)
        return g, int(result.relationship_count)

    def project_groups(self, name: str, groups: list[Record]) -> tuple[Any, set[str]]:
        """Disjoint groups of entities (``[{"label", "keys"}]``), each under its own node label
        with only the relationships inside it, in ONE projection (oversized leaves split
        together). Returns the projection and the labels of the groups with a relationship
        inside. Plugin mode only (sessions split group by group with :meth:`project_keys`)."""
        row = self.graph.run("index/gds_project_groups", name=name, groups=groups)[0]
        return self.client.graph.get(name), set(row["linked"])

    def drop(self, name: str) -> None:
        """Drop a projection if it exists (called in ``finally``)."""
        try:
            self.client.graph.drop(name, fail_if_missing=False)
        except Exception as err:  # noqa: BLE001 - never mask the error that got us here
            log.warning("could not drop GDS projection %s: %s", name, err)

    # --- Leiden -----------------------------------------------------------------------

    def _leiden(self, labels: list[str], intermediate: bool) -> dict[str, Any]:
        # one thread and a seed: the same graph gives the same communities on every run
        return {"node_labels": labels, "include_intermediate_communities": intermediate,
                "relationship_weight_property": "weight",
                "random_seed": self.settings.index.leiden_seed, "concurrency": 1}

    def leiden_stream(self, g: Any, labels: list[str],
                      intermediate: bool) -> dict[str, list[int]]:
        """Leiden over the nodes of ``labels`` in projection ``g``: entity key -> community
        ids, finest first (one id without ``intermediate``)."""
        df = self.client.leiden.stream(g, **self._leiden(labels, intermediate))
        if df.empty:
            return {}
        inter = (df["intermediateCommunityIds"] if "intermediateCommunityIds" in df
                 else [None] * len(df))
        by_id = {int(n): (list(i) if i is not None and len(i) else [int(c)])
                 for n, c, i in zip(df["nodeId"], df["communityId"], inter, strict=True)}
        rows = self.keys_by_id(list(by_id))
        return {r["key"]: [int(x) for x in by_id[r["id"]]] for r in rows}

    def keys_by_id(self, ids: list[int]) -> list[Record]:
        """The key of each node id Leiden streamed (``{id, key}`` rows)."""
        return self.graph.run("index/entity_keys_by_id", ids=ids)

    def leiden_write(self, g: Any, labels: list[str], prop: str) -> None:
        """Hierarchical Leiden written to each entity as ``prop: long[]`` (finest first)."""
        self.client.leiden.write(g, prop, **self._leiden(labels, True))


__all__ = ["Gds", "sessions_requirements", "unique_name"]
