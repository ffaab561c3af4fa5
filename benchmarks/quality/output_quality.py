"""Output quality of a real model (issue 13): map points per batch, claims per text unit, and
the share of free-text outputs that needed chatter stripping - per JSON mode, for ANY
OpenAI-compatible endpoint or any GGUF given by path. No Neo4j: it runs the library's own
extraction, claims, summary, report, map-reduce and RAG-answer calls on the text units of a
corpus (default ``examples/sample-corpus``), each text unit standing in for one community.

    # the embedded SmolLM2 (llama.cpp server on 8088, started by `neo4j-retag llm start`)
    python -m benchmarks.quality.output_quality --units 2
    # any GGUF: started here with llama_cpp.server on a free port, stopped after
    python -m benchmarks.quality.output_quality \\
        --gguf ~/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf
    # any endpoint
    OPENAI_BASE_URL=http://host:8000/v1 OPENAI_MODEL=name \\
        python -m benchmarks.quality.output_quality

Measured per JSON mode (``--modes``, default json_object,json_schema,off; a mode the endpoint
refuses is recorded as refused): points per map batch with the schema's lower bound
``min(3, batch)`` and, for comparison, the old ``minItems: 1``; claims per text unit from the
combined extraction call and from the separate claims call (raw and after the grounding check),
with the separate call's extra cost (LLM calls and tokens per text unit); chatter: for every
free-text output (description summaries, report text fields, map point descriptions, reduce and
RAG answers) whether ``text.strip_chatter`` changed it. JSON to bench-results/.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
import urllib.request
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from neo4j_retag import tokens
from neo4j_retag.config import LOCAL_LLM_BUDGETS, Settings
from neo4j_retag.errors import LLMError
from neo4j_retag.index.elements import summarize_texts
from neo4j_retag.index.extract import TextUnitExtraction, extract_text_unit
from neo4j_retag.index.reports import local_context, write_report
from neo4j_retag.llm import LLM, Usage, parse_json
from neo4j_retag.model import Query, ReportRow, TextUnit, Trace
from neo4j_retag.query import map_reduce as mr
from neo4j_retag.query.common import answer_from
from neo4j_retag.stages import Stage
from neo4j_retag.text import strip_chatter

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "bench-results"
QUESTION = "What are the main themes of this corpus?"


class RecordingLLM(LLM):
    """The library's LLM client, keeping every raw completion text by stage."""

    def __init__(self, settings: Settings, usage: Usage) -> None:
        super().__init__(settings, usage)
        self.outputs: list[tuple[str, str]] = []

    async def complete(self, messages: Any, *, stage: str, validate: Any = None,
                       **kwargs: Any) -> Any:
        def capture(text: str, repairs: list[str]) -> Any:
            self.outputs.append((stage, text))
            return validate(text, repairs) if validate else text

        t0 = time.perf_counter()
        try:
            return await super().complete(messages, stage=stage, validate=capture, **kwargs)
        finally:  # progress on stderr: a slow shared endpoint makes a run long
            print(f"    {stage}: {time.perf_counter() - t0:.0f} s", file=sys.stderr)


def text_units(corpus: Path, n: int, settings: Settings) -> list[tuple[str, str]]:
    units = []
    for path in sorted(corpus.glob("*.txt")):
        for i, text in enumerate(tokens.split(path.read_text(), settings.index.chunk_size,
                                              settings.index.chunk_overlap, settings.encoding)):
            units.append((f"{path.stem}-{i}", text))
    return units[:n]


def per_unit(usage: Usage, stage: str, n: int) -> dict[str, float]:
    s = usage.stage(stage)
    return {"calls": round(s.calls / n, 2), "prompt_tokens": round(s.prompt_tokens / n, 1),
            "completion_tokens": round(s.completion_tokens / n, 1),
            "seconds": round(s.seconds / n, 1)}


def free_text_fields(stage: str, text: str) -> list[str]:
    """The free-text pieces of one raw output: the text itself, or a JSON output's fields."""
    if stage in ("summarize", "reduce", "answer"):
        return [text]
    try:
        data = parse_json(text)
    except ValueError:
        return []
    if not isinstance(data, dict):
        return []
    if stage == "report":
        findings = [f for f in data.get("findings") or [] if isinstance(f, dict)]
        return [str(data.get(k) or "") for k in ("title", "summary", "rating_explanation")] + [
            str(f.get(k) or "") for f in findings for k in ("summary", "explanation")]
    if stage == "map":
        return [str(p.get("description") or "") for p in data.get("points") or []
                if isinstance(p, dict)]
    return []


def raw_claims(outputs: list[tuple[str, str]], stage: str,
               samples: list[Any]) -> list[int]:
    """Claims per output as the model gave them; the first few kept in ``samples``."""
    out = []
    for s, text in outputs:
        if s != stage:
            continue
        try:
            data = parse_json(text)
            claims = (data.get("claims") or []) if isinstance(data, dict) else []
        except ValueError:
            claims = []
        out.append(len(claims))
        samples.extend({k: str(c.get(k))[:160] for k in ("subject", "type", "source_quote")}
                       for c in claims[:3] if isinstance(c, dict))
    return out


async def extract_all(llm: RecordingLLM, settings: Settings, units: list[tuple[str, str]],
                      failures: Counter[str], label: str) -> list[TextUnitExtraction | None]:
    out: list[TextUnitExtraction | None] = []
    for cid, text in units:
        try:
            out.append(await extract_text_unit(llm, settings, TextUnit(id=cid, text=text),
                                               glean=0, claims=True))
        except LLMError as err:
            failures[label] += 1
            print(f"  {label} {cid} failed: {str(err)[:120]}", file=sys.stderr)
            out.append(None)
    return out


def points_in(outputs: list[tuple[str, str]]) -> list[int]:
    """Points per map output as the model gave them (an unparseable output is left out)."""
    out = []
    for stage, text in outputs:
        if stage != "map":
            continue
        try:
            data = parse_json(text)
        except ValueError:
            continue
        if isinstance(data, dict) and isinstance(data.get("points"), list):
            out.append(len(data["points"]))
    return out


async def map_points(llm: RecordingLLM, settings: Settings, reports: list[ReportRow],
                     lower_bound: int, reduce: bool) -> tuple[list[int], Trace, Any]:
    """Points per map batch with the schema's lower bound ``min(lower_bound, batch)``; with
    ``reduce`` the whole map-reduce (its answer returned), else the map calls only."""
    mr.MIN_POINTS = lower_bound
    mr.map_model.cache_clear()
    start = len(llm.outputs)
    trace = Trace(method="bench")
    try:
        if reduce:
            answer = await mr.map_reduce(llm, settings, QUESTION, reports, trace)
        else:
            answer = None
            groups = mr.batches(reports, settings.query.map_context_tokens,
                                settings.query.shuffle_seed, settings.encoding)
            trace.map_batches = len(groups)
            for g in groups:
                await mr._map(llm, settings, QUESTION, g, trace)
    finally:
        mr.MIN_POINTS = 3
        mr.map_model.cache_clear()
    return points_in(llm.outputs[start:]), trace, answer


async def run_mode(settings: Settings, units: list[tuple[str, str]],
                   map_units: list[tuple[str, str]], summaries: int,
                   map_batch_tokens: int) -> dict[str, Any]:
    usage_comb, usage_sep, usage_rest = Usage(), Usage(), Usage()
    failures: Counter[str] = Counter()
    t0 = time.perf_counter()
    comb_settings = settings.model_copy(update={"claims_call": "combined"})
    async with RecordingLLM(comb_settings, usage_comb) as llm:
        combined = await extract_all(llm, comb_settings, units, failures, "extract_combined")
        samples_comb: list[Any] = []
        raw_comb = raw_claims(llm.outputs, "extract", samples_comb)
    sep_settings = settings.model_copy(update={"claims_call": "separate"})
    async with RecordingLLM(sep_settings, usage_sep) as llm:
        separate = await extract_all(llm, sep_settings, units, failures, "extract_separate")
        samples_sep: list[Any] = []
        raw_sep = raw_claims(llm.outputs, "claims", samples_sep)
    outputs: list[tuple[str, str]] = []
    map_settings = settings.model_copy(update={"map_context_tokens": map_batch_tokens})
    async with RecordingLLM(settings, usage_rest) as llm:
        # description summaries: one entity's descriptions from the two extractions of a unit
        descs: dict[str, list[str]] = defaultdict(list)
        names: dict[str, str] = {}
        for ex in combined + separate:
            for e in (ex.entities if ex else []):
                descs[e["key"]].append(e["description"])
                names[e["key"]] = e["name"]
        multi = [k for k, d in descs.items() if len({x.strip() for x in d if x.strip()}) > 1]
        for key in multi[:summaries]:
            await summarize_texts(llm, settings, names[key], descs[key])
        # one report per text unit, from its separate-mode elements
        reports: list[ReportRow] = []
        for i, ex in enumerate(separate):
            if not ex or not ex.entities:
                continue
            elements = {
                "entities": [{"key": e["key"], "name": e["name"],
                              "description": e["description"], "degree": 1}
                             for e in ex.entities],
                "relationships": [{**r, "source": r["source_key"], "target": r["target_key"],
                                   "combined_degree": 2} for r in ex.relationships],
                "claims": [{"key": c["subject_key"], "entity": c["subject_key"],
                            "type": c["props"]["type"], "status": c["props"]["status"],
                            "description": c["props"]["description"]} for c in ex.claims]}
            context, _ = local_context(elements, settings.index.report_context_tokens,
                                       settings.encoding)
            try:
                rep = await write_report(llm, settings, context)
                reports.append(ReportRow(id=i, title=rep.title, full_content=rep.markdown()))
            except LLMError as err:
                failures["report"] += 1
                print(f"  report {i} failed: {str(err)[:120]}", file=sys.stderr)
        # map-reduce over the corpus's text units standing in for reports (as the `ts` method
        # does): the batches hold several reports whatever the extraction gave
        rows = [ReportRow(id=i, title=cid, full_content=t)
                for i, (cid, t) in enumerate(map_units)]
        new_counts, new_trace, answer = await map_points(llm, map_settings, rows, 3, True)
        old_counts, old_trace, _ = await map_points(llm, map_settings, rows, 1, False)
        rag_context = "-----Sources-----\nid,text\n" + "\n".join(
            f"{i},{json.dumps(t)}" for i, (_, t) in enumerate(units))
        await answer_from(llm, settings, Query(question=QUESTION), rag_context, Trace())
        outputs = llm.outputs
    chatter: dict[str, dict[str, int]] = defaultdict(lambda: {"outputs": 0, "stripped": 0})
    examples: list[dict[str, str]] = []
    for stage, text in outputs:
        pieces = [p for p in free_text_fields(stage, text) if p.strip()]
        if not pieces:
            continue
        changed = [p for p in pieces if strip_chatter(p).changed]
        chatter[stage]["outputs"] += 1
        chatter[stage]["stripped"] += bool(changed)
        if changed and len(examples) < 8:
            examples.append({"stage": stage, "raw": changed[0][:200],
                             "clean": strip_chatter(changed[0]).text[:200]})
    n_out = sum(c["outputs"] for c in chatter.values())
    n_strip = sum(c["stripped"] for c in chatter.values())
    n = len(units)
    kept_comb = [len(ex.claims) if ex else 0 for ex in combined]
    kept_sep = [len(ex.claims) if ex else 0 for ex in separate]
    return {
        "text_units": n,
        "map": {"batches": new_trace.map_batches, "points_per_batch": new_counts,
                "distinct_points_kept": new_trace.points_total,
                "mean_points_per_batch": round(sum(new_counts) / max(1, len(new_counts)), 2),
                "parse_failures": new_trace.map_parse_failures + new_trace.map_failures,
                "points_per_batch_minItems_1": old_counts,
                "mean_points_per_batch_minItems_1": round(
                    sum(old_counts) / max(1, len(old_counts)), 2),
                "parse_failures_minItems_1": old_trace.map_parse_failures
                + old_trace.map_failures,
                "reports": len(rows), "batch_tokens": map_batch_tokens},
        "reports_written": len(reports),
        "answer": {"text": answer.answer[:600], "notes": answer.trace.notes,
                   "citations": [c.id for c in answer.citations],
                   "sources": [c.id for c in answer.sources]},
        "claims": {"combined_raw_per_unit": raw_comb, "combined_kept_per_unit": kept_comb,
                   "separate_raw_per_unit": raw_sep, "separate_kept_per_unit": kept_sep,
                   "mean_combined": round(sum(kept_comb) / n, 2),
                   "mean_separate": round(sum(kept_sep) / n, 2),
                   "raw_samples_combined": samples_comb, "raw_samples_separate": samples_sep},
        "cost_per_text_unit": {"combined_extract": per_unit(usage_comb, "extract", n),
                               "separate_extract": per_unit(usage_sep, "extract", n),
                               "separate_claims_call": per_unit(usage_sep, "claims", n)},
        "chatter": {"by_stage": dict(chatter), "outputs": n_out, "stripped": n_strip,
                    "share": round(n_strip / n_out, 3) if n_out else None,
                    "examples": examples},
        "failures": dict(failures),
        "seconds": round(time.perf_counter() - t0, 1),
    }


def json_schema_refused(settings: Settings) -> str | None:
    """The endpoint's refusal of OpenAI's json_schema response format, or None."""
    s = settings.model_copy(update={"llm_json_mode": "json_schema", "llm_cache": False})

    async def probe() -> str | None:
        async with LLM(s) as llm:
            try:
                await llm.complete([{"role": "user", "content": "Say {}"}], stage=Stage.PROBE,
                                   max_tokens=5, response_format={
                                       "type": "json_schema", "json_schema": {
                                           "name": "probe", "schema": {"type": "object"}}})
            except LLMError as err:
                return str(err)[:300]
        return None

    return asyncio.run(probe())


def start_gguf(path: Path, port: int) -> subprocess.Popen[bytes]:
    """llama_cpp.server with ``path`` on ``port`` (8k context, 2 threads), ready."""
    proc = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", str(path),
                             "--port", str(port), "--n_ctx", "8192", "--n_threads", "2",
                             "--model_alias", "bench"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.time() + 300
    while time.time() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2)
            return proc
        except OSError as err:
            if proc.poll() is not None:
                raise SystemExit(f"llama_cpp.server exited ({proc.returncode}) for "
                                 f"{path}") from err
            time.sleep(2)
    proc.terminate()
    raise SystemExit(f"llama_cpp.server did not answer in 300 s for {path}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gguf", type=Path, help="a GGUF to serve with llama_cpp.server")
    ap.add_argument("--port", type=int, default=8097, help="port for --gguf")
    ap.add_argument("--modes", default="json_object,json_schema,off")
    ap.add_argument("--corpus", type=Path, default=ROOT / "examples" / "sample-corpus")
    ap.add_argument("--units", type=int, default=4,
                    help="text units extracted, summarised and reported (default: all 4)")
    ap.add_argument("--map-units", type=int, default=4,
                    help="text units map-reduce reads as reports (default: all 4)")
    ap.add_argument("--summaries", type=int, default=3)
    ap.add_argument("--map-batch-tokens", type=int, default=1000,
                    help="map batch budget: small, so the corpus makes two or more batches")
    ap.add_argument("--label", default=None, help="name in the results (default: the model)")
    args = ap.parse_args()
    proc = None
    overrides: dict[str, Any] = {k: v for k, v in LOCAL_LLM_BUDGETS.items()
                                 if k.upper() not in os.environ}
    if args.gguf:
        proc = start_gguf(args.gguf, args.port)
        overrides |= {"openai_base_url": f"http://127.0.0.1:{args.port}/v1",
                      "openai_model": "bench"}
    try:
        base = Settings(**overrides, llm_cache=False, llm_concurrency=1)
        label = args.label or (args.gguf.name if args.gguf else base.llm.model)
        result: dict[str, Any] = {"endpoint": base.llm.endpoint, "model": label,
                                  "corpus": str(args.corpus), "modes": {}}
        for mode in [m.strip() for m in args.modes.split(",") if m.strip()]:
            settings = base.model_copy(update={"llm_json_mode": mode})
            if mode == "json_schema" and (why := json_schema_refused(settings)):
                result["modes"][mode] = {"refused": why}
                print(f"{mode}: refused by the endpoint", file=sys.stderr)
                continue
            units = text_units(args.corpus, args.units, settings)
            map_units = text_units(args.corpus, args.map_units, settings)
            print(f"{mode}: {len(units)} text units, map over {len(map_units)} ...",
                  file=sys.stderr)
            result["modes"][mode] = asyncio.run(run_mode(settings, units, map_units,
                                                         args.summaries,
                                                         args.map_batch_tokens))
            m = result["modes"][mode]
            print(f"{mode}: points/batch {m['map']['mean_points_per_batch']} (minItems 1: "
                  f"{m['map']['mean_points_per_batch_minItems_1']}), claims/unit combined "
                  f"{m['claims']['mean_combined']} separate {m['claims']['mean_separate']}, "
                  f"chatter {m['chatter']['stripped']}/{m['chatter']['outputs']}, "
                  f"{m['seconds']} s", file=sys.stderr)
    finally:
        if proc:
            proc.terminate()
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / f"output_quality-{label.replace('/', '_')}.json"
    out.write_text(json.dumps(result, indent=2, default=str))
    print(out)


if __name__ == "__main__":
    main()
