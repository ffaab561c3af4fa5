// Topic-scope communities: GraphRAG has no such table, so export only counts them.
MATCH (c:Community) WHERE c.scope <> 'general'
RETURN count(c) AS n
