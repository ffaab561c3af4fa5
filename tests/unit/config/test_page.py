"""docs/configuration.md's rows are the settings' descriptions: every setting in one row, the
ones a deployment sets first, the page's prose kept; the test fails when they differ."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from neo4j_retag.cli import main
from neo4j_retag.config import FLAT, flat_name
from neo4j_retag.config.page import BEGIN, END, YOU_SET, rewrite, tables
from neo4j_retag.query import SETTINGS

PAGE = Path(__file__).resolve().parents[3] / "docs" / "configuration.md"
EVERY = {*(n.upper() for n in FLAT), *(flat_name(f).upper() for g in SETTINGS
                                       for f in g.model_fields.values())}


def test_the_page_is_written_from_the_descriptions():
    text = PAGE.read_text()
    assert rewrite(text, SETTINGS) == text, (
        "docs/configuration.md differs from the settings' descriptions: run "
        "`.venv/bin/neo4j-retag config --write-page docs/configuration.md`")


def test_every_setting_has_one_row_described_the_ones_you_set_first():
    rows = [line for line in tables(SETTINGS).splitlines() if line.startswith("| `")]
    names = [line.split("`")[1] for line in rows]
    assert sorted(names) == sorted(EVERY)  # each once, none left out
    assert tuple(names[:len(YOU_SET)]) == YOU_SET and 14 <= len(YOU_SET) <= 18
    assert all(not line.endswith("|  |") for line in rows), "a setting without a description"


def test_the_prose_stays_and_the_command_rewrites_a_stale_page(tmp_path):
    stale = tmp_path / "configuration.md"
    prose = PAGE.read_text()
    head, tail = prose[:prose.index(BEGIN)], prose[prose.index(END) + len(END):]
    stale.write_text(f"{head}{BEGIN}\n| `OLD_ROW` | 1 | gone |\n{END}{tail}")
    out = CliRunner().invoke(main, ["config", "--write-page", str(stale)])
    assert out.exit_code == 0, out.output
    assert stale.read_text() == prose and "## Where Graph Data Science runs" in prose
