"""Nuggets matched by meaning beside their aliases (opt-in: `eval --nuggets FILE
--nugget-similarity T`): a nugget none of whose aliases occurs in an answer counts as matched
*by embedding* when the cosine between its text and one sentence of the answer is at least T
and that sentence is nearer to it than to any other nugget of the question. Only sentences
that can state a fact count (:func:`statements`: six content words or more, data references
removed).
Alias recall stays the deterministic figure; this adds ``recall_similar`` (alias or
embedding) beside it, for answers that paraphrase a nugget its aliases did not foresee.

The vectors come from the embedding endpoint the index uses (EMBEDDING_MODEL: the embedded
all-MiniLM-L6-v2 by default), cached like every embedding, counted in the eval's usage as the
stage ``nugget_embed`` (`stats`, `--json`). A nugget text or sentence that could not be
embedded is listed as a failure and scored by its aliases only: nothing dropped silently.
The default threshold (``DEFAULT_SIMILARITY``, 0.45, for all-MiniLM-L6-v2) was set on scored
answers by ``benchmarks/quality/nugget_similarity.py``: the lowest cosine at which at most 2 %
of the sentences holding another nugget of the question are matched (docs/evaluation.md);
another embedding model needs its own.
"""

from __future__ import annotations

from ..citations import without_references
from ..errors import Failure
from ..llm.embeddings import Embedder
from ..stages import Stage
from . import require
from .nugget_scores import content_words
from .nuggets import DEFAULT_SIMILARITY, Nugget, sentences
from .records import AnswerRecord, NuggetScore

STAGE = Stage.NUGGET_EMBED
# a sentence of fewer content words is a heading or a bare name ("Lumen Analytics
# sponsorship"): it names a subject and states no fact, yet a name it shares with a nugget
# lifts its cosine above real paraphrases (docs/evaluation.md)
MIN_CONTENT_WORDS = 6
__all__ = ["DEFAULT_SIMILARITY", "STAGE", "clear_similar", "cosines", "match_similar",
           "statements"]


def cosines(a: list[list[float]], b: list[list[float]]) -> list[list[float]]:
    """The cosines between every row of ``a`` and every row of ``b`` (``len(a)`` rows of
    ``len(b)``); a zero vector's cosines are 0."""
    np = require("numpy")
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    x = x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)
    y = y / np.maximum(np.linalg.norm(y, axis=1, keepdims=True), 1e-12)
    return (x @ y.T).tolist()


async def match_similar(embedder: Embedder, answers: list[AnswerRecord],
                        nuggets: dict[str, list[Nugget]], threshold: float) -> list[Failure]:
    """Fill ``recall_similar`` of every scored answer (``nuggets`` set by
    ``nugget_scores.score_answers``): each hit not matched by an alias gets ``similarity``
    (the best cosine of its text to a sentence of the answer that is nearer to it than to any
    other nugget of the question) and, at ``threshold`` or above, ``similar`` with that
    sentence. Returns the texts that could not be embedded (their nuggets count by alias
    only; a sentence that could not be embedded matches nothing). Raises ConfigError when the
    embedding endpoint is unusable (every text would fail alike)."""
    scored = [(a, statements(a.answer or "")) for a in answers
              if a.nuggets is not None and a.question in nuggets]
    items: dict[str, str] = {}
    for k, (a, sents) in enumerate(scored):  # keyed by position: a question may be asked twice
        for n in nuggets[a.question]:
            items[_nugget_key(a, n)] = n.text
        for i, s in enumerate(sents):
            items[_sentence_key(k, a, i)] = s
    vectors, failures = await embedder.embed_items(items, stage=STAGE)
    for k, (a, sents) in enumerate(scored):
        _match(k, a, sents, nuggets[a.question], vectors, threshold)
    return failures


def clear_similar(score: NuggetScore) -> None:
    """Drop the embedding matches ``score`` carries from an earlier scoring (a saved answer):
    alias matches and their sentences stay."""
    for h in score.hits:
        if h.similar or h.similarity is not None:
            h.similar, h.similarity, h.sentence = False, None, None
    score.matched_similar = score.recall_similar = None


def statements(answer: str) -> list[str]:
    """The sentences of ``answer`` that can state a nugget: data references removed, at least
    :data:`MIN_CONTENT_WORDS` content words."""
    return [s for s in sentences(without_references(answer))
            if len(content_words(s)) >= MIN_CONTENT_WORDS]


def _nugget_key(a: AnswerRecord, n: Nugget) -> str:
    return f"nugget {a.question!r}: {n.id}"


def _sentence_key(k: int, a: AnswerRecord, i: int) -> str:
    return f"sentence {i} of answer {k} ({a.method}'s to {a.question!r})"


def _match(k: int, a: AnswerRecord, stated: list[str], nuggets: list[Nugget],
           vectors: dict[str, list[float]], threshold: float) -> None:
    score = a.nuggets
    assert score is not None
    clear_similar(score)  # scored again (a saved answer): the last run's matches go
    sents = [(s, vectors.get(_sentence_key(k, a, i))) for i, s in enumerate(stated)]
    sents = [(s, v) for s, v in sents if v is not None]
    embedded = [n for n in nuggets if _nugget_key(a, n) in vectors]
    if sents and embedded:
        sims = cosines([vectors[_nugget_key(a, n)] for n in embedded], [v for _, v in sents])
        # a sentence speaks for the nugget it is nearest to: a name shared with another
        # nugget ("Scrooge") lifts its cosine to that one too, but not above its own nugget's
        nearest = [max(range(len(embedded)), key=lambda m, j=j: sims[m][j])
                   for j in range(len(sents))]
        hits = {h.id: h for h in score.hits}
        for m, n in enumerate(embedded):
            hit = hits.get(n.id)
            own = [j for j in range(len(sents)) if nearest[j] == m]
            if hit is None or hit.matched or hit.negated or not own:
                continue
            best = max(own, key=lambda j, m=m: sims[m][j])
            hit.similarity = round(sims[m][best], 3)  # shown rounded, compared exact
            if sims[m][best] >= threshold:
                hit.similar, hit.sentence = True, " ".join(sents[best][0].split())[:200]
    found = sum(h.matched or h.similar for h in score.hits)
    score.matched_similar = found
    score.recall_similar = round(found / score.total, 3) if score.total else 0.0
