"""Report findings the context does not hold are dropped before a report is stored, counted in
the ingest result, kept on the community for Browser and counted by `stats`."""

import json

import pytest

from neo4j_retag.ops.stats import collect
from tests.conftest import corpus, ingest
from tests.llm_double import default_report

pytestmark = pytest.mark.integration

INVENTED = {"summary": "A sea voyage", "explanation": "The partner sailed with Robinson Crusoe "
            "around Cape Horn aboard a whaling frigate."}


def test_invented_findings_are_dropped_counted_and_kept_aside(settings, graph, double,
                                                              tmp_path):
    def report(body):  # the double's grounded report, plus one invented finding
        out = json.loads(default_report(body))
        out["findings"].append(INVENTED)
        return json.dumps(out)

    double.script["report"] = report
    s = settings.model_copy(update={"chunk_size": 120, "chunk_overlap": 20})
    result = ingest(s, graph, [corpus(tmp_path, 2)])
    llm_reports = double.count("report")
    assert llm_reports > 0 and result.reports.ok == llm_reports
    assert result.reports.unsupported_findings == llm_reports  # one per report the model wrote
    rows = graph.driver.execute_query(
        "MATCH (c:Community) WHERE c.report_source = 'llm' "
        "RETURN c.findings AS findings, c.full_content AS text, "
        "c.unsupported_findings AS dropped").records
    assert rows
    for r in rows:
        assert "Crusoe" not in r["text"] and "Crusoe" not in r["findings"]
        assert json.loads(r["findings"])  # the grounded findings stay
        assert len(r["dropped"]) == 1 and r["dropped"][0].startswith("A sea voyage (")
        assert "names not in it:" in r["dropped"][0]
    assert collect(graph)["unsupported_findings"] == llm_reports
