"""`serve --ssl-certfile` and `--ssl-keyfile` go together (a usage error, exit 2, before
anything starts)."""

from click.testing import CliRunner

from neo4j_retag.cli import main


def test_tls_options_go_together(tmp_path):
    cert = tmp_path / "cert.pem"
    cert.write_text("x")
    out = CliRunner().invoke(main, ["serve", "--ssl-certfile", str(cert)])
    assert out.exit_code == 2 and "--ssl-certfile and --ssl-keyfile go together" in out.output
