"""The papers' head-to-head LLM-judge evaluation, on the real Neo4j with the LLM double."""

import json

import pytest
from click.testing import CliRunner

from neo4j_retag.cli import main
from neo4j_retag.eval.charts import SIZES
from neo4j_retag.eval.run import judge
from neo4j_retag.llm import LLM, Usage
from tests.conftest import double_vars, neo4j_vars

pytestmark = pytest.mark.integration


def test_judge_is_order_balanced(settings, double):
    async def go():
        llm = LLM(settings, Usage())
        try:
            return (await judge(llm, settings, "q", "diversity", "a long answer " * 5, "short"),
                    await judge(llm, settings, "q", "diversity", "short", "a long answer " * 5))
        finally:
            await llm.close()
    import asyncio
    assert asyncio.run(go()) == (1.0, 0.0)  # the double prefers the longer answer, both orders


def _env(indexed):
    return double_vars(indexed) | neo4j_vars(indexed)


def test_eval_cli_generates_questions_and_writes_the_folder(indexed, graph, double, tmp_path):
    out_dir = tmp_path / "eval-out"
    out = CliRunner().invoke(main, ["eval", "--generate", "--personas", "2", "--tasks", "1",
                                    "--questions", "1", "--methods", "global,ts,rag",
                                    "--level", "0", "--out", str(out_dir), "--json"],
                             env=_env(indexed))
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["questions"] == ["What are the themes, for task 1 of the historian?",
                                 "What are the themes, for task 1 of the teacher?"]
    assert len(data["win_rates"]) == 3 * 4  # 3 pairs x 4 criteria
    assert all(0 <= r["win_rate"] <= 1 for r in data["win_rates"])
    assert len(data["answers"]) == 2 * 3
    assert data["failures"] == []
    # the folder: questions to edit and reuse, answers with traces, scores, charts
    names = {p.name for p in out_dir.iterdir()}
    assert {"questions.json", "questions.txt", "answers.json", "judgements.json",
            "scores.json", *SIZES} <= names
    scores = json.loads((out_dir / "scores.json").read_text())
    assert scores["win_matrix"]["diversity"]["global"]["global"] is None
    assert set(scores["claims"]) == {"global", "ts", "rag"}
    assert scores["claims"]["rag"]["claims"]["n"] == 2  # every answer's claims extracted
    assert set(scores["claims"]["global"]["clusters"]) == {"0.5", "0.6", "0.7", "0.8"}
    assert scores["cost"]["global"]["llm_calls"]["mean"] >= 2  # map + reduce at least
    answers = json.loads((out_dir / "answers.json").read_text())
    glob = next(a for a in answers if a["method"] == "global")
    assert glob["claims"] and glob["trace"]["context"]
    assert double.count("eval_claims") == 6 and double.count("judge") == 3 * 4 * 2 * 2
    import matplotlib.image as mpimg
    for name, (w, h) in SIZES.items():
        assert mpimg.imread(out_dir / name).shape[:2] == (h, w)

    # the questions file goes back in (edited: one question dropped)
    qfile = out_dir / "questions.json"
    qs = json.loads(qfile.read_text())
    qfile.write_text(json.dumps(qs[:1]))
    again = CliRunner().invoke(main, ["eval", str(qfile), "--methods", "global,rag",
                                      "--level", "0", "--out", str(tmp_path / "again")],
                               env=_env(indexed))
    assert again.exit_code == 0, again.output
    assert "1 questions, level 0, methods global, rag" in again.output
    assert "win_rates.png" in again.output
    assert json.loads((tmp_path / "again" / "scores.json").read_text())["questions"] == [
        qs[0]["question"]]

    # --no-judge: the claim metrics and cost, no judge call
    judged = double.count("judge")
    bare = CliRunner().invoke(main, ["eval", str(qfile), "--methods", "global,rag", "--no-judge",
                                     "--level", "0", "--out", str(tmp_path / "bare"), "--json"],
                              env=_env(indexed))
    assert bare.exit_code == 0, bare.output
    data = json.loads(bare.stdout)
    assert double.count("judge") == judged and data["win_rates"] == []
    assert data["claims"]["global"]["claims"]["n"] == 1
    assert {p.name for p in (tmp_path / "bare").glob("*.png")} == {"claims.png", "cost.png"}


def test_eval_cli_exits_3_and_lists_a_failed_claim_extraction(indexed, graph, double,
                                                              tmp_path):
    from tests.llm_double import Fail

    def claims(body):
        if "what the reports say" in body["messages"][-1]["content"]:  # the global answer
            raise Fail(400)
        return json.dumps({"claims": ["A claim."]})
    double.script["eval_claims"] = claims
    qfile = tmp_path / "q.txt"
    qfile.write_text("What are the themes?\n")
    out = CliRunner().invoke(main, ["eval", str(qfile), "--methods", "global,rag", "--level",
                                    "0", "--out", str(tmp_path / "o"), "--json"],
                             env=_env(indexed))
    assert out.exit_code == 3, out.output
    data = json.loads(out.stdout)
    assert len(data["failures"]) == 1
    assert data["failures"][0]["item"] == "claims of global's answer to 'What are the themes?'"
    assert data["failures"][0]["reason"] == "http400"
    assert "failed: claims of global's answer" in out.stderr
    scores = json.loads((tmp_path / "o" / "scores.json").read_text())
    assert scores["claims"]["global"]["claims"]["n"] == 0
    # rag could not answer (the no-answer sentence): 0 claims, without asking the LLM
    assert scores["claims"]["rag"]["claims"] == {"mean": 0, "std": 0, "n": 1}
    assert double.count("eval_claims") == 1
    assert len(scores["win_rates"]) == 4  # the judge still compared the answers


def test_eval_resume_pays_only_the_answers_a_stopped_run_lacks(indexed, double, tmp_path):
    """A run whose global answer to the second question failed (as a killed run's missing
    answer) is finished by `--resume`: the three saved answers and their claims are kept, only
    the missing one is asked (LLM cache off: a kept answer costs no call, cached or not)."""
    from tests.llm_double import DEFAULTS, Fail

    def map_(body):  # every map batch of that answer fails: it has no answer
        if "second" in json.dumps(body["messages"]):
            raise Fail(500)
        return DEFAULTS["map"](body)
    double.script["map"] = map_
    qfile = tmp_path / "q.txt"
    qfile.write_text("What are the themes?\nWhat is the second theme?\n")
    out_dir = tmp_path / "o"
    args = ["eval", str(qfile), "--methods", "global,rag", "--no-judge", "--level", "0",
            "--out", str(out_dir), "--json"]
    env = _env(indexed) | {"LLM_CACHE": "false"}
    first = CliRunner().invoke(main, args, env=env)
    assert first.exit_code == 3, first.output
    saved = json.loads((out_dir / "answers.json").read_text())
    assert [(a["method"], a["error"] is None) for a in saved] == [
        ("global", True), ("rag", True), ("global", False), ("rag", True)]
    assert len({a["settings"] for a in saved}) == 1
    one_map = saved[0]["llm_stages"]["map"]["calls"]  # an answer's map calls
    before = {k: double.count(k) for k in ("map", "reduce", "eval_claims")}

    double.script["map"] = DEFAULTS["map"]
    again = CliRunner().invoke(main, [*args, "--resume"], env=env)
    assert again.exit_code == 0, again.output
    data = json.loads(again.stdout)
    assert data["resumed"] == 3 and data["failures"] == []
    assert "--resume: 3 saved answers and 0 verdicts kept" in again.stderr
    assert "1 saved answers had failed: asked again" in again.stderr
    paid = {k: double.count(k) - n for k, n in before.items()}
    assert one_map >= 1 and paid == {"map": one_map, "reduce": 1, "eval_claims": 1}
    answers = json.loads((out_dir / "answers.json").read_text())
    assert len(answers) == 4 and all(a["answer"] for a in answers)
    scores = json.loads((out_dir / "scores.json").read_text())
    assert scores["claims"]["rag"]["claims"]["n"] == 2  # kept claims count, none lost

    # judged now: every answer kept, the verdicts asked once; a second rerun pays nothing
    judged = [a for a in args if a != "--no-judge"] + ["--resume"]
    calls = double.count()
    once = CliRunner().invoke(main, judged, env=env)
    assert once.exit_code == 0, once.output
    assert double.count() - calls == double.count("judge") == 2 * 4 * 2  # q x criteria x orders
    calls = double.count()
    twice = CliRunner().invoke(main, judged, env=env)
    assert twice.exit_code == 0, twice.output
    assert double.count() == calls and "4 saved answers and 8 verdicts kept" in twice.stderr
    assert json.loads(twice.stdout)["win_rates"] == json.loads(once.stdout)["win_rates"]

    # --resume needs the folder it reads
    bad = CliRunner().invoke(main, ["eval", str(qfile), "--methods", "global", "--no-judge",
                                    "--resume"], env=env)
    assert bad.exit_code == 2 and "--resume keeps the answers saved in --out" in bad.output
