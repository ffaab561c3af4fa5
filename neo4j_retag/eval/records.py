"""The typed records of an evaluation run: what each answer gave, each verdict, and the scores
(written as JSON: ``answers.json``, ``judgements.json``, ``scores.json``; `eval --json`)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from ..errors import Failure
from ..model import Citation, LLMCost, Trace


class Metrics(BaseModel):
    """One answer's claim metrics: unique claims and claim clusters per τ (``"0.5"`` ...)."""

    claims: int
    clusters: dict[str, int]


class NuggetHit(BaseModel):
    """One nugget against one answer: matched by which alias in which sentence of the answer,
    and whether the text the answer cites holds it too (None: the answer cites nothing).
    With `--nugget-similarity`, a nugget no alias matched has ``similarity``: its text's best
    cosine to a sentence of the answer nearer to it than to the question's other nuggets (None
    when no sentence is), and is ``similar`` (that sentence in ``sentence``) at the threshold
    or above."""

    id: str
    matched: bool
    alias: str | None = None
    sentence: str | None = None
    in_cited: bool | None = None
    negated: bool = False  # found only under a negation ("not cancelled"): not matched
    similarity: float | None = None
    similar: bool = False


class NuggetScore(BaseModel):
    """One answer's nugget recall (matched / total) and precision proxies: its citations, and
    how many of its claims the cited text supports (None when its claims were not
    extracted)."""

    total: int
    matched: int
    recall: float
    hits: list[NuggetHit]
    citations: int = 0  # written by the model; claims are checked against these only
    attributed: int = 0  # added by shared words (the model wrote no marker): not counted
    claims: int | None = None
    claims_supported: int | None = None
    matched_similar: int | None = None  # by alias or embedding (`--nugget-similarity`)
    recall_similar: float | None = None


class AnswerRecord(BaseModel):
    """One method's answer to one question, its cost, claims and metrics. ``answer`` is None
    when answering failed (``error``); ``metrics`` None when the claims were not extracted
    (``claims_error``, or no answer)."""

    question: str
    method: str
    answer: str | None = None
    error: Failure | None = None
    seconds: float = 0
    llm: LLMCost = Field(default_factory=LLMCost)  # spent on the answer, failed or not
    llm_stages: dict[str, LLMCost] = Field(default_factory=dict)  # ... by LLM stage
    citations: list[Citation] = Field(default_factory=list)
    sources: list[Citation] = Field(default_factory=list)  # every report / text unit read
    trace: Trace | None = None
    claims: list[str] | None = None
    metrics: Metrics | None = None
    claims_error: Failure | None = None
    nuggets: NuggetScore | None = None  # `eval --nuggets`: this question had nuggets
    settings: str | None = None  # eval.saved.answer_settings: a rerun keeps it if equal


class Judgement(BaseModel):
    """The judge's verdict on one pair of answers: a's score against b, 0-1 (0.5 a tie)."""

    question: str
    a: str
    b: str
    criterion: str
    score: float
    failed: bool = False  # the judge failed (a tie counted): `eval --resume` asks again


class Stats(BaseModel):
    """Mean and sample standard deviation; both None when there is no value."""

    mean: float | None = None
    std: float | None = None
    n: int = 0


class WinRate(BaseModel):
    """a's mean score against b on one criterion, over ``questions`` questions."""

    a: str
    b: str
    criterion: str
    win_rate: float | None
    questions: int


class Tally(BaseModel):
    """How often the judge agreed with the claim metrics on pairs where neither is tied."""

    agree: int = 0
    pairs: int = 0
    rate: float | None = None


class Agreement(BaseModel):
    comprehensiveness: Tally = Field(default_factory=Tally)  # vs unique claim counts
    diversity: dict[str, Tally] = Field(default_factory=dict)  # vs cluster counts per τ


class ClaimStats(BaseModel):
    claims: Stats
    clusters: dict[str, Stats]


class CostStats(BaseModel):
    prompt_tokens: Stats
    llm_calls: Stats  # cached calls included
    seconds: Stats


class NuggetStats(BaseModel):
    """Per method, over the answers to questions with nuggets (a failed answer has recall 0):
    nugget recall, citations, claims and the share of claims the cited text supports."""

    recall: Stats
    citations: Stats
    claims: Stats
    supported: Stats
    answers: int
    recall_similar: Stats | None = None  # by alias or embedding (`--nugget-similarity`)


class Scores(BaseModel):
    """Everything an evaluation run measured (``scores.json``). ``win_matrix`` is
    ``{criterion: {row: {column: row's win rate}}}``, the diagonal None."""

    level: int
    methods: list[str]
    criteria: list[str]
    questions: list[str]
    taus: list[str]
    win_rates: list[WinRate]
    win_matrix: dict[str, dict[str, dict[str, float | None]]]
    claims: dict[str, ClaimStats]
    agreement: Agreement
    cost: dict[str, CostStats]
    nuggets: dict[str, NuggetStats] | None = None  # `eval --nuggets`
    nugget_similarity: float | None = None  # the cosine of `--nugget-similarity`
    failures: list[Failure] = Field(default_factory=list)


class AnswerSummary(BaseModel):
    question: str
    method: str
    answer: str | None
    error: Failure | None


class EvalResult(Scores):
    """What `eval` returns: the scores, the files written, every answer in short, and with
    `--resume` how many saved answers were kept and what was asked again (``notes``)."""

    files: list[str] = Field(default_factory=list)
    answers: list[AnswerSummary] = Field(default_factory=list)
    resumed: int = 0
    notes: list[str] = Field(default_factory=list)
