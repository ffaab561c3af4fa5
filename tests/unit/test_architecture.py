"""The package's shape, checked: imports point one way and form no cycle; every prompt and
Cypher file named in the code exists, and its placeholders / parameters match the call; every
LLM stage is named through the one table (stages.py, ``Stage``), and every stage of it is used."""

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
# the CLI, unaware of each other; events (stage events) and stages (the table of LLM stages
# every side names) are plain data;
# checks (on text: sentences, mentions, degenerate replies, support) read the vocabulary
# and serve the LLM client, the index and the query side; `python -m neo4j_retag`
# (__main__) runs the CLI; community_report (the report's one shape) sits below index/ and
# query/, both of which build reports
LAYERS = [{"errors", "keys", "refusal"},
          {"config", "model", "tokens", "text", "events", "citations", "stages"},
          {"checks"},
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
    methods = {m.module.removeprefix("neo4j_retag.") for m in METHODS.values()}
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
        if fn in ("run", "write", "run_script", "run_script_tx", "run_batched", "tx"
                  ) and target is not None:
            for name in _names(target):
                if "/" not in name:
                    continue
                file = cypher / f"{name}.cypher"
                if not file.exists():
                    problems.append(f"{where}: no Cypher file {name}")
                    continue
                checked["cypher"] += 1
                given = keys | ({"rows"} if fn == "write" else set()) | (
                    {"batch"} if fn == "run_batched" else set())
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
    # judge_relevance / report_categories serve benchmarks/quality/recall.py, report_findings
    # benchmarks/quality/report_grounding.py
    assert files - used <= {"query/judge_relevance", "query/report_categories",
                            "index/report_findings"}, files - used


# where LLM stages are named: the package (never as text), and the benchmarks, which name the
# "bench" stages (a stage no call site in either names is dead)
STAGE_TABLE = PKG / "stages.py"


def _stage_sources(roots=(PKG, PKG.parent / "benchmarks")):
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            if path != STAGE_TABLE:
                yield path, ast.parse(path.read_text())


def _literal(node: ast.expr | None) -> bool:
    """A stage written as text: a string, an f-string, or either arm of an if-else."""
    if isinstance(node, ast.IfExp):
        return _literal(node.body) or _literal(node.orelse)
    return isinstance(node, ast.JoinedStr) or (
        isinstance(node, ast.Constant) and isinstance(node.value, str))


def _stage_positions(trees) -> dict[str, int]:
    """Functions with a ``stage`` parameter: name -> its position when passed positionally (a
    method's ``self`` / ``cls`` not counted). A name whose functions disagree (``Failure.of``
    and ``Refusal.of``) is left out: the call alone cannot tell which one it is."""
    seen: dict[str, set[int | None]] = {}
    for _, tree in trees:
        methods = {id(f) for c in ast.walk(tree) if isinstance(c, ast.ClassDef)
                   for f in c.body if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)
                   and not any(getattr(d, "id", "") == "staticmethod" for d in f.decorator_list)}
        for f in ast.walk(tree):
            if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef):
                names = [a.arg for a in f.args.posonlyargs + f.args.args]
                names = names[1:] if id(f) in methods else names
                seen.setdefault(f.name, set()).add(
                    names.index("stage") if "stage" in names else None)
    return {fn: next(iter(at)) for fn, at in seen.items() if len(at) == 1 and None not in at}


def stage_literals(trees, positions: dict[str, int]) -> list[str]:
    """``path:line: ...`` of each stage written as text in ``trees`` ((path, ast) pairs): a
    ``stage=`` keyword, the ``stage`` position of a function in ``positions``, or the
    default of a ``stage`` parameter."""
    found = []
    for path, tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                fn = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(
                    node.func, "id", "")
                given = [k.value for k in node.keywords if k.arg == "stage"]
                i = positions.get(fn, len(node.args))
                if i < len(node.args) and not any(isinstance(a, ast.Starred)
                                                  for a in node.args[:i + 1]):
                    given.append(node.args[i])
                found += [f"{path}:{node.lineno}: {fn}(... {ast.unparse(v)} ...)"
                          for v in given if _literal(v)]
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                args = node.args.posonlyargs + node.args.args
                pairs = list(zip(args[len(args) - len(node.args.defaults):],
                                 node.args.defaults, strict=True))
                pairs += list(zip(node.args.kwonlyargs, node.args.kw_defaults, strict=True))
                found += [f"{path}:{node.lineno}: {node.name}(stage={ast.unparse(d)})"
                          for a, d in pairs if a.arg == "stage" and _literal(d)]
    return found


def test_every_stage_is_named_through_the_table():
    """No ``stage="..."`` (nor a string passed positionally as a function's ``stage``, nor a
    string default of a ``stage`` parameter) in the package: a stage is ``Stage.<NAME>``, so
    a new one goes into the table first, and a typo is no silent new usage key."""
    trees = [(p.relative_to(PKG.parent), t) for p, t in _stage_sources((PKG,))]
    positions = _stage_positions(trees)
    # the check sees the helpers that take a stage positionally (a keyword one is seen anywhere)
    assert positions.keys() >= {"complete_or_note", "failed_answer", "refused", "check_fits",
                                "budget_setting", "stage", "request"}, positions
    found = stage_literals(trees, positions)
    assert not found, "stages written as text, not Stage.<NAME>:\n" + "\n".join(found)


def test_the_stage_check_finds_each_way_of_writing_a_stage_as_text():
    code = """
async def helper(llm, messages, stage, trace): ...
class Usage:
    def stage(self, stage): ...
async def run(llm, usage, key, kind):
    await llm.complete(m, stage="map")  # 1: a keyword
    await llm.structured(m, M, stage=f"lazy_{kind}")  # 2: an f-string
    await helper(llm, m, "answer", t)  # 3: positional
    usage.stage("rate" if key else "map")  # 4: an if-else of strings
    await llm.complete(m, stage=Stage.MAP)
    await helper(llm, m, Stage.ANSWER, t)
    usage.stage(key)
def summarize(llm, texts, stage="summarize"): ...  # 5: a default
"""
    trees = [(Path("x.py"), ast.parse(code))]
    found = stage_literals(trees, _stage_positions(trees))
    assert sorted(int(f.split(":")[1]) for f in found) == [6, 7, 8, 9, 13], found


def test_every_stage_of_the_table_is_used_and_every_used_one_exists():
    from neo4j_retag.stages import Stage
    used: dict[str, str] = {}
    for path, tree in _stage_sources():
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id == "Stage" and node.attr.isupper()):
                used.setdefault(node.attr, f"{path.relative_to(PKG.parent)}:{node.lineno}")
    unknown = {name: at for name, at in used.items() if name not in Stage.__members__}
    assert not unknown, f"no such stage in stages.py: {unknown}"
    unused = set(Stage.__members__) - set(used)
    assert not unused, f"stages no call site names (drop them from stages.py): {unused}"
