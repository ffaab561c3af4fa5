"""The table of operations: every route's path fields are its request's fields, names and
routes are unique, a request outside its bounds is one line naming the bound, the CLI's
context refuses what needs a `serve` process."""

import re

import pytest

from neo4j_retag.api import corpus
from neo4j_retag.api.documents import IngestRequest
from neo4j_retag.api.operations import OPERATIONS, InvalidRequest, Local, parse
from neo4j_retag.errors import InputError


def test_routes_are_unique_and_their_path_fields_are_request_fields():
    routes = [op.http for op in OPERATIONS.values()]
    assert len(set(routes)) == len(routes) and len(OPERATIONS) >= 9
    for op in OPERATIONS.values():
        assert op.method in ("GET", "POST") and op.path.startswith("/"), op.http
        assert set(re.findall(r"{(\w+)}", op.path)) <= set(op.request.model_fields), op.http
        assert op.writes == (op.method == "POST"), op.name  # every write is a POST here
        assert op.summary.endswith(".") and "\n" not in op.summary


@pytest.mark.parametrize("raw,line", [
    ({"query": "Scrooge", "k": 51}, "k: Input should be less than or equal to 50"),
    ({"query": "Scrooge", "k": "0"}, "k: Input should be greater than or equal to 1"),
    ({"k": 3, "query": None}, "query: Input should be a valid string"),
    ({}, "query: Field required"),
])
def test_a_request_outside_its_bounds_is_one_line_naming_the_field(raw, line):
    with pytest.raises(InvalidRequest) as err:
        parse(OPERATIONS["search_reports"], raw)
    assert str(err.value) == line and isinstance(err.value, InputError)


@pytest.mark.parametrize("name,raw,line", [
    ("search_reports", {"query": "Scrooge", "kk": 3}, "kk: Extra inputs are not permitted"),
    ("list_documents", {"limit": 5}, "limit: Extra inputs are not permitted"),
    ("get_report", {"report_id": 1, "id": 1}, "id: Extra inputs are not permitted"),
])
def test_an_unknown_field_is_refused_by_name(name, raw, line):
    with pytest.raises(InvalidRequest) as err:
        parse(OPERATIONS[name], raw)
    assert str(err.value) == line
    # every request model refuses one: a new operation's too
    assert all(op.request.model_config.get("extra") == "forbid" for op in OPERATIONS.values())


def test_query_strings_are_read_as_their_fields_types():
    req = parse(OPERATIONS["search_reports"], {"query": "Marley", "k": "7"})
    assert req == corpus.SearchReports(query="Marley", k=7)
    assert parse(OPERATIONS["get_report"], {"report_id": "12"}).report_id == 12


class NoGraph:
    def run(self, name, **params):
        raise AssertionError(f"no query expected, got {name}")


def test_a_query_of_no_searchable_word_finds_nothing_without_asking_the_graph():
    assert corpus.search_reports(NoGraph(), corpus.SearchReports(query="   ")).reports == []


def test_findings_are_read_as_stored_json_or_a_list_or_plain_text():
    assert corpus._findings('[{"summary": "a", "explanation": "b"}]') == [
        corpus.Finding(summary="a", explanation="b")]
    assert corpus._findings([{"summary": "c"}, "junk"]) == [corpus.Finding(summary="c")]
    assert corpus._findings("not json") == [corpus.Finding(summary="not json")]
    assert corpus._findings(None) == []


def test_the_cli_context_has_no_jobs_and_no_gate():
    local = Local(NoGraph())
    with pytest.raises(InputError, match="neo4j-retag ingest"):
        OPERATIONS["ingest"].run(local, IngestRequest(paths=["a.txt"]))
    with pytest.raises(InputError, match="no job x"):
        OPERATIONS["get_job"].run(local, parse(OPERATIONS["get_job"], {"job_id": "x"}))
    assert local.serve_state() is None


@pytest.mark.parametrize("cypher,model", [
    ("ops/stats", "stats.Stats"), ("serve/report", "corpus.Report"),
    ("serve/search_reports", "corpus.ReportHit"), ("serve/text_unit", "corpus.TextUnit"),
    ("index/list_documents", "documents.Document"), ("query/scope_levels", "stats.Level"),
    ("index/topic_counts", "stats.TopicSubgraph"), ("ops/usage", "stats.StageUsage"),
    ("ops/estimate", "stats.StageEstimate"),
])
def test_every_column_a_query_returns_is_a_field_of_its_response_model(cypher, model):
    """A column added to the query without its field would be dropped from every answer
    without a word (the models ignore what they do not name)."""
    import importlib

    from neo4j_retag.config import resource_dir
    text = (resource_dir("cypher") / f"{cypher}.cypher").read_text()
    body = text[text.rindex("RETURN"):]
    columns = set(re.findall(r"\bAS\s+(\w+)", body))
    module, name = model.split(".")
    fields = set(getattr(importlib.import_module(f"neo4j_retag.api.{module}"),
                         name).model_fields)
    assert columns and columns <= fields, columns - fields
