"""Issue 21 kind 3: one parser for every citation variant GraphRAG-style models write, every
id checked, invalid ones reported, the text left grammatical."""

import pytest

from neo4j_retag.citations import check, parse, table_ids, without_references

VALID = {"Reports": {5, 7, 12, 13, 90}, "Entities": {4}}


@pytest.mark.parametrize("text, out, cited, invalid", [
    # two record types, no space before the bracket, semicolon between groups
    ("Vale Trust funds the pier [Data: Reports(12); Entities (4)].",
     "Vale Trust funds the pier [Data: Reports (12); Entities (4)].",
     [("Reports", 12), ("Entities", 4)], []),
    # a repeated group: both ids valid, one marker
    ("The ferry stops [Data: Reports (5), Reports (90)].",
     "The ferry stops [Data: Reports (5, 90)].", [("Reports", 5), ("Reports", 90)], []),
    # ids separated by a semicolon: both kept (the old parser dropped the valid 7)
    ("Tides matter [Data: Reports (7; 13)].", "Tides matter [Data: Reports (7, 13)].",
     [("Reports", 7), ("Reports", 13)], []),
    # +more is no id; a uuid that is not ours is invalid; a human id "#5" is report 5
    ("Fish prices rose [Data: Reports (#5, 3f2a1b2c-1111-2222-3333-444455556666, +more)].",
     "Fish prices rose [Data: Reports (5)].", [("Reports", 5)],
     ["Reports 3f2a1b2c-1111-2222-3333-444455556666"]),
    # every id invalid: the marker goes, and the preposition it left dangling with it
    ("The regatta is described in [Data: Reports (99)].", "The regatta is described.", [],
     ["Reports 99"]),
    ("The mayor resigned (see [Data: Reports (98, 99)]), then returned.",
     "The mayor resigned, then returned.", [], ["Reports 98", "Reports 99"]),
    # a record type the context did not have; singular spelling; lower case
    ("Storms [data: relationship (3)] and [Data: entity (4)] hit.",
     "Storms and [Data: Entities (4)] hit.", [("Entities", 4)], ["Relationships 3"]),
    # no Data: label
    ("Nets [Reports (13)] dried.", "Nets [Data: Reports (13)] dried.", [("Reports", 13)], []),
])
def test_every_variant_parsed_and_checked(text, out, cited, invalid):
    c = check(text, VALID)
    assert (c.text, c.cited, c.invalid) == (out, cited, invalid)


def test_aliases_map_a_uuid_to_our_id():
    uid = "3F2A1B2C-1111-2222-3333-444455556666"
    c = check(f"Gulls [Data: Reports ({uid})].", {"Reports": {uid.lower(): 12}})
    assert c.text == "Gulls [Data: Reports (12)]." and c.ids("Reports") == [12]


def test_text_without_markers_is_untouched():
    text = "Plain text (with brackets) [not a citation] stays  as written ."
    assert check(text, VALID).text == text and parse(text) == []


def test_table_ids_of_a_report_context():
    ctx = ("-----Entities-----\nid,entity,description,degree\n0,A,x,1\n1,B,\"y, z\",2\n"
           "-----Relationships-----\nid,source,target,description,combined_degree\n0,A,B,r,3\n"
           "-----Reports-----\nid,title,content\n17,Sub,\"text\n# more\"\n")
    assert table_ids(ctx) == {"Entities": {0, 1}, "Relationships": {0}, "Reports": {17}}


def test_without_references_keeps_the_text_tidy():
    assert without_references("A harbour town [Data: Reports (2, 7)]. Festivals, as described "
                              "in [Data: Reports (9); Entities (4)].") == \
        "A harbour town. Festivals, as described."
    assert without_references("No reference here.") == "No reference here."
