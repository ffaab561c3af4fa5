"""An error recorded, not raised: what a failed item keeps in the graph."""

from neo4j_retag.errors import LLMError, error_text
from neo4j_retag.llm.reply import ReplyFault


def test_error_text_starts_with_the_reason_once():
    assert error_text(ReplyFault("loop", "repeats")) == "loop: repeats"
    assert error_text(LLMError("map: LLM call failed", "http500")) == (
        "http500: map: LLM call failed")
    assert error_text(KeyError("k")) == "KeyError: 'k'"
    assert len(error_text(LLMError("x" * 5000))) == 2000
