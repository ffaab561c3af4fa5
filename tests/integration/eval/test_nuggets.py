"""`eval --nuggets` end to end: real Neo4j + GDS, the scripted LLM double answering."""

import json

import pytest
from click.testing import CliRunner

from neo4j_retag.cli import main
from neo4j_retag.eval.charts import NUGGET_SIZES
from tests.conftest import double_vars, neo4j_vars

pytestmark = pytest.mark.integration

QUESTION = "What happens to Scrooge?"
# what the double writes: global "The main themes are what the reports say." (citing
# reports), rag "Scrooge met the spirits." (citing a text unit), lazy "The passages tell
# these stories." (citing text units); "Belle" no answer holds
NUGGETS = {"note": "test nuggets", "questions": [{"question": QUESTION, "nuggets": [
    {"id": "themes", "text": "the themes", "aliases": ["MAIN THEMES"]},
    {"id": "spirits", "text": "the spirits", "aliases": ["spirit", "Scrooge + spirits"]},
    {"id": "passages", "text": "the passages", "aliases": ["passages"]},
    {"id": "belle", "text": "Belle", "aliases": ["Belle"]}]}]}


def test_eval_nuggets_scores_every_method_and_writes_table_json_and_chart(indexed, double,
                                                                         tmp_path):
    nfile = tmp_path / "nuggets.json"
    nfile.write_text(json.dumps(NUGGETS))
    out_dir = tmp_path / "out"
    env = double_vars(indexed) | neo4j_vars(indexed)
    res = CliRunner().invoke(main, ["eval", "--nuggets", str(nfile), "--methods",
                                    "global,rag,lazy@5", "--no-judge", "--level", "0",
                                    "--out", str(out_dir), "--json"], env=env)
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["questions"] == [QUESTION] and data["criteria"] == []
    assert double.count("judge") == 0
    recall = {m: s["recall"]["mean"] for m, s in data["nuggets"].items()}
    assert recall == {"global": 0.25, "rag": 0.25, "lazy@5": 0.25}
    assert data["nuggets"]["global"]["citations"]["mean"] >= 1

    answers = {a["method"]: a for a in json.loads((out_dir / "answers.json").read_text())}
    hits = {m: {h["id"]: h for h in a["nuggets"]["hits"]} for m, a in answers.items()}
    assert hits["global"]["themes"]["alias"] == "MAIN THEMES"
    assert hits["global"]["themes"]["sentence"].startswith("The main themes are")
    assert hits["rag"]["spirits"]["alias"] == "Scrooge + spirits"  # "spirit" is not "spirits"
    assert hits["lazy@5"]["passages"]["matched"] and not hits["lazy@5"]["belle"]["matched"]
    # the budget reached the lazy method
    assert answers["lazy@5"]["trace"]["lazy_search"]["budget"] == 5
    # the cited text was read from the graph: the reports and text units hold the story
    assert hits["global"]["belle"]["in_cited"] is not None
    assert answers["global"]["nuggets"]["claims"] == 1  # the double: one claim per sentence
    assert answers["rag"]["llm"]["calls"] >= 1 and answers["rag"]["seconds"] > 0

    table = (out_dir / "nuggets.md").read_text()
    assert "| global | 1 | 0.25 |" in table and f"| {QUESTION} | 1/4 | 1/4 | 1/4 |" in table
    import matplotlib.image as mpimg
    for name, (w, h) in NUGGET_SIZES.items():
        assert mpimg.imread(out_dir / name).shape[:2] == (h, w)

    # the same file as QUESTIONS_FILE; one method is enough without the judge; terminal table
    again = CliRunner().invoke(main, ["eval", str(nfile), "--nuggets", str(nfile),
                                      "--methods", "rag", "--no-judge", "--level", "0",
                                      "--out", str(tmp_path / "again")], env=env)
    assert again.exit_code == 0, again.output
    assert "Nuggets per answer" in again.output and "nuggets.png" in again.output


@pytest.mark.parametrize("args, message", [
    (["--methods", "global,lazy@x"], "budget: Input should be a valid integer"),
    (["--methods", "global,rag@5"], "retrieval: Input should be 'bm25', 'vector' or"),
    (["--methods", "global,rag@budget=5"], "rag takes no option 'budget'"),
    (["--methods", "rag"], "two or more"),  # judged: a pair at least
    (["--generate", "--methods", "global,rag"], "not with --generate"),
])
def test_eval_nuggets_usage_errors(tmp_path, args, message):
    nfile = tmp_path / "nuggets.json"
    nfile.write_text(json.dumps(NUGGETS))
    res = CliRunner().invoke(main, ["eval", "--nuggets", str(nfile), *args])
    assert res.exit_code == 2 and message in res.output


def test_eval_nuggets_bad_file_is_one_line(tmp_path):
    nfile = tmp_path / "nuggets.json"
    nfile.write_text(json.dumps([{"question": "Q?", "nuggets": []}]))
    res = CliRunner().invoke(main, ["eval", "--nuggets", str(nfile), "--methods", "rag",
                                    "--no-judge"])
    assert res.exit_code == 1 and "has no nuggets" in res.output
    assert "Traceback" not in res.output


@pytest.mark.embed
def test_nugget_similarity_with_the_local_embedding_model(indexed, double, tmp_path,
                                                          local_embedding):
    """The real all-MiniLM-L6-v2 matches a paraphrase no alias foresaw, not an unrelated fact,
    and its calls are counted (stage nugget_embed)."""
    double.script["answer"] = lambda b: ("Scrooge met the three spirits who came to him on "
                                         "Christmas Eve. [Data: Sources (0)]")
    nfile = tmp_path / "nuggets.json"
    nfile.write_text(json.dumps({"questions": [{"question": QUESTION, "nuggets": [
        {"id": "ghosts", "text": "Scrooge encounters ghosts", "aliases": ["ghosts"]},
        {"id": "harbour", "text": "The harbour plan divides the town", "aliases": ["harbour"]},
        {"id": "themes", "text": "the themes", "aliases": ["main themes"]}]}]}))
    env = double_vars(indexed) | neo4j_vars(indexed) | {
        "EMBEDDING_BASE_URL": local_embedding["embedding_base_url"],
        "EMBEDDING_MODEL": local_embedding.get("embedding_model", "all-minilm-l6-v2")}
    out_dir = tmp_path / "out"
    res = CliRunner().invoke(main, ["eval", "--nuggets", str(nfile), "--methods", "global,rag",
                                    "--no-judge", "--level", "0", "--nugget-similarity",
                                    "--out", str(out_dir), "--json"], env=env)
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["nugget_similarity"] == 0.45  # the option alone: the default
    answers = {a["method"]: a for a in json.loads((out_dir / "answers.json").read_text())}
    rag = {h["id"]: h for h in answers["rag"]["nuggets"]["hits"]}
    # "Scrooge met the three spirits ..." has no alias of "ghosts" but says it
    assert not rag["ghosts"]["matched"] and rag["ghosts"]["similar"], rag
    assert rag["ghosts"]["similarity"] > 0.6 and "spirits" in rag["ghosts"]["sentence"]
    assert not rag["harbour"]["similar"]
    assert answers["rag"]["nuggets"]["recall"] == 0.0
    assert answers["rag"]["nuggets"]["recall_similar"] == pytest.approx(1 / 3, abs=1e-3)
    glob = {h["id"]: h for h in answers["global"]["nuggets"]["hits"]}
    assert glob["themes"]["matched"] and glob["themes"]["similarity"] is None  # by alias
    assert "+ by embedding" in (out_dir / "nuggets.md").read_text()
    stats = CliRunner().invoke(main, ["stats", "--json"], env=env)
    assert stats.exit_code == 0, stats.output
    assert "nugget_embed" in stats.output
