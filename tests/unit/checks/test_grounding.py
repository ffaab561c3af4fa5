"""Report findings held to their context (llm/grounding.py, CommunityReport.grounded)."""

from neo4j_retag.checks.grounding import FindingCheck, names
from neo4j_retag.community_report import CommunityReport

CONTEXT = """-----Entities-----
id,entity,description,degree
0,JACOB MARLEY,"Scrooge's dead business partner, who returns as a ghost bound in chains",4
1,EBENEZER SCROOGE,a cold and miserly money-lender of London,12
2,BOB CRATCHIT,"Scrooge's underpaid clerk, father of Tiny Tim",5
-----Relationships-----
id,source,target,description,combined_degree
0,JACOB MARLEY,EBENEZER SCROOGE,Marley's ghost warns Scrooge to change his miserly ways,16
"""


def report(*findings: tuple[str, str]) -> CommunityReport:
    return CommunityReport(title="Marley and Scrooge", summary="About the partners.",
                           findings=[{"summary": s, "explanation": e} for s, e in findings])


def test_names_are_capitalised_words_inside_sentences_not_quotes_or_function_words():
    text = ('Marley was once a partner of Ebenezer Scrooge. However, "Merry Christmas" '
            'rang out; Belle left. The Cratchits ate goose [Data: Entities (2)].')
    # the first word of a sentence is no name; quoted words and function words neither
    assert names(text) == {"ebenezer", "scrooge", "cratchits"}


def test_grounded_finding_is_kept_and_an_invented_one_dropped_with_its_reason():
    check = FindingCheck(CONTEXT)
    kept, dropped = report(
        ("Marley's warning", "Jacob Marley, Scrooge's dead partner, returns as a ghost in "
                             "chains and warns Scrooge about his miserly ways."),
        ("Marley in fiction", "The partner was a sailor from Robinson Crusoe who sailed "
                              "around Cape Horn."),
    ).grounded(check)
    assert [f.summary for f in kept.findings] == ["Marley's warning"]
    assert len(dropped) == 1 and dropped[0].startswith("Marley in fiction (")
    assert "names not in it: cape, crusoe, horn, robinson" in dropped[0]


def test_a_finding_about_nothing_in_the_context_is_dropped_without_any_name():
    kept, dropped = report(("Weather", "heavy rainfall flooded valleys across distant "
                                       "provinces during autumn harvests")).grounded(
        FindingCheck(CONTEXT))
    assert kept.findings == [] and "0% of its words" in dropped[0]


def test_plural_names_short_findings_and_interpretation_are_kept():
    check = FindingCheck(CONTEXT)
    kept, dropped = report(
        ("The Cratchits", "Bob Cratchit's family: the Cratchits are poor."),  # plural name
        ("Short", "Marley returns."),  # too few content words to judge by their share
        # interpretive words beside grounded ones (a capable model's findings): kept
        ("Redemption", "Marley's ghost serves as a catalyst for Scrooge's redemption from "
                       "his miserly ways as a money-lender."),
    ).grounded(check)
    assert dropped == [] and len(kept.findings) == 3


def test_the_threshold_is_a_parameter_and_summaries_are_not_searched_for_names():
    finding = ("Scrooge's Transformation Through Spirits",  # a title: capitalised throughout
               "Marley warns Scrooge, a miserly money-lender, about ghosts and chains.")
    assert report(finding).grounded(FindingCheck(CONTEXT))[1] == []
    assert report(finding).grounded(FindingCheck(CONTEXT, min_share=1.0))[1] != []
