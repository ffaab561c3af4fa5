from neo4j_retag.query.retrieval import lucene_query


def test_lucene_query_escapes_everything():
    q = lucene_query('What AND "who" (NOT) a:b/c -x +y && || ! {} [] ^ ~ * ? \\', "kw")
    assert " AND " not in q and " NOT " not in q
    for ch in ['"', "(", ")", ":", "/", "{", "}", "[", "]", "^", "~", "*", "?", "!"]:
        assert q.count(ch) == q.count("\\" + ch), ch
    assert lucene_query("   ") == ""



def test_reciprocal_rank_fusion_rewards_agreement_and_keeps_single_lists_in_order():
    from neo4j_retag.model import ReportRow
    from neo4j_retag.query.retrieval import fuse

    def rows(*ids):
        return [ReportRow(id=i) for i in ids]
    fused = fuse(rows(1, 2, 3), rows(3, 4, 1))
    assert [r.id for r in fused] == [1, 3, 2, 4]  # 1: 1/61 + 1/63; 3: 1/63 + 1/61 (tie: id)
    assert fused[0].score == round(1 / 61 + 1 / 63, 6)
    assert [r.id for r in fuse(rows(5, 6), [])] == [5, 6]
    assert [r.id for r in fuse([], rows(9, 8))] == [9, 8]
