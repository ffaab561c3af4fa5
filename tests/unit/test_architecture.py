"""The package's shape, checked: imports point one way and form no cycle; every prompt and
Cypher file named in the code exists, and its placeholders / parameters match the call."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from neo4j_retag.config import resource_dir
from neo4j_retag.prompts import placeholders, sections

PKG = Path(__file__).resolve().parents[2] / "neo4j_retag"
# layers, lowest first: a module imports only from its own top package or a lower layer;
# api (the operations' table every front end calls) sits on index/query/ops; eval asks the
# query methods and serve answers through them (and api), so both sit above them and below
# the CLI, unaware of each other; events (stage events) is plain data;
# `python -m neo4j_retag` (__main__) runs the CLI; community_report (the report's one shape)
# sits below index/ and query/, both of which build reports
LAYERS = [{"errors", "keys", "refusal"},
          {"config", "model", "tokens", "text", "events", "citations"},
          {"llm", "db", "prompts", "services", "community_report"},
          {"index", "query", "interop", "ops"},
          {"api"},
          {"eval", "serve"}, {"cli"}, {"__main__"}]
# about 300: past it a module likely holds a second idea to split out by idea (never a split
# made to meet the count)
MAX_LINES = 320
# the cross-arrows inside a layer: ReTAG mines topics with global search (index/topics.py);
# the LLM client renders its retry nudge (prompts/llm/) strictly, like every other prompt
CROSS = {("index.topics", "query.global_search"), ("index.topics", "query.retrieval"),
         ("llm.retry", "prompts")}


def _modules() -> dict[str, Path]:
    out = {}
    for path in PKG.rglob("*.py"):
        parts = list(path.relative_to(PKG).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """Modules of the package that ``name`` imports (relative imports resolved)."""
    pkg = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg[: len(pkg) - node.level + 1] if node.level > 1 else pkg
                target = ".".join(base + ([node.module] if node.module else []))
            elif node.module and node.module.startswith("neo4j_retag"):
                target = node.module.removeprefix("neo4j_retag").lstrip(".")
            else:
                continue
            for alias in node.names:  # `from . import tokens` names a module
                sub = f"{target}.{alias.name}".strip(".")
                found.add(sub if sub in modules else target)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("neo4j_retag."):
                    found.add(alias.name.removeprefix("neo4j_retag."))
    return {m for m in found if m in modules and m != name}


def _layer(module: str) -> int:
    return next(i for i, layer in enumerate(LAYERS) if module.split(".")[0] in layer)


def test_imports_point_one_way_and_have_no_cycle():
    modules = _modules()
    graph = {m: _imports(m, p, modules) for m, p in modules.items() if m}
    wrong = []
    for src, dsts in graph.items():
        for dst in dsts:
            same_top = src.split(".")[0] == dst.split(".")[0]
            if not (same_top or _layer(dst) < _layer(src) or (src, dst) in CROSS):
                wrong.append(f"{src} -> {dst}")
    assert not wrong, f"imports against the layering: {wrong}"
    state: dict[str, int] = {}

    def visit(m: str, stack: list[str]) -> None:
        state[m] = 1
        for d in graph.get(m, ()):
            if state.get(d) == 1:
                pytest.fail(f"import cycle: {' -> '.join(stack[stack.index(d):] + [d])}")
            if not state.get(d):
                visit(d, stack + [d])
        state[m] = 2

    for m in graph:
        if not state.get(m):
            visit(m, [m])


def test_query_methods_share_helpers_through_common_not_each_other():
    from neo4j_retag.query import METHODS
    modules = _modules()
    methods = {m.run.__module__.removeprefix("neo4j_retag.") for m in METHODS.values()}
    assert len(methods) >= 5, methods
    borrowed = {f"{m} -> {d}" for m in methods for d in _imports(m, modules[m], modules)
                if d in methods}
    assert not borrowed, borrowed


def test_no_module_is_too_long():
    long = {m: n for m, p in _modules().items()
            if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert not long, long


def _names(node: ast.expr) -> list[str]:
    """The literal file names an argument can take (a string, or both arms of an if-else)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.IfExp):
        return _names(node.body) + _names(node.orelse)
    return []


def _calls():
    for path in PKG.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call):
                fn = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(
                    node.func, "id", "")
                keys = {k.arg for k in node.keywords}
                if None in keys:  # **params: not checkable
                    continue
                yield path, fn, node, keys
            elif isinstance(node, ast.Tuple) and len(node.elts) == 2 and isinstance(
                    node.elts[1], ast.Dict):  # write_tx parts: ("dir/name", {params})
                keys = {k.value for k in node.elts[1].keys if isinstance(k, ast.Constant)}
                yield path, "tx", node.elts[0], keys


def cypher_params(text: str) -> set[str]:
    body = "\n".join(ln for ln in text.splitlines() if not ln.strip().startswith("//"))
    return set(re.findall(r"\$([A-Za-z_]\w*)", body))


def test_every_prompt_and_cypher_file_exists_and_matches_its_call():
    prompts, cypher = resource_dir("prompts"), resource_dir("cypher")
    checked = {"prompt": 0, "cypher": 0}
    problems = []
    for path, fn, node, keys in _calls():
        where = f"{path.relative_to(PKG)}:{node.lineno}"
        if fn in ("render", "fragment", "entries") and node.args:  # the prompt's name first
            for name in _names(node.args[0]):
                if not (prompts / f"{name}.txt").exists():
                    problems.append(f"{where}: no prompt {name}")
                    continue
                checked["prompt"] += 1
                if fn == "entries":
                    continue
                wanted = placeholders([t for _, t in sections(name)])
                if fn == "fragment":
                    wanted = placeholders([(prompts / f"{name}.txt").read_text()])
                if wanted != keys:
                    problems.append(f"{where}: {name} wants {sorted(wanted)}, gets {sorted(keys)}")
        target = node if fn == "tx" else (node.args[0] if getattr(node, "args", None) else None)
        if fn in ("run", "write", "run_script", "run_script_tx", "tx") and target is not None:
            for name in _names(target):
                if "/" not in name:
                    continue
                file = cypher / f"{name}.cypher"
                if not file.exists():
                    problems.append(f"{where}: no Cypher file {name}")
                    continue
                checked["cypher"] += 1
                given = keys | ({"rows"} if fn == "write" else set())
                wanted = cypher_params(file.read_text())
                if wanted != given:
                    problems.append(f"{where}: {name} wants {sorted(wanted)}, gets {sorted(given)}")
    assert not problems, "\n".join(problems)
    assert checked["prompt"] >= 20 and checked["cypher"] >= 60, checked


def test_every_prompt_and_cypher_file_is_used():
    used = set()
    for _, fn, node, _ in _calls():
        target = node if fn == "tx" else (node.args[0] if getattr(node, "args", None) else None)
        if target is not None:
            used.update(_names(target))
    files = {str(p.relative_to(d).with_suffix("")) for d in (resource_dir("prompts"),
                                                            resource_dir("cypher"))
             for p in d.rglob("*") if p.suffix in (".txt", ".cypher")
             and "explore" not in p.parts}
    # judge_relevance / report_categories serve benchmarks/recall.py, report_findings
    # benchmarks/report_grounding.py
    assert files - used <= {"query/judge_relevance", "query/report_categories",
                            "index/report_findings"}, files - used
