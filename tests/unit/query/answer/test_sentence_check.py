"""The query side's act on the answer sentence check (query.answer.sentence_check): each
dropped sentence kept in the trace, an answer made only of dropped sentences the no-answer, the
check off by its setting."""

from neo4j_retag.model import ReportRow, Trace
from neo4j_retag.query.answer.sentence_check import check_sentences
from tests.conftest import make_settings
from tests.unit.checks.test_copies import R13


def _reports(*sources):
    return [ReportRow(id=int(label.split()[1]), title=title, level=0, score=1.0,
                      full_content=text) for label, title, text in sources]


def test_the_trace_keeps_each_dropped_sentence_and_an_all_wrong_answer_is_no_answer(tmp_path):
    s = make_settings(tmp_path, {})
    trace = Trace(method="retag")
    text = check_sentences("Fred hosts the dinner. Fred is also a source of warmth and musical "
                           "talent for the family gathering.", "Who is Fred?", _reports(R13),
                           s, trace)
    assert text == "Fred hosts the dinner."
    assert trace.sentences_dropped[0].startswith("Fred is also a source of warmth")
    assert "1 answer sentence(s) dropped" in trace.notes[-1] and trace.no_answer is None

    trace = Trace(method="retag")
    text = check_sentences("Fred is also a source of warmth and musical talent for the family "
                           "gathering.", "Who is Fred?", _reports(R13), s, trace)
    assert trace.no_answer and "every sentence of the answer (1)" in trace.no_answer
    assert text != "Fred is also a source of warmth and musical talent for the family gathering."

    off = make_settings(tmp_path, {"answer_sentence_check": False})
    trace = Trace(method="retag")
    same = "Fred is also a source of warmth and musical talent for the family gathering."
    assert check_sentences(same, "Who is Fred?", _reports(R13), off, trace) == same
    assert not trace.sentences_dropped
