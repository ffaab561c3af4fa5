"""The question processes' pieces that need no process: the LLM call limit split among them,
and an error crossing the pipe as itself, or as the nearest class that can (its message and
its HTTP status kept)."""

from __future__ import annotations

import pickle

from neo4j_retag.errors import DatabaseUnreachable, LLMError, LLMParseError
from neo4j_retag.llm.reply import ReplyFault
from neo4j_retag.serve.child import portable
from neo4j_retag.serve.procs import shares


def test_shares_split_the_calls_and_never_give_a_process_none():
    assert shares(8, 3) == [3, 3, 2]
    assert shares(8, 2) == [4, 4]
    assert shares(1, 2) == [1]  # one call: one process
    assert shares(5, 1) == [5]
    assert sum(shares(7, 4)) == 7 and min(shares(7, 4)) >= 1


def test_an_error_that_pickles_crosses_as_itself():
    err = DatabaseUnreachable("Neo4j at bolt://x:7687 unreachable")
    back = pickle.loads(pickle.dumps(portable(err)))
    assert type(back) is DatabaseUnreachable and str(back) == str(err)


def test_an_error_that_does_not_pickle_crosses_as_its_nearest_class():
    err = LLMParseError("the reply was not JSON", raw="{oops")  # raw: a required argument
    back = pickle.loads(pickle.dumps(portable(err)))
    assert isinstance(back, LLMError) and str(back) == str(err)  # still a 502
    fault = ReplyFault("incomplete", "the stream ended without a finish reason")
    back = pickle.loads(pickle.dumps(portable(fault)))
    assert isinstance(back, LLMError) and str(back) == str(fault)


def test_anything_else_crosses_as_a_runtime_error_naming_it():
    class Odd(Exception):
        def __reduce__(self):
            raise TypeError("no")

    back = portable(Odd("strange"))
    assert isinstance(back, Exception) and "strange" in str(back)
