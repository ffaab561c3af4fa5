"""benchmarks/ holds together (docs/house.md, "Where a benchmark goes"): every script sits in
its concern's package and runs as a module, imports no private name and no other concern's
script, touches no sys.path; and the answer runner saves and resumes as `eval --resume`."""

from __future__ import annotations

import ast
import gzip
import re
from pathlib import Path

import pytest

from benchmarks.runner import AnswerRun, read_results
from neo4j_retag.errors import Failure
from neo4j_retag.eval.records import AnswerRecord

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
CONCERNS = {"cost", "quality", "speed", "faults", "inputs"}
SHARED = {"benchmarks.common", "benchmarks.runner"}
SCRIPTS = sorted(p for p in BENCH.rglob("*.py") if p.name != "__init__.py")


def _module(path: Path) -> str:
    return ".".join(path.relative_to(BENCH.parent).with_suffix("").parts)


def test_every_script_sits_in_a_concern_package():
    loose = [_module(p) for p in SCRIPTS
             if _module(p) not in SHARED and _module(p).split(".")[1] not in CONCERNS]
    assert loose == []
    packages = {p.parent for p in SCRIPTS} | {BENCH}
    assert [str(p) for p in packages if not (p / "__init__.py").exists()] == []


@pytest.mark.parametrize("path", SCRIPTS, ids=_module)
def test_a_script_imports_public_names_of_its_own_concern_or_the_shared_modules(path):
    me = _module(path)
    bad = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            private = [a.name for a in node.names if a.name.startswith("_")]
            if private:
                bad.append(f"private {private} from {node.module}")
            if (node.module.startswith("benchmarks.") and node.module not in SHARED
                    and node.module.split(".")[1] != me.split(".")[1]):
                bad.append(f"another concern's script: {node.module}")
        elif (isinstance(node, ast.Attribute) and node.attr.startswith("_")
              and not node.attr.startswith("__") and isinstance(node.value, ast.Name)
              and node.value.id in {"common", "runner"}):
            bad.append(f"private {node.value.id}.{node.attr}")
        elif (isinstance(node, ast.Attribute) and node.attr == "path"
              and isinstance(node.value, ast.Name) and node.value.id == "sys"):
            bad.append("sys.path changed: run as a module instead")
    assert bad == []


def test_usage_lines_run_scripts_as_modules():
    # `python benchmarks/x/y.py` would not find the benchmarks package
    by_path = re.compile(r"python3? benchmarks/\S+\.py")
    texts = [*SCRIPTS, *(BENCH.parent / "docs").glob("*.md"), BENCH.parent / "README.md",
             *(BENCH.parent / "scripts").glob("*.sh")]
    assert [str(t) for t in texts if by_path.search(t.read_text())] == []


def _rec(q: str, m: str, failed: bool = False) -> AnswerRecord:
    return AnswerRecord(question=q, method=m, answer=None if failed else "a", settings="k",
                        error=Failure(item="answer", reason="http500") if failed else None)


def test_the_runner_saves_every_answer_and_resumes_from_partial_then_final(tmp_path, capsys):
    run = AnswerRun("nuggets", "x", tmp_path)
    assert run.resumed(["global"], ["q1"], "k") == ([], {})
    run.save([_rec("q1", "global"), _rec("q2", "global", failed=True)], level=0, model="m")
    kept, saved = run.resumed(["global"], ["q1", "q2"], "k")
    assert [a.question for a in kept] == ["q1"] and saved == {"level": 0, "model": "m"}
    assert "1 saved answers had failed: asked again" in capsys.readouterr().err
    # finished: the results file (here compressed) holds the answers, the partial file goes
    run.final.write_text(run.partial.read_text())
    run.done()
    assert not run.partial.exists()
    assert [a.question for a in run.resumed(["global"], ["q1"], "k")[0]] == ["q1"]
    gz = tmp_path / "nuggets-x.json.gz"
    gz.write_bytes(gzip.compress(run.final.read_bytes()))
    run.final.unlink()
    assert read_results(run.final)["model"] == "m"
    assert len(run.resumed(["global"], ["q1"], "other")[0]) == 0  # other settings: asked
    run.partial.write_text("{")
    with pytest.raises(SystemExit, match="--resume: .*cannot read the saved answers"):
        run.resumed(["global"], ["q1"], "k")


def test_the_embedding_gguf_keeps_wordpiece_words_and_reads_safetensors(tmp_path):
    import json
    import struct

    import numpy as np

    from benchmarks.speed.embedding_gguf import phantom, read_safetensors

    # llama.cpp's WPM vocabulary: word starts carry U+2581, continuations lose "##"
    assert [phantom(p) for p in ("[CLS]", "firm", "##s")] == ["[CLS]", "\u2581firm", "s"]
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    header = json.dumps({"__metadata__": {"format": "pt"}, "w": {
        "dtype": "F32", "shape": [2, 3], "data_offsets": [0, a.nbytes]}}).encode()
    path = tmp_path / "m.safetensors"
    path.write_bytes(struct.pack("<Q", len(header)) + header + a.tobytes())
    assert np.array_equal(read_safetensors(path)["w"], a)


def test_the_embedding_comparison_counts_failed_inputs_and_differing_neighbours():
    from benchmarks.speed.embedding_backends import compare, neighbours

    ref = [[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]]
    got = [[1.0, 0.0], None, [0.8, 0.6]]
    out = compare(ref, got)
    assert (out["compared"], out["failed"], out["cosine_min"]) == (2, 1, 0.96)
    assert neighbours(ref, got, k=1) is None  # a failed input: no neighbour comparison
    # the third vector's nearest changes from the second to the first
    assert neighbours(ref, [[1.0, 0.0], [0.0, 1.0], [0.8, 0.6]], k=1) == round(2 / 3, 4)
