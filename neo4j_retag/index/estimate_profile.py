"""What `ingest --estimate` knows of the model: measured profiles, and calibration
from the last ingest's estimate and actual figures stored in the graph.

A profile holds the ratios the input cannot tell: how much the model writes per call, how
often its replies fail validation and are asked again, how many descriptions need a summary
and how many communities a report, how long the reports topic mining reads are. Which profile:
``ESTIMATE_PROFILE`` (``auto``: ``select`` for a model that selects, ``LLM_CLASS=small``;
else ``remote``; ``local-small`` is the written extraction of the embedded SmolLM2).

Calibration: `ingest` stores its estimate (the profile's figures, ``raw_*``) and, when the run
ends, what it spent (``actual_*``, per stage). The next estimate with the same profile and
model multiplies each stage's calls, prompt and completion tokens by actual / raw of the last
run (clamped to [1/4, 4]): the corpus and the model as this graph knows them. A fresh graph
has nothing to calibrate from: the profile alone.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..config import Settings
from ..db import Graph


@dataclass(frozen=True)
class Profile:
    """Measured ratios of one kind of model (per text unit unless named per call)."""

    name: str
    extract_completion_per_token: float  # extraction completion tokens per text-unit token
    completion_cap: float  # a reply's tokens at most this share of max_tokens (cap overshoot)
    extract_retry: float  # extra extraction calls per text unit (a reply failed validation)
    glean_completion_share: float  # a gleaning reply against the extraction reply
    glean_prompt_factor: float  # a gleaning prompt against extraction prompt + reply
    glean_continue: float  # share of text units whose gleaning goes on after a round
    summaries_per_unit: float  # description summaries (entities + relationships)
    summary_prompt: int  # per call
    summary_completion: int
    reports_per_unit: float  # LLM community reports (composed and reused ones are free)
    report_prompt_share: float  # a report prompt's share of REPORT_CONTEXT_TOKENS
    report_completion: int
    mined_tokens_per_unit: float  # report tokens at the mining level, per text unit
    map_completion: int  # per map call
    reduce_completion: int  # per reduce call (two: topics, corpus)
    list_completion: int  # the topic-list call
    listing_tokens: int  # the topic listing in each assignment call
    assign_completion: float  # per text unit labelled
    topic_retry: float  # extra topic calls per topic call (replies that failed validation)
    # the endpoint's prompt tokens per cl100k token of corpus text and prompt (its tokenizer;
    # fakellm counts characters / 4)
    prompt_token_factor: float = 1.0
    # the embed stage: entities per text unit and tokens of an embedded entity
    # (name: description) and report (title, summary, findings)
    entities_per_unit: float = 2.0
    entity_text_tokens: float = 40.0
    report_text_tokens: float = 208.0
    # a gleaning prompt re-sends what the extraction found (names, types, endpoints:
    # index/extract.found_turn): its tokens as a share of the extraction's completion
    glean_found_share: float = 1.0
    # community report texts embedded per text unit (composed and reused ones too, each
    # distinct text once); None: reports_per_unit
    embedded_reports_per_unit: float | None = None
    # a model that selects (LLM_CLASS=small): extraction answers names and sentence numbers
    # (its completion per text-unit token is extract_completion_per_token), descriptions
    # are its evidence (no summary), a report is composed with one title call
    # (reports_per_unit: titles; these sizes per call)
    selects: bool = False
    title_prompt: int = 0
    title_completion: int = 0


PROFILES = {
    # fakellm on BBC-200 (600/100, claims combined, LLM cache off; it ignores max_tokens, as
    # an endpoint that truncates and is asked again with more room bills about the same), an
    # API-like endpoint: 253 text units of 394 tokens, 323 LLM reports, 35 summaries (the
    # others joined: SUMMARY_MIN_DESCRIPTIONS), 8 map batches over the root's reports
    # (bench-results/llm_cost-200.json; gleaning from llm_cost-200-glean1.json, GLEAN=1);
    # embedded: 2,046 entities, ~1,560 distinct report texts (63 requests, 382 k tokens; the
    # split between entity and report texts is fitted to those two totals, not measured)
    "remote": Profile(
        "remote", extract_completion_per_token=4.44, completion_cap=2.0, extract_retry=0.0,
        glean_completion_share=0.0017, glean_prompt_factor=0.98, glean_continue=0.0,
        summaries_per_unit=0.138, summary_prompt=613, summary_completion=77,
        reports_per_unit=1.277, report_prompt_share=0.234, report_completion=381,
        mined_tokens_per_unit=222.0, map_completion=84, reduce_completion=211,
        list_completion=88, listing_tokens=165, assign_completion=8.0, topic_retry=0.0,
        prompt_token_factor=1.098, glean_found_share=0.23, entities_per_unit=8.1,
        entity_text_tokens=60.0, embedded_reports_per_unit=6.2, report_text_tokens=100.0),
    # the embedded SmolLM2-135M-Instruct on examples/sample-corpus under the local budgets
    # (4 text units of 190 tokens; bench-results/llm_cost-sample-smollm2.json, measured
    # before topic mining's one map pass: the topic figures are its structure with guessed
    # per-call sizes until benchmarks/cost/estimate_accuracy.py --local measures them): it writes
    # until the cap (800 tokens) whatever the text, gleans about as long as it extracts,
    # 3 extractions in 4 are truncated and asked again with more room; every community there
    # has at most 3 entities (0 LLM reports); no element there has the 8 descriptions a
    # summary call now needs (SUMMARY_MIN_DESCRIPTIONS: fewer are joined), nor 500 tokens of
    # them. Topic reduces: 3 calls / 975 completion tokens in one run, 5 (one failed and asked
    # again) / 3,218 in the next (bench-results/estimate-accuracy-smollm2*.json): 500 a call,
    # 20 % asked again
    "local-small": Profile(
        "local-small", extract_completion_per_token=4.5, completion_cap=1.07,
        extract_retry=0.75, glean_completion_share=0.89, glean_prompt_factor=0.957,
        glean_continue=0.0, summaries_per_unit=0.0, summary_prompt=191, summary_completion=19,
        reports_per_unit=0.0, report_prompt_share=0.234, report_completion=381,
        mined_tokens_per_unit=150.0, map_completion=300, reduce_completion=500,
        list_completion=120, listing_tokens=60, assign_completion=60.0, topic_retry=0.2,
        prompt_token_factor=1.10),
    # a model that selects (LLM_CLASS=small): Qwen2.5-Coder-1.5B on the BBC tech slice and
    # the sample corpus, the project's own index (bench-results/suite-g1-*-ingest.json)
    "select": Profile(
        "select", extract_completion_per_token=0.35, completion_cap=1.0, extract_retry=0.05,
        glean_completion_share=0.5, glean_prompt_factor=1.0, glean_continue=0.0,
        summaries_per_unit=0.0, summary_prompt=0, summary_completion=0,
        reports_per_unit=0.5, report_prompt_share=0.0, report_completion=0,
        mined_tokens_per_unit=150.0, map_completion=300, reduce_completion=500,
        list_completion=120, listing_tokens=60, assign_completion=60.0, topic_retry=0.2,
        prompt_token_factor=1.10, selects=True, title_prompt=260, title_completion=8,
        entities_per_unit=5.0, embedded_reports_per_unit=3.0),
}


def profile_for(settings: Settings) -> Profile:
    """The profile ``ESTIMATE_PROFILE`` names, or for ``auto`` the one the model suggests."""
    name = settings.index.estimate_profile
    if name == "auto" and settings.llm.small:
        name = "select"  # LLM_CLASS=small: the extraction selects, reports are composed
    if name == "auto":
        # the profile was measured on SmolLM2; a 1.5B+ model writes as the remote ones do
        small = settings.llm.local and settings.services.llm_model_path is None and (
            settings.services.llm_model == "smollm2")
        name = ("local-small" if small or settings.llm.model.casefold().startswith("smollm")
                else "remote")
    return PROFILES[name]


FIGURES = ("calls", "prompt_tokens", "completion_tokens")
CLAMP = 4.0


def calibration(graph: Graph | None, profile: str, model: str
                ) -> dict[str, dict[str, float]]:
    """Per stage and figure, actual / raw estimate of the last ingest with this profile and
    model (clamped to [1/4, 4]); {} when there is none."""
    if graph is None:
        return {}
    out: dict[str, dict[str, float]] = {}
    for r in graph.run("index/last_estimate"):
        if r["profile"] != profile or r["model"] != model:
            continue
        ratios = {}
        for f in FIGURES:
            raw, actual = r.get(f"raw_{f}"), r.get(f"actual_{f}")
            if raw and actual is not None:
                ratios[f] = min(CLAMP, max(1 / CLAMP, actual / raw))
        if ratios:
            out[r["stage"]] = ratios
    return out
