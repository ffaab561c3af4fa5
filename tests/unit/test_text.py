"""Chatter stripping on the kinds of free-text output real instruction-tuned models give."""

import pytest

from neo4j_retag.text import strip_chatter

CHATTY = [
    # Qwen2.5-Coder-1.5B's stored entity description (issue 13)
    ("A comprehensive summary of the given descriptions would be:\n\nElena Varga is the mayor.",
     "Elena Varga is the mayor."),
    ("A comprehensive summary of the given descriptions would be: Elena Varga is the mayor.",
     "Elena Varga is the mayor."),
    ("Here is a summary of Elena Varga:\n\"Elena Varga is the mayor.\"",
     "Elena Varga is the mayor."),
    ("Here's the description:\nElena Varga is the mayor.", "Elena Varga is the mayor."),
    ("Sure! Here is the comprehensive description:\n```\nElena Varga is the mayor.\n```",
     "Elena Varga is the mayor."),
    ("Summary: Elena Varga is the mayor.", "Elena Varga is the mayor."),
    ("**Description:** Elena Varga is the mayor.", "Elena Varga is the mayor."),
    ("\u201cElena Varga is the mayor.\u201d", "Elena Varga is the mayor."),
    ("```text\nElena Varga is the mayor.\n```", "Elena Varga is the mayor."),
    ("Elena Varga is the mayor. I hope this helps!", "Elena Varga is the mayor."),
    ("Elena Varga is the mayor.\n\nLet me know if you need anything else.",
     "Elena Varga is the mayor."),
    ("Based on the provided reports, here is the answer:\nThe harbour plan divides the town.",
     "The harbour plan divides the town."),
    ("Certainly. The harbour plan divides the town.", "The harbour plan divides the town."),
    ("Final answer: The harbour plan divides the town.", "The harbour plan divides the town."),
    # SmolLM2's global answer on the sample corpus: the question echoed, then a lead-in
    ("-Question: Which organisations appear most?\nThe answer is: The local community "
     "supports Lumin Analytics [Data: Reports (4)]",
     "The local community supports Lumin Analytics [Data: Reports (4)]"),
]

CLEAN = [
    "Elena Varga is the mayor.",
    '"Lantern" and "harbour" are the two words that recur.',
    "The main themes are:\n- the harbour plan\n- the football club",
    "Elena Varga is the mayor: she opened the festival.",
    "## Harbour plan\nThe council votes in March. [Data: Reports (1, 2)]",
    "Here",
    "Summary:",
    "",
    "Questions remain: the council votes in March.\nThe harbour plan divides the town.",
    "Question: who pays?",
]


@pytest.mark.parametrize(("raw", "expected"), CHATTY)
def test_lead_ins_labels_sign_offs_and_wrappers_are_stripped(raw, expected):
    out = strip_chatter(raw)
    assert out.text == expected and out.changed


@pytest.mark.parametrize("text", CLEAN)
def test_content_is_left_alone(text):
    out = strip_chatter(text)
    assert out.text == text.strip() and not out.changed


def test_whitespace_alone_is_not_a_change_and_stripping_is_idempotent():
    assert strip_chatter("  Elena Varga is the mayor.\n") == ("Elena Varga is the mayor.", False)
    once = strip_chatter(CHATTY[4][0]).text
    assert strip_chatter(once) == (once, False)
