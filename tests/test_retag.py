from neo4j_retag.retag import bm25_rank, lucene_query


def test_lucene_query_escapes_everything():
    q = lucene_query('What AND "who" (NOT) a:b/c -x +y && || ! {} [] ^ ~ * ? \\', "kw")
    assert " AND " not in q and " NOT " not in q
    for ch in ['"', "(", ")", ":", "/", "{", "}", "[", "]", "^", "~", "*", "?", "!"]:
        assert q.count(ch) == q.count("\\" + ch), ch
    assert lucene_query("   ") == ""


def test_bm25_python_ranking():
    reports = [{"id": 1, "title": "Ghosts", "full_content": "spirits visit Scrooge"},
               {"id": 2, "title": "Money", "full_content": "business and debt"},
               {"id": 3, "title": "Family", "full_content": "a dinner at home"}]
    ranked = bm25_rank(reports, "which spirits?", ["ghosts"], 5)
    assert [r["id"] for r in ranked] == [1]
