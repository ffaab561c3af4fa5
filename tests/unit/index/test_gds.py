"""GDS modes (index/gds.py): the sessions mode names the first missing setting in one line;
projection names are unique per call and per process."""

import subprocess
import sys

import pytest

from neo4j_retag.config import Settings
from neo4j_retag.errors import ConfigError
from neo4j_retag.index.gds import Gds, sessions_requirements, unique_name

FULL = {"gds_mode": "sessions", "aura_api_client_id": "id", "aura_api_client_secret": "secret",
        "neo4j_uri": "neo4j+s://abcd1234.databases.neo4j.io", "neo4j_password": "pw",
        "aura_instance_id": "abcd1234"}


@pytest.mark.parametrize("missing, named", [
    ("aura_api_client_id", "AURA_API_CLIENT_ID"),
    ("aura_api_client_secret", "AURA_API_CLIENT_SECRET"),
    ("neo4j_uri", "NEO4J_URI"),
    ("aura_instance_id", "AURA_INSTANCE_ID"),
])
def test_sessions_mode_names_the_missing_setting(missing, named):
    settings = Settings(**{k: v for k, v in FULL.items() if k != missing})
    with pytest.raises(ConfigError) as err:
        Gds(graph=None, settings=settings)  # type: ignore[arg-type]
    message = str(err.value)
    assert named in message and "\n" not in message


def test_sessions_mode_complete_settings_and_location():
    sessions_requirements(Settings(**FULL))  # nothing missing: no error, no connection made
    self_managed = {**FULL, "aura_instance_id": None, "neo4j_uri": "neo4j://db.example.com"}
    sessions_requirements(Settings(**self_managed, gds_session_location="gcp/europe-west1"))
    with pytest.raises(ConfigError, match="GDS_SESSION_LOCATION must be provider/region"):
        sessions_requirements(Settings(**self_managed, gds_session_location="europe"))


def test_unknown_mode_is_a_setting_error():
    with pytest.raises(ValueError, match="(?i)gds_mode"):  # GDS_MODE, its env name
        Settings(gds_mode="cloud")


def test_projection_names_unique_per_call_and_process():
    names = {unique_name("retag-general") for _ in range(3)}
    assert len(names) == 3
    code = "from neo4j_retag.index.gds import unique_name; print(unique_name('retag-general'))"
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True).stdout.strip()
    assert other.startswith("retag-general-") and other not in names


def test_sessions_path_calls_the_client_api_as_declared(monkeypatch):
    """No Aura account here: every client call of the sessions path is bound against the real
    signatures of graphdatascience's session classes, and shaped results flow back."""
    import inspect
    from types import SimpleNamespace

    import pandas as pd
    from graphdatascience.procedure_surface.arrow.catalog.catalog_arrow_endpoints import (
        CatalogArrowEndpoints,
    )
    from graphdatascience.procedure_surface.arrow.catalog.projection_arrow_endpoints import (
        ProjectArrowEndpoints,
    )
    from graphdatascience.procedure_surface.arrow.community.leiden_arrow_endpoints import (
        LeidenArrowEndpoints,
    )
    from graphdatascience.session import GdsSessions

    calls = []

    def checked(real, result):
        def call(*args, **kwargs):
            inspect.signature(real).bind(None, *args, **kwargs)  # TypeError if misused
            calls.append((real.__name__, args, kwargs))
            return result
        return call

    projected = (SimpleNamespace(name=lambda: "g"), SimpleNamespace(relationship_count=3))
    stream = pd.DataFrame({"nodeId": [10, 11], "communityId": [1, 1],
                           "intermediateCommunityIds": [[5, 1], [6, 1]]})
    client = SimpleNamespace(
        graph=SimpleNamespace(project=SimpleNamespace(
            cypher=checked(ProjectArrowEndpoints.cypher, projected)),
            drop=checked(CatalogArrowEndpoints.drop, [])),
        leiden=SimpleNamespace(stream=checked(LeidenArrowEndpoints.stream, stream),
                               write=checked(LeidenArrowEndpoints.write, None)),
        close=lambda: None)

    class FakeSessions:
        def __init__(self, credentials):
            calls.append(("credentials", credentials))

        get_or_create = staticmethod(checked(GdsSessions.get_or_create, client))

    monkeypatch.setattr("graphdatascience.session.GdsSessions", FakeSessions)
    monkeypatch.setattr("atexit.register", lambda fn: None)
    graph = SimpleNamespace(
        cypher=lambda name: f"// {name}",
        run=lambda name, **p: [{"id": i, "key": f"k{i}"} for i in p["ids"]])
    gds = Gds(graph, Settings(**FULL))  # type: ignore[arg-type]
    g, rels = gds.project("retag-general-x", ["Entity"])
    assert rels == 3
    assert gds.leiden_stream(g, ["Entity"], intermediate=True) == {"k10": [5, 1], "k11": [6, 1]}
    gds.leiden_write(g, ["Entity"], "communities")
    gds.project_keys("retag-split-x", ["a", "b"])
    gds.drop("retag-general-x")
    names = [c[0] for c in calls]
    assert names == ["credentials", "get_or_create", "cypher", "stream", "write", "cypher",
                     "drop"]
    creds = calls[0][1]
    assert (creds.client_id, creds.client_secret) == ("id", "secret")
    assert calls[1][2]["db_connection"].aura_instance_id == "abcd1234"
    assert calls[2][1][1] == "// index/gds_project_remote"


def test_plugin_mode_without_the_plugin_is_one_line(monkeypatch):
    from types import SimpleNamespace

    from graphdatascience.error.gds_not_installed import GdsNotFound

    def no_gds(*args, **kwargs):
        raise GdsNotFound("The Graph Data Science library is not correctly installed")

    monkeypatch.setattr("graphdatascience.GraphDataScience", no_gds)
    graph = SimpleNamespace(driver=None, database="neo4j")
    gds = Gds(graph, Settings(neo4j_password="pw"))  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="no Graph Data Science plugin.*GDS_MODE=sessions"):
        gds.client  # noqa: B018 - connecting is what fails
