"""An id that names nothing is a 404 over HTTP (was a 400, as for a malformed input), and
still a one-line error (exit 1) in the CLI."""

import json

import pytest

from neo4j_retag.api import corpus
from neo4j_retag.api.operations import InvalidRequest
from neo4j_retag.errors import InputError, NotFoundError
from neo4j_retag.serve.replies import error_response


class EmptyGraph:
    def run(self, name, **params):
        return []


def test_unknown_report_and_text_unit_are_not_found():
    with pytest.raises(NotFoundError, match="no community report 7"):
        corpus.get_report(EmptyGraph(), corpus.ReportRef(report_id=7))
    with pytest.raises(NotFoundError, match="no text unit abc"):
        corpus.get_text_unit(EmptyGraph(), corpus.TextUnitRef(unit_id="abc"))


def test_not_found_is_404_and_other_input_errors_stay_400():
    r = error_response(NotFoundError("no job x"))
    assert r.status_code == 404 and json.loads(r.body) == {"error": "no job x"}
    assert error_response(InputError("unknown method 'x'")).status_code == 400
    assert error_response(InvalidRequest("k: too big")).status_code == 422  # a model's refusal
    assert issubclass(NotFoundError, InputError)  # the CLI's one-line exit 1 unchanged
