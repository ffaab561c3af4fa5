import pytest

from neo4j_retag.llm import parse_json


@pytest.mark.parametrize("text", [
    '```json\n{"a": 1}\n```',
    'Sure! Here it is: {"a": 1} hope that helps',
    '{"a": 1,}',
    '{"a": 1, "b": [1, 2',
])
def test_tolerant_json(text):
    assert parse_json(text)["a"] == 1


def test_no_json_raises():
    with pytest.raises(ValueError):
        parse_json("I cannot do that.")


def test_bound_schema_adds_limits_everywhere():
    from neo4j_retag.index.extract import GraphClaimsExtraction
    from neo4j_retag.llm import bound_schema
    s = bound_schema(GraphClaimsExtraction.model_json_schema(), 5, 100)
    assert s["properties"]["entities"]["maxItems"] == 5
    assert s["$defs"]["ExtractedEntity"]["properties"]["name"]["maxLength"] == 100


def test_bound_schema_requires_every_property():
    from neo4j_retag.llm import bound_schema
    from neo4j_retag.query.map_reduce import MapResult
    s = bound_schema(MapResult.model_json_schema(), 5, 100)
    assert s["required"] == ["points"] and s["properties"]["points"]["minItems"] == 1
    assert s["$defs"]["MapPoint"]["required"] == ["description", "score", "reports"]
