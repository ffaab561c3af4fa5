from neo4j_retag.query.retrieval import lucene_query


def test_lucene_query_escapes_everything():
    q = lucene_query('What AND "who" (NOT) a:b/c -x +y && || ! {} [] ^ ~ * ? \\', "kw")
    assert " AND " not in q and " NOT " not in q
    for ch in ['"', "(", ")", ":", "/", "{", "}", "[", "]", "^", "~", "*", "?", "!"]:
        assert q.count(ch) == q.count("\\" + ch), ch
    assert lucene_query("   ") == ""

