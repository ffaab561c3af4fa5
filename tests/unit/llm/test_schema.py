from neo4j_retag.llm import bound_schema


def test_bound_schema_adds_limits_everywhere():
    from neo4j_retag.index.extract_records import GraphClaimsExtraction
    s = bound_schema(GraphClaimsExtraction.model_json_schema(), 5, 100)
    assert s["properties"]["entities"]["maxItems"] == 5
    assert s["$defs"]["ExtractedEntity"]["properties"]["name"]["maxLength"] == 100


def test_bound_schema_requires_every_property():
    from neo4j_retag.query.answer.map_reduce import MapResult
    s = bound_schema(MapResult.model_json_schema(), 5, 100)
    assert s["required"] == ["points"] and s["properties"]["points"]["minItems"] == 1
    assert s["$defs"]["MapPoint"]["required"] == ["description", "score", "reports"]
