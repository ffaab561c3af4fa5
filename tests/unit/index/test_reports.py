"""Report contexts (Edge et al. appendix: ranked by combined degree, sub-reports substituted)."""

from neo4j_retag.community_report import CommunityReport
from neo4j_retag.index.reports import local_context, mixed_context
from neo4j_retag.tokens import count


def elements(n: int, desc_words: int = 30) -> dict:
    ents = [{"key": f"e{i}", "name": f"E{i}", "description": "word " * desc_words,
             "degree": n - i} for i in range(n)]
    rels = [{"source_key": f"e{i}", "target_key": f"e{i + 1}", "source": f"E{i}",
             "target": f"E{i + 1}", "description": f"rel {i}",
             "combined_degree": 2 * n - 2 * i} for i in range(n - 1)]
    return {"entities": ents, "relationships": rels,
            "claims": [{"key": "e0", "entity": "E0", "type": "t", "status": "TRUE",
                        "description": "a claim"}]}


def test_local_context_ranks_by_combined_degree_and_fits():
    ctx, overflow = local_context(elements(50), 600, "cl100k_base")
    assert overflow and count(ctx) <= 600
    rel_lines = ctx.split("-----Relationships-----\n")[1].splitlines()[1:]
    assert rel_lines[0].split(",")[1] == "E0"  # highest combined degree first
    assert "a claim" in ctx


def test_small_community_fits_whole():
    ctx, overflow = local_context(elements(3), 8000, "cl100k_base")
    assert not overflow and all(f",E{i}," in ctx for i in range(3))


def test_parent_substitutes_sub_reports_biggest_first():
    el = elements(60)
    children = [{"id": 7, "title": "Big", "full_content": "big report", "size": 40,
                 "members": [f"e{i}" for i in range(40)]},
                {"id": 8, "title": "Small", "full_content": "small report", "size": 20,
                 "members": [f"e{i}" for i in range(40, 60)]}]
    ctx = mixed_context(el, children, 900, "cl100k_base")
    assert "-----Reports-----" in ctx and "big report" in ctx
    assert count(ctx) <= 900


def test_report_batches_bound_communities_and_entities(monkeypatch):
    from neo4j_retag.index import reports
    monkeypatch.setattr(reports, "REPORT_BATCH", 3)
    monkeypatch.setattr(reports, "REPORT_BATCH_ENTITIES", 10)
    rows = [{"id": i, "size": s} for i, s in enumerate([2, 2, 2, 2, 9, 12, 1, None])]
    # at most 3 communities; a batch closes before it would pass 10 entities; a community
    # larger than the limit goes alone
    assert reports._batches(rows) == [[0, 1, 2], [3], [4], [5], [6, 7]]
    assert reports._batches([]) == []


def test_findings_citations_held_to_the_report_context():
    ctx, _ = local_context(elements(3), 8000, "cl100k_base")
    r = CommunityReport.model_validate({
        "title": "T", "summary": "E0 leads [Data: Entities (0, 9)].",
        "findings": [{"summary": "s", "explanation": "E1 follows E0 [Data: Relationships (0); "
                      "Reports (4)]. It is covered in [Data: Claims (7)]."}]})
    fixed, invalid = r.checked_citations(ctx)
    assert fixed.summary == "E0 leads [Data: Entities (0)]."
    assert fixed.findings[0].explanation == ("E1 follows E0 [Data: Relationships (0)]. "
                                             "It is covered.")
    assert invalid == ["Entities 9", "Reports 4", "Claims 7"]
