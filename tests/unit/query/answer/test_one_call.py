"""The one-call answer over the retrieved reports (ONE_CALL_TOKENS), with the scripted
double: what is read within the budget, what the call is shown, what the answer cites."""

from neo4j_retag.llm import run_with_llm
from neo4j_retag.model import Query, ReportRow, Trace
from neo4j_retag.query.answer.map_batches import report_table
from neo4j_retag.query.answer.one_call import answer_reports, fill
from neo4j_retag.tokens import count
from tests.conftest import make_settings

SPIRITS = ReportRow(id=4, title="The three spirits", level=0, score=3.0,
                    full_content="The Ghost of Christmas Past shows Scrooge his schooldays.")
CRATCHITS = ReportRow(id=9, title="The Cratchit family", level=0, score=2.0,
                      full_content="Bob Cratchit, Scrooge's clerk, and Tiny Tim, his ill son.")
FEZZIWIG = ReportRow(id=2, title="Fezziwig's ball", level=0, score=1.0,
                     full_content="Old Fezziwig, Scrooge's kind first master, gives a ball.")


def test_reports_are_read_best_ranked_first_until_the_budget_is_full():
    three = [SPIRITS, CRATCHITS, FEZZIWIG]
    two = count(report_table(three[:2]))
    assert fill(three, two, "cl100k_base") == ([SPIRITS, CRATCHITS], 1)
    assert fill(three, 10_000, "cl100k_base") == (three, 0)
    # the best report alone over the budget: its start is read, never nothing
    long = SPIRITS.model_copy(update={"full_content": "ghost " * 500})
    (read,), left = fill([long, CRATCHITS], 120, "cl100k_base")
    assert left == 1 and read.id == 4 and count(report_table([read])) <= 120


def run(tmp_path, double, reply, reports, **settings):
    double.script["answer"] = lambda body: reply
    s = make_settings(tmp_path, {"one_call_tokens": 6000, **settings},
                      openai_base_url=double.base_url)
    trace = Trace(method="retag", level=0)
    answer = run_with_llm(s, lambda llm: answer_reports(
        llm, s, Query(question="Who are the Cratchits?"), reports, trace))
    return answer, trace


def test_one_call_reads_the_reports_and_keeps_only_the_ids_it_was_shown(tmp_path, double):
    answer, trace = run(tmp_path, double, "Bob Cratchit is Scrooge's clerk and Tiny Tim his "
                        "son. [Data: Reports (9, 77)]", [SPIRITS, CRATCHITS])
    assert double.count() == 1 and double.count("answer") == 1  # no map, no reduce
    prompt = double.calls[0][1]["messages"][-1]["content"]
    assert "Tiny Tim, his ill son" in prompt and "schooldays" in prompt
    assert answer.answer.endswith("[Data: Reports (9)]")  # 77 was never shown: dropped
    assert [c.id for c in answer.citations] == [9] and not answer.citations[0].attributed
    assert [(c.id, c.cited_in_answer) for c in answer.sources] == [(4, False), (9, True)]
    assert [(c.id, c.cited) for c in trace.context] == [(4, False), (9, True)]
    assert trace.reports_retrieved == 2 and trace.invalid_citations == ["Reports 77"]
    assert trace.notes == ["one answer call over 2 of the 2 reports retrieved "
                           "(ONE_CALL_TOKENS=6000): no map-reduce"]
    assert double.headers == ["answer"]  # the stage the cost line and `stats` count it under


def test_an_answer_without_markers_is_attributed_by_shared_words_and_said(tmp_path, double):
    answer, trace = run(tmp_path, double, "Old Fezziwig was Scrooge's kind first master and "
                        "gave a ball.", [SPIRITS, FEZZIWIG])
    assert [(c.id, c.attributed) for c in answer.citations] == [(2, True)]
    assert "[Data: Reports (2)]" in answer.answer
    assert "1 of its sentences were attributed" in trace.notes[-1]


def test_reports_over_the_budget_are_left_out_and_said(tmp_path, double):
    budget = count(report_table([SPIRITS]))
    answer, trace = run(tmp_path, double, "The spirits. [Data: Reports (4)]",
                        [SPIRITS, CRATCHITS, FEZZIWIG], one_call_tokens=budget)
    assert "Tiny Tim" not in double.calls[0][1]["messages"][-1]["content"]
    assert [c.id for c in answer.sources] == [4]
    assert trace.notes[-1] == (f"2 of 3 reports retrieved did not fit the answer call's "
                               f"{budget} tokens (ONE_CALL_TOKENS, or the endpoint's window): "
                               "not read")


NIECE = ReportRow(id=13, title="Fred's Christmas party", level=0, score=1.0,
                  full_content="Fred, Scrooge's nephew, hosts the Christmas dinner. Scrooge's "
                  "niece, Fred's wife, plays a significant role in the family gathering, "
                  "contributing cheerfulness, earnestness, and musical skill.")


def test_a_sentence_copied_about_another_subject_is_dropped_before_citing(tmp_path, double):
    answer, trace = run(tmp_path, double, "Fred hosts the Christmas dinner. [Data: Reports "
                        "(13)] Fred contributes cheerfulness, earnestness, and musical skill to "
                        "the family gathering. [Data: Reports (13)]", [NIECE])
    assert answer.answer == "Fred hosts the Christmas dinner. [Data: Reports (13)]"
    assert len(trace.sentences_dropped) == 1 and "relative of fred" in trace.sentences_dropped[0]
    assert answer.answered and [c.id for c in answer.citations] == [13]
