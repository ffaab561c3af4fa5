from neo4j_retag.model import ReportRow
from neo4j_retag.query.map_reduce import batches


def test_batches_fit_budget_and_cover_all():
    reports = [ReportRow(id=i, title=f"R{i}", full_content="word " * 200) for i in range(20)]
    groups = batches(reports, 1000, seed=1, enc="cl100k_base")
    assert sorted(r.id for g in groups for r in g) == list(range(20))
    assert len(groups) > 3
    # fixed seed -> same shuffle
    assert groups == batches(reports, 1000, seed=1, enc="cl100k_base")


def test_oversized_report_truncated_alone():
    groups = batches([ReportRow(id=1, title="big", full_content="word " * 5000)], 1000, 1,
                     "cl100k_base")
    assert len(groups) == 1
