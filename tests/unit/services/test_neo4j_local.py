"""The local Neo4j server's set-up without a JVM."""

from neo4j_retag.services import neo4j_local


def test_the_initial_password_never_reads_as_an_option(monkeypatch):
    # secrets.token_urlsafe starts with "-" once in 64: neo4j-admin took it for an option
    drawn = iter(["-Rk2", "--x", "aB-3"])
    monkeypatch.setattr(neo4j_local.secrets, "token_urlsafe", lambda n: next(drawn))
    assert neo4j_local.new_password() == "aB-3"
