"""Degenerate free text (checks.degenerate): each rule on its own, the quickstart's real SmolLM2
outputs never an answer, grounded answers kept; and the client asking again once with a
repetition penalty before the call fails as ``degenerate``."""

import pytest

from neo4j_retag.checks.degenerate import (
    check,
    content_words,
    degenerate,
    echoed_question,
    repeated_lines,
    repeated_ngram,
    ungrounded,
)
from neo4j_retag.llm import ReplyFault, Subject
from neo4j_retag.stages import Stage
from tests.llm_double import Reply
from tests.unit.llm.test_client import answers, run, settings_for

TEXT = Stage.DOCTOR  # a stage the double answers with its "text" handler
QUESTION = "What are the main themes of this corpus?"
# the sample corpus's four stories, as a map point context would hold them
CONTEXT = (
    "Millbrook Rovers beat Port Alder United to reach the county cup final; striker Amara "
    "Okafor scored both goals. Mayor Elena Varga asked the council to approve a plan to rebuild "
    "the old harbour with Northwind Works; the Fishermen's Cooperative opposes it. Lumen "
    "Analytics, the data company of Samir Haddad, opens a research lab in the old library. The "
    "Lantern Festival returned to the quayside, organised by the artist Helena Brandt.")
SUBJECT = Subject(QUESTION, CONTEXT)
# what the quickstart printed with SmolLM2-135M (issue 30)
QUICKSTART = {
    "lazy 1": "Transcultural and global communication",
    "lazy 2": "The power of storytelling",
    "global": "Data-Driven Decision Making",
    "retag": "\n".join(["The importance of the importance score in a dataset"] * 20),
    "retag near-copies": "\n".join(
        f"{i}. The importance of the importance score in a {w}" for i, w in enumerate(
            ["dataset", "data set", "dataset.", "data analysis", "dataset (2)", "dataset!"], 1)),
}
GROUNDED = [
    "The corpus follows one town, Millbrook. The harbour plan of mayor Elena Varga divides "
    "the council [Data: Reports (1)]; Millbrook Rovers reach the county cup final [Data: "
    "Reports (2)]; Lumen Analytics opens a research lab; the Lantern Festival returns.",
    "- Millbrook Rovers reached the county cup final [Data: Reports (1)]\n"
    "- The harbour plan divides the council [Data: Reports (2)]\n"
    "- Lumen Analytics opens a research lab [Data: Reports (3)]\n"
    "- The Lantern Festival returns to the quayside [Data: Reports (4)]",
    "Scrooge.",  # a one-word answer naming what the context holds
]


@pytest.mark.parametrize("name", QUICKSTART)
def test_the_quickstarts_outputs_are_never_an_answer(name):
    assert degenerate(QUICKSTART[name], SUBJECT), name


@pytest.mark.parametrize("text", GROUNDED)
def test_grounded_answers_pass(text):
    assert degenerate(text, Subject(QUESTION, CONTEXT + " Scrooge")) is None


def test_repeated_lines_under_sixty_percent_distinct():
    five = "\n".join(["- The plan.", "- The plan", "- the plan!", "- Cup final.", "- The plan."])
    assert "repeat another line" in repeated_lines(five).why
    assert repeated_lines("A.\nB.\nC.\nA.") is None  # fewer than 5 lines: judged as prose


def test_near_copies_of_one_line_with_tiny_variations():
    lines = "\n".join(f"* The harbour plan divides the council {n}" for n in "abcd")
    assert "near-copies" in repeated_lines(lines).why
    distinct = "\n".join(["* The harbour plan divides the council", "* Rovers reach the final",
                          "* A lab opens in the old library", "* The lanterns return"])
    assert repeated_lines(distinct) is None


def test_one_six_gram_over_a_third_of_the_words():
    loop = "The answer is " + "the harbour plan of the town " * 6 + "and more."
    assert "makes up over a third" in repeated_ngram(loop).why
    assert repeated_ngram(GROUNDED[0]) is None
    assert repeated_ngram("the harbour plan of the town " * 3) is None  # under 24 words


def test_the_question_echoed_back():
    assert echoed_question("What are the main themes of this corpus?", QUESTION)
    assert echoed_question("The main themes of this corpus.", QUESTION)
    assert echoed_question("Millbrook's harbour plan.", QUESTION) is None
    assert echoed_question("anything", "") is None


def test_ungrounded_counts_only_words_the_question_does_not_explain():
    assert "0 of its 2" in ungrounded("The power of storytelling", SUBJECT).why
    # a question word the context holds grounds the answer
    about = Subject("What did Scrooge do?", "Scrooge met three spirits on Christmas Eve.")
    assert ungrounded("Scrooge changed his ways after the visit.", about) is None
    assert ungrounded("Anything at all", Subject(QUESTION, "Tiny.")) is None  # too little
    assert ungrounded("Anything", Subject(QUESTION, "")) is None


def test_content_words_are_unicode_and_stemmed():
    assert content_words("Communities of Zürich's Bürger, the plans") == {
        "commun", "zürich", "bürger", "plan"}


def test_a_degenerate_answer_is_asked_again_once_with_a_penalty(tmp_path, double):
    double.script["text"] = answers(QUICKSTART["lazy 2"], GROUNDED[0])
    out, llm = run(settings_for(tmp_path, double),
                   lambda llm: llm.complete([{"role": "system", "content": "Answer."},
                                             {"role": "user", "content": QUESTION}],
                                            stage=TEXT, prose=True, subject=SUBJECT))
    assert out == GROUNDED[0] and llm.usage.faults == {"degenerate": 1}
    assert [b.get("frequency_penalty") for _, b in double.calls] == [None, 0.5]


def test_two_degenerate_answers_fail_the_call_and_are_never_cached(tmp_path, double):
    double.script["text"] = answers(Reply(QUICKSTART["retag"]))
    settings = settings_for(tmp_path, double, llm_max_retries=3)
    msgs = [{"role": "system", "content": "Answer."}, {"role": "user", "content": QUESTION}]
    with pytest.raises(ReplyFault) as err:
        run(settings, lambda llm: llm.complete(msgs, stage=TEXT, prose=True, subject=SUBJECT))
    assert err.value.reason == "degenerate" and "repeat another line" in str(err.value)
    assert double.count("text") == 2  # once again with the penalty, not LLM_MAX_RETRIES times
    double.script["text"] = answers(GROUNDED[0])
    out, _ = run(settings, lambda llm: llm.complete(msgs, stage=TEXT, prose=True,
                                                     subject=SUBJECT))
    assert out == GROUNDED[0] and double.count("text") == 3


@pytest.mark.parametrize("text", [
    'Answer: {"status": "REDACTED", "reason": "policy"}',
    'Answer: {"status": "REDACTED",}',  # a trailing comma: still JSON
    '```json\n{"status" : "REDACTED",}\n```',
])
def test_json_behind_a_lead_in_or_with_a_defect_is_no_prose(text):
    # issue 32 item 5: the JSON check ran before the lead-in was stripped
    from neo4j_retag.llm.answer_faults import not_prose
    assert "JSON value" in not_prose(text, "Answer the question.").why


@pytest.mark.parametrize("text", ["[Data: Reports (1, 2)]", "{Millbrook} is a town {x}", ""])
def test_markers_braces_and_empty_text_are_not_json(text):
    from neo4j_retag.llm.answer_faults import not_prose
    assert not_prose(text, "Answer the question.") is None


# issue 45: right answers the checks refused (scripted from the report)
FEES_Q = "What are the docking fees per berth?"
FEES_CONTEXT = ("The harbour office lists the docking fees: berth 4 costs 4.50 EUR per metre, "
                "berth 5 4.20 EUR, berth 6 4.00 EUR and berth 7 3.90 EUR per metre. The fees "
                "were raised in March.")
FEES = ("- Berth 4: 4.50 EUR per metre\n- Berth 5: 4.20 EUR per metre\n"
        "- Berth 6: 4.00 EUR per metre\n- Berth 7: 3.90 EUR per metre")


@pytest.mark.parametrize("question, text", [
    (FEES_Q, FEES),  # similar items, each with its own numbers: a list, not a loop
    (FEES_Q, FEES + "\n- Berth 8: 3.90 EUR per metre"),  # five lines: not "repeated" either
    (FEES_Q, " ".join(f"The fee for berth {n} is {p} EUR per metre." for n, p in  # not a loop
                      [(4, "4.50"), (5, "4.20"), (6, "4.00"), (7, "3.90"), (8, "3.90")])),
    ("Were the docking fees raised in March?", "Yes, the docking fees were raised in March."),
    ("Were the docking fees raised in March?", "No."),
    ("Is the fee for berth 4 or berth 7 higher?", "Berth 4."),
    ("How much is berth 6 per metre?", "4.00 EUR."),
    ("What are the docking fees per berth?",  # the question as a heading, then the answer
     "What are the docking fees per berth?\nBerth 4 costs 4.50 EUR per metre, berth 7 3.90."),
    ("What does the harbour office say about the fees?",
     'It says: "berth 4 costs 4.50 EUR per metre".'),
    ("What are the docking fees per berth?",  # another language than the context's
     "Les frais d'amarrage vont de 3,90 EUR (poste 7) à 4,50 EUR par mètre (poste 4)."),
    ("What are the docking fees per berth?",
     "| berth | EUR per metre |\n|---|---|\n| 4 | 4.50 |\n| 5 | 4.20 |\n| 6 | 4.00 |\n"
     "| 7 | 3.90 |"),
])
def test_right_answers_are_not_refused(question, text):
    assert check(text, Subject(question, FEES_CONTEXT)) is None


@pytest.mark.parametrize("question, text, rule", [
    ("Were the docking fees raised in March?", "Were the docking fees raised in March?",
     "echo"),
    ("Were the docking fees raised in March?", "- Question: Were the docking fees raised in "
     "March?", "echo"),
    ("What are the docking fees per berth?", "no", "bare_word"),
    ("What are the main themes?", "1. Importance Score: 95\n2. Fees: 80\n3. Berths: 73",
     "empty_items"),
    ("What are the main themes?", "The importance score of 95 shows the fees matter. The "
     "importance score of 80 shows the berths matter.", "template_subject"),
    ("What happened?", "The fees rose in March after a long debate in the council. "
     + "Berth four costs more now. " * 3, "repeated_sentences"),
])
def test_each_new_rule_refuses_with_its_numbers(question, text, rule):
    verdict = check(text, Subject(question, FEES_CONTEXT))
    assert verdict is not None and verdict.rule == rule and verdict.why


def test_one_label_leading_most_items_is_a_loop_but_a_list_of_labels_is_not():
    from neo4j_retag.checks.degenerate_lists import repeated_labels
    looping = "\n".join(f"- Harbour Dues Review: {n} thousand euros in {2010 + n}"
                        for n in range(1, 6))
    assert repeated_labels(looping).rule == "repeated_labels"
    berths = "\n".join(f"- Berth {n}: {3 + n / 10:.2f} EUR per metre" for n in range(4, 9))
    themes = "- Theme: greed\n- Theme: charity\n- Theme: memory\n- Theme: family"
    assert repeated_labels(berths) is None and repeated_labels(themes) is None
    assert check(berths) is None


def test_a_short_reply_saying_no_answer_was_given_is_refused_a_negative_answer_is_not():
    from neo4j_retag.checks.degenerate import says_no_answer
    assert says_no_answer("Sorry - no information about the ferry was given.").rule == \
        "non_answer"
    assert says_no_answer("No, the docking fees were not raised in March.") is None
    assert says_no_answer("No data is available on ferries; the council " + "met " * 30) is None


def test_german_function_words_do_not_ground_a_german_reply():
    # a reply about a football club shares only "weil", "auch", "dass", "immer", "wieder",
    # "wenn", "nicht", "werden", "schon" with a context on a harbour: no word of its subject
    context = ("Die Stadt will den alten Hafen mit der Firma Nordwind erneuern, weil die "
               "Liegeplätze nicht mehr sicher sind. Auch die Fischer werden dagegen sein, doch "
               "der Rat hat schon immer gesagt, dass er wieder über den Plan entscheiden wird, "
               "wenn die Kosten bekannt sind.")
    reply = ("Der Fußballverein hat das Pokalfinale erreicht, weil die Stürmerin zwei Tore "
             "schoss; auch der Trainer sagt, dass die Mannschaft immer wieder gewinnt, wenn die "
             "Fans nicht schweigen, und sie werden schon sehen.")
    subject = Subject("Was geschah?", context)
    assert ungrounded(reply, subject).rule == "ungrounded"
    assert ungrounded("Die Stadt will den alten Hafen erneuern, weil die Liegeplätze nicht "
                      "mehr sicher sind.", subject) is None
