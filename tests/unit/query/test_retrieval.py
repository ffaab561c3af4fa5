from neo4j_retag.query.retrieval import lucene_query


def test_lucene_query_escapes_everything():
    q = lucene_query('What AND "who" (NOT) a:b/c -x +y && || ! {} [] ^ ~ * ? \\', "kw")
    assert " AND " not in q and " NOT " not in q
    for ch in ['"', "(", ")", ":", "/", "{", "}", "[", "]", "^", "~", "*", "?", "!"]:
        assert q.count(ch) == q.count("\\" + ch), ch
    assert lucene_query("   ") == ""



def test_reciprocal_rank_fusion_rewards_agreement_and_keeps_single_lists_in_order():
    from neo4j_retag.model import ReportRow
    from neo4j_retag.query.retrieval import fuse_reports

    def rows(*ids):
        return [ReportRow(id=i) for i in ids]
    fused = fuse_reports(rows(1, 2, 3), rows(3, 4, 1))
    # 1: 1/61 + 1/63; 3: 1/63 + 1/61 (a tie: first seen first); then 2 (1/62) over 4 (1/62)
    assert [r.id for r in fused] == [1, 3, 2, 4]
    assert fused[0].score == round(1 / 61 + 1 / 63, 6)
    assert [r.id for r in fuse_reports(rows(5, 6), [])] == [5, 6]
    assert [r.id for r in fuse_reports([], rows(9, 8))] == [9, 8]


def test_one_fuser_for_records_keeps_the_first_list_s_copy():
    from neo4j_retag.query.retrieval import fuse

    bm25 = [{"id": "x", "via": "bm25"}, {"id": "y", "via": "bm25"}]
    near = [{"id": "y", "via": "vector"}, {"id": "z", "via": "vector"}]
    fused = fuse([bm25, near], lambda hit: hit["id"])
    assert [(h["id"], h["via"]) for h, _ in fused] == [("y", "bm25"), ("x", "bm25"),
                                                        ("z", "vector")]
    assert fused[0][1] == round(1 / 62 + 1 / 61, 6)
