"""The community report's one shape: lenient JSON, GraphRAG's markdown, its graph props."""

import json

from neo4j_retag.community_report import CommunityReport, report_props


def test_report_json_is_lenient_and_renders_markdown():
    r = CommunityReport.model_validate({"title": "T", "rating": "11", "findings": ["a", {
        "summary": "b", "explanation": "c"}]})
    assert r.rating == 10.0 and [f.summary for f in r.findings] == ["a", "b"]
    assert r.markdown().startswith("# T") and "## b" in r.markdown()


def test_report_props_store_the_markdown_and_the_findings_as_json():
    r = CommunityReport(title="T", summary="S", rating=7, findings=[{"summary": "f"}])
    props = report_props(r)
    assert props["full_content"] == r.markdown() and props["rank"] == 7.0
    assert json.loads(props["findings"]) == [{"summary": "f", "explanation": ""}]
    assert props["report_status"] == "ok" and props["report_error"] is None
