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
    with pytest.raises(ValueError, match="gds_mode"):
        Settings(gds_mode="cloud")


def test_projection_names_unique_per_call_and_process():
    names = {unique_name("retag-general") for _ in range(3)}
    assert len(names) == 3
    code = "from neo4j_retag.index.gds import unique_name; print(unique_name('retag-general'))"
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True).stdout.strip()
    assert other.startswith("retag-general-") and other not in names
