"""Benchmark (not a test): the cosine at which `eval --nugget-similarity` counts a nugget as
matched by embedding, set on answers already scored by aliases.

For every nugget of a scored answer (bench-results/nuggets-*.json): its text against
- *positives*: the answer's sentences that hold one of its aliases (a person reading them
  would say the nugget is there);
- *hard negatives*: the answer's sentences that hold another nugget's alias of the same
  question but none of this one's (same story, another fact; a few may still paraphrase this
  nugget, so the rate is an upper bound of false matches);
- *easy negatives*: sentences of answers about another corpus.
A pair is matched as `eval --nugget-similarity` matches: the cosine reaches the threshold
and the sentence is nearer to this nugget than to any other of its question (the rates by
the cosine alone are given beside). For thresholds 0.30-0.90 it gives the share of each kind
matched, and picks the lowest threshold at which at most 2 % of the hard negatives are: a
false match inflates recall, so precision comes first (Youden's J, which weighs both alike,
is given too). With --check,
the same rates at a given threshold on other answers (held out: not used to pick it).

    .venv/bin/python -m benchmarks.quality.nugget_similarity --name minilm \\
        bench-results/nuggets-christmas-carol-qwen.json bench-results/nuggets-sample-qwen.json
    .venv/bin/python -m benchmarks.quality.nugget_similarity --name minilm-heldout --check 0.45 \\
        bench-results/nuggets-christmas-carol-qwen-more.json

Embeds where the environment says (by default the local all-MiniLM-L6-v2, in process).
Writes bench-results/nugget-similarity-NAME.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path

from benchmarks.common import RESULTS, machine
from benchmarks.runner import read_results
from neo4j_retag.config import Settings
from neo4j_retag.eval.nugget_similarity import cosines, statements
from neo4j_retag.eval.nuggets import Nugget, alias_in, read_nuggets
from neo4j_retag.llm.embeddings import Embedder

THRESHOLDS = [round(0.30 + 0.05 * i, 2) for i in range(13)]
HARD_RATE = 0.02  # at most this share of hard negatives may be matched


Answer = tuple[str, list[Nugget], list[str]]  # corpus (nuggets file), nuggets, sentences


def read_answers(results: list[Path]) -> list[Answer]:
    answers = []
    for path in results:
        data = read_results(path)  # a .json or .json.gz results file
        by_q = read_nuggets(Path(data["nuggets_file"])).by_question()
        for a in data["answers"]:
            if a.get("answer") and a["question"] in by_q:
                answers.append((data["nuggets_file"], by_q[a["question"]],
                                statements(a["answer"])))
    return answers


def holds(n: Nugget, sentence: str) -> bool:
    return any(alias_in(a, sentence) for a in n.patterns())


async def embed_all(settings: Settings, answers: list[Answer]) -> dict[str, list[float]]:
    texts = sorted({t for _, ns, ss in answers for t in [n.text for n in ns] + ss})
    async with Embedder(settings) as emb:
        vectors = dict(zip(texts, await emb.embed(texts), strict=True))
        usage = emb.usage.total
    print(f"{len(texts)} texts embedded: {usage.calls} calls ({usage.cached} cached), "
          f"{usage.prompt_tokens} tokens")
    return vectors


def scored_pairs(answers: list[Answer], v: dict[str, list[float]]
                 ) -> dict[str, list[tuple[float, bool]]]:
    """(cosine, whether the sentence is nearest to this nugget of all its question's) per
    nugget-sentence pair, by kind: positive, hard, easy (see the module doc)."""
    out: dict[str, list[tuple[float, bool]]] = {"positive": [], "hard": [], "easy": []}
    for corpus, nuggets, sents in answers:
        for s in sents:
            sims = cosines([v[n.text] for n in nuggets], [v[s]])
            nearest = max(range(len(nuggets)), key=lambda k, sims=sims: sims[k][0])
            for k, n in enumerate(nuggets):
                if holds(n, s):
                    out["positive"].append((sims[k][0], k == nearest))
                elif any(holds(m, s) for m in nuggets if m.id != n.id):
                    out["hard"].append((sims[k][0], k == nearest))
        others = [s for c, _, ss in answers if c != corpus for s in ss[:3]]
        if others:  # another corpus's sentences: nearest among this question's nuggets
            sims = cosines([v[n.text] for n in nuggets], [v[s] for s in others])
            for j in range(len(others)):
                near = max(range(len(nuggets)), key=lambda k, j=j: sims[k][j])
                out["easy"] += [(sims[k][j], k == near) for k in range(len(nuggets))]
    return out


def rates(pairs: dict[str, list[tuple[float, bool]]], t: float, nearest: bool = True
          ) -> dict[str, float | None]:
    """The share of each kind's pairs matched at ``t`` (as `eval --nugget-similarity`: the
    cosine reached and the sentence nearest to the nugget; ``nearest`` False: the cosine
    alone)."""
    return {k: round(sum(x >= t and (near or not nearest) for x, near in v) / len(v), 3)
            if v else None for k, v in pairs.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", type=Path, nargs="+", help="bench-results/nuggets-*.json")
    ap.add_argument("--name", required=True)
    ap.add_argument("--check", type=float, default=None,
                    help="only the rates at this threshold (held-out answers)")
    args = ap.parse_args()
    settings = Settings()
    answers = read_answers(args.results)
    pairs = scored_pairs(answers, asyncio.run(embed_all(settings, answers)))
    ts = [args.check] if args.check is not None else THRESHOLDS
    table = {t: rates(pairs, t) for t in ts}
    cosine_only = {t: rates(pairs, t, nearest=False) for t in ts}
    youden = max(table, key=lambda t: (table[t]["positive"] or 0) - (table[t]["hard"] or 0))
    best = min((t for t in table if (table[t]["hard"] or 0) <= HARD_RATE), default=None)
    print({k: len(v) for k, v in pairs.items()}, "pairs; nearest rule (cosine alone)")
    for t, r in table.items():
        c = cosine_only[t]
        print(f"{t:.2f}: positives {r['positive']} ({c['positive']}), hard negatives "
              f"{r['hard']} ({c['hard']}), easy negatives {r['easy']} ({c['easy']})"
              + ("  <- chosen" if t == best and args.check is None else "")
              + ("  <- Youden" if t == youden and args.check is None else ""))
    out = RESULTS / f"nugget-similarity-{args.name}.json"
    out.write_text(json.dumps({
        "results": [str(p) for p in args.results], "model": settings.embedding.model,
        "endpoint": settings.embedding.endpoint(settings.llm),
        "answers": len(answers), "pairs": {k: len(v) for k, v in pairs.items()},
        "similarity_means": {k: round(sum(x for x, _ in v) / len(v), 3) if v else None
                             for k, v in pairs.items()},
        "rates_at": {str(t): r for t, r in table.items()},
        "rates_at_cosine_alone": {str(t): r for t, r in cosine_only.items()},
        "rule": f"the lowest threshold with at most {HARD_RATE:.0%} of hard negatives",
        "chosen_threshold": None if args.check is not None else best,
        "youden_threshold": None if args.check is not None else youden, "machine": machine()},
        indent=2) + "\n")
    print(f"written: {out}")


if __name__ == "__main__":
    main()
