"""The README and docs/ hold together: every relative link reaches a file (and a heading, for
a link into a page), no page speaks of issue numbers, every setting is documented, and the
README's test command is the one CI runs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic_settings import BaseSettings

import neo4j_retag.config as config

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# [text](target) and ![alt](target); a target ends at the first space or ')'
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip()).lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    text = FENCE.sub("", page.read_text())
    return {_slug(m) for m in re.findall(r"^#{1,6} (.+)$", text, re.M)}


def _links(page: Path) -> list[str]:
    return LINK.findall(FENCE.sub("", page.read_text()))


def test_the_docs_pages_exist_and_the_readme_links_every_one():
    linked = {t.split("#")[0] for t in _links(ROOT / "README.md")}
    docs = {f"docs/{p.name}" for p in PAGES[1:]}
    assert {"docs/methods.md", "docs/lazy.md", "docs/serve.md", "docs/configuration.md",
            "docs/faults.md", "docs/benchmarks.md", "docs/architecture.md"} <= docs
    assert docs - linked == set()
    assert len((ROOT / "README.md").read_text().splitlines()) <= 300


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_relative_link_resolves(page: Path):
    broken = []
    for target in _links(page):
        if re.match(r"[a-z]+:", target):  # https:, mailto: ...
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            broken.append(f"{target}: no such file")
        elif anchor and file.suffix == ".md" and anchor not in _anchors(file):
            broken.append(f"{target}: no such heading")
    assert broken == []


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_no_page_speaks_of_issue_numbers(page: Path):
    # a number after "issue" (the word alone is prose: "issues of poverty" quoted from a report)
    found = re.findall(r"(?i)\bissues?\W{0,3}(?:no\.?\s*)?\d+|#\d+", page.read_text())
    assert found == []


def _settings_classes(cls: type) -> list[type]:
    subs = cls.__subclasses__()
    return subs + [s for sub in subs for s in _settings_classes(sub)]


def test_every_setting_is_documented_in_configuration():
    documented = (ROOT / "docs" / "configuration.md").read_text()
    names = {str(f.validation_alias) for cls in _settings_classes(BaseSettings)
             if cls.__module__.startswith(config.__name__)
             for f in cls.model_fields.values() if f.validation_alias}
    assert len(names) > 50  # the settings were found at all
    assert sorted(n for n in names if f"`{n}`" not in documented) == []


def test_the_readme_test_command_is_the_one_ci_runs():
    readme = (ROOT / "README.md").read_text()
    section = readme.split("\n## Tests", 1)[1].split("\n## ", 1)[0]
    command = re.search(r"```bash\n(.+?)\n```", section, re.S)
    assert command and command.group(1) == "bash scripts/test.sh"
    assert "bash scripts/test.sh" in (ROOT / ".ci" / "run").read_text()
