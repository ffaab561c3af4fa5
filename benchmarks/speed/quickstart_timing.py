"""Benchmark (not a test): the time split of `bash scripts/quickstart.sh` on a fresh clone -
setup, first answer, full index - recorded to JSON.

    python3 -m benchmarks.speed.quickstart_timing [--clone DIR] [--home DIR] [--pip-cache DIR]
        [--bolt-port 7687 --http-port 7474 --llm-port 8088] [--label NAME] [--keep-services]

Standard library only (it runs before the set-up it measures): clones this checkout's HEAD
(``git clone``, a fresh work tree with no ``.venv``) into ``--clone`` (default: a new temporary
folder), gives it an empty ``NEO4J_RETAG_HOME`` (``--home``, default ``<clone>/.retag-home``)
and an empty pip cache (``PIP_CACHE_DIR``, default ``<clone>/.pip-cache``; the user's pip cache
is never touched), runs the quickstart there with the given ports, echoes its output, keeps it
in ``<clone>/quickstart.log`` and records when each ``[quickstart +MM:SS] ...`` milestone line
was printed. Then stops the clone's services (``neo4j-retag down`` with the same environment)
unless ``--keep-services``. Writes bench-results/quickstart_timing[_<label>].json:

* ``milestones``: [{label, seconds}] since the command started;
* ``split``: ``setup`` (start -> setup done), ``first_answer`` (start -> the lazy answer
  printed), ``full_index`` (the first answer -> the full index built), ``full_answers`` (the
  full index -> the global and ReTAG answers), ``total``;
* ``exit_code``, the machine (cores, load averages at start and end), the ports and folders.

The time that counts for issue 22 is measured on an otherwise idle machine; the load averages
say how idle it was.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
MILESTONE = re.compile(r"^\[quickstart \+(\d+):(\d\d)\] (.*)$")


def split(milestones: list[dict[str, Any]]) -> dict[str, float | None]:
    """The phases from the milestone labels quickstart.sh prints."""
    at: dict[str, float] = {}
    for m in milestones:
        key = m["label"].split(" (")[0]
        at.setdefault(key, m["seconds"])

    def span(a: str, b: str) -> float | None:
        return round(at[b] - at.get(a, 0.0), 1) if b in at and (a == "start" or a in at) \
            else None

    first = "first answer" if "first answer" in at else "first answer failed"
    return {"setup": span("start", "setup done"),
            "services": span("setup done", "services up"),
            "first_answer": span("start", first),
            "full_index": span(first, "full index built"),
            "full_answers": span("full index built", "default answer"),
            "total": span("start", "done")}


def result_path(label: str) -> Path:
    return ROOT / "bench-results" / (f"quickstart_timing_{label}.json" if label
                                     else "quickstart_timing.json")


def save(out: dict[str, Any]) -> Path:
    """Written at every milestone too: a run stopped half-way keeps what it measured."""
    out["split"] = split(out["milestones"])
    path = result_path(out["label"])
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(out, indent=2) + "\n")
    return path


def run(args: argparse.Namespace) -> dict[str, Any]:
    clone = args.clone or Path(tempfile.mkdtemp(prefix="retag-quickstart-"))
    if not (clone / ".git").exists():
        subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    home = args.home or clone / ".retag-home"
    pip_cache = args.pip_cache or clone / ".pip-cache"
    for folder in (home, pip_cache):
        if folder.exists() and any(folder.iterdir()):
            sys.exit(f"{folder} is not empty: the timing is for a fresh machine")
        folder.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "NEO4J_RETAG_HOME": str(home), "PIP_CACHE_DIR": str(pip_cache),
           "NEO4J_BOLT_PORT": str(args.bolt_port), "NEO4J_HTTP_PORT": str(args.http_port),
           "LLM_PORT": str(args.llm_port)}
    for var in ("VIRTUAL_ENV", "PYTHONPATH", "NEO4J_DATA", "OPENAI_BASE_URL", "LLM_CACHE_DIR"):
        env.pop(var, None)  # the clone's own .venv, data and local LLM only
    out: dict[str, Any] = {
        "label": args.label, "clone": str(clone), "home": str(home), "pip_cache": str(pip_cache),
        "ports": {"bolt": args.bolt_port, "http": args.http_port, "llm": args.llm_port},
        "commit": subprocess.run(["git", "-C", str(clone), "rev-parse", "HEAD"],
                                 capture_output=True, text=True).stdout.strip(),
        "cores": os.cpu_count(), "loadavg_start": os.getloadavg(),
        "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "milestones": []}
    t0 = time.time()
    env["QUICKSTART_T0"] = str(int(t0))
    log = clone / "quickstart.log"
    with log.open("w") as f:
        proc = subprocess.Popen(["bash", "scripts/quickstart.sh"], cwd=clone, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                bufsize=1)
        assert proc.stdout is not None
        for line in proc.stdout:
            sys.stdout.write(line)
            f.write(line)
            if m := MILESTONE.match(line.strip()):
                out["milestones"].append({"label": m.group(3),
                                          "seconds": round(time.time() - t0, 1)})
                save(out)
        out["exit_code"] = proc.wait()
    out["seconds"] = round(time.time() - t0, 1)
    out["loadavg_end"] = os.getloadavg()
    if not args.keep_services and (clone / ".venv" / "bin" / "neo4j-retag").exists():
        subprocess.run([str(clone / ".venv" / "bin" / "neo4j-retag"), "down"], cwd=clone,
                       env=env, check=False)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clone", type=Path, default=None, help="fresh clone (made if missing)")
    ap.add_argument("--home", type=Path, default=None, help="empty NEO4J_RETAG_HOME")
    ap.add_argument("--pip-cache", type=Path, default=None, help="empty PIP_CACHE_DIR")
    ap.add_argument("--bolt-port", type=int, default=7687)
    ap.add_argument("--http-port", type=int, default=7474)
    ap.add_argument("--llm-port", type=int, default=8088)
    ap.add_argument("--label", default="", help="names the result file")
    ap.add_argument("--keep-services", action="store_true",
                    help="leave the clone's Neo4j and LLM running")
    args = ap.parse_args()
    result = run(args)
    path = save(result)
    print(json.dumps(result["split"]), f"exit {result['exit_code']}", f"wrote {path}")


if __name__ == "__main__":
    main()
