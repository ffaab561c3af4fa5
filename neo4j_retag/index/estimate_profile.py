"""What `ingest --estimate` knows of the model (issue 18): measured profiles, and calibration
from the last ingest's estimate and actual figures stored in the graph.

A profile holds the ratios the input cannot tell: how much the model writes per call, how
often its replies fail validation and are asked again, how many descriptions need a summary
and how many communities a report, how long the reports topic mining reads are. Which profile:
``ESTIMATE_PROFILE`` (``auto``: ``local-small`` for the embedded SmolLM2 - the local server
without ``LLM_MODEL_PATH``, or a model named smollm* - else ``remote``).

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


PROFILES = {
    # fakellm on BBC-200 (600/100, glean 1, claims combined, LLM cache off), an API-like
    # endpoint: 253 text units, 323 LLM reports (bench-results/llm_cost-200.json)
    "remote": Profile("remote", 0.741, 1.0, 0.0, 0.0103, 1.344, 0.0, 0.0, 250, 30, 1.277,
                      0.0775, 208, 114.5, 350, 140, 100, 40, 14.0, 0.0),
    # the embedded SmolLM2-135M-Instruct on examples/sample-corpus under the local budgets
    # (bench-results/estimate-accuracy-smollm2.json): it writes until the cap (800 tokens)
    # whatever the text, gleans as long as it extracts, and a reply in 4 fails validation
    "local-small": Profile("local-small", 4.5, 1.07, 0.75, 0.89, 0.96, 0.0, 0.5, 191, 19,
                           0.0, 0.0775, 208, 114.5, 300, 250, 120, 40, 60.0, 0.1),
}


def profile_for(settings: Settings) -> Profile:
    """The profile ``ESTIMATE_PROFILE`` names, or for ``auto`` the one the model suggests."""
    name = settings.index.estimate_profile
    if name == "auto":
        embedded = settings.llm.local and settings.serve.llm_model_path is None
        name = ("local-small" if embedded or settings.llm.model.casefold().startswith("smollm")
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
