
from neo4j_retag.index.communities import Community, carry_down, nested_levels, tree, walk


def test_levels_reversed_and_repaired():
    # GDS: finest first. 'c' sits in fine community 2 with 'd' but Leiden put it in coarse 10
    raw = {"a": [1, 10], "b": [1, 10], "c": [2, 10], "d": [2, 20], "e": [2, 20],
           "f": [3, 20], "g": [3, 20]}
    levels = nested_levels(raw)
    assert len(levels) == 2
    root, fine = levels
    # fine community 2 (c, d, e) goes wholly to coarse 20, where most of it was
    assert root["c"] == root["d"] == root["e"] == 20
    assert root["a"] == root["b"] == 10
    assert fine["a"] == 1


def test_identical_levels_merged_and_empty():
    assert len(nested_levels({"a": [1, 5], "b": [2, 6]})) == 1
    assert nested_levels({}) == []


def test_carry_down_covers_every_level():
    roots = tree(nested_levels({"a": [1, 10], "b": [1, 10], "c": [3, 30]}))
    assert [r.members for r in roots] == [["a", "b"], ["c"]]
    roots[0].children = [Community(1, ["a"]), Community(1, ["b"])]
    roots[0].children[0].children = [Community(2, ["a"])]
    carry_down(roots)
    for level in (0, 1, 2):
        members = sorted(k for c in walk(roots) if c.level == level for k in c.members)
        assert members == ["a", "b", "c"]
    assert any(c.carried for c in walk(roots))
