"""Claim extraction and dynamic-selection rating with the real local model (tiny inputs: the
135M model answers at ~25 tokens/s)."""

import asyncio

import pytest

from neo4j_retag.eval.claims import claim_metrics, extract_claims
from neo4j_retag.llm import LLM, Usage
from neo4j_retag.model import ReportRow, Trace
from neo4j_retag.query.dynamic import rate

pytestmark = [pytest.mark.integration, pytest.mark.llm]


def test_real_model_extracts_claims_and_rates_a_report(real_settings):
    async def go():
        async with LLM(real_settings, Usage()) as llm:
            claims = await extract_claims(llm, real_settings, "Who is Scrooge?",
                                          "Scrooge is a miser. Scrooge lives in London.")
            trace = Trace()
            rating = await rate(llm, real_settings, "Who is Scrooge?", ReportRow(
                id=1, title="Scrooge", full_content="# Scrooge\n\nScrooge is a miser."), trace)
            return claims, rating, trace, llm.usage
    claims, rating, trace, usage = asyncio.run(go())
    assert claims and all(c.strip() for c in claims)  # parsed, deduplicated, non-empty
    m = claim_metrics(claims)
    assert m.claims == len(claims) and 1 <= m.clusters["0.8"] <= len(claims)
    assert rating is not None and 0 <= rating <= 5, trace.notes  # parsed, clamped
    assert usage.stages["rate"].calls == 1 and usage.stages["eval_claims"].calls == 1
