"""Claim-based metrics (Edge et al. 2025) on small fixed claim lists, against hand-computed
ROUGE-L F1 and cluster counts."""

import pytest

from neo4j_retag.eval.claims import (
    agreement,
    claim_metrics,
    cluster_counts,
    distances,
    rouge_l,
    unique_claims,
)
from neo4j_retag.eval.records import Metrics, Tally


def test_rouge_l_by_hand():
    # LCS "the cat on mat" = 4 of 6 tokens each: P = R = 4/6, F1 = 2/3
    assert rouge_l("the cat sat on the mat", "the cat lay on a mat") == pytest.approx(2 / 3)
    # LCS "scrooge is" = 2; P = 2/3, R = 2/4 -> F1 = 2PR/(P+R) = 4/7 (tokens lower-cased)
    assert rouge_l("Scrooge is a miser", "Scrooge is generous") == pytest.approx(4 / 7)
    assert rouge_l("ghosts visit", "money matters") == 0.0
    assert rouge_l("Tiny Tim lives.", "tiny tim lives") == 1.0  # punctuation and case ignored


def test_distances_in_scipy_condensed_order():
    d = distances(["red green blue", "red green", "cyan"])
    # (0,1): LCS 2, P = 1, R = 2/3 -> F1 = 0.8; (0,2) and (1,2): nothing shared
    assert d == pytest.approx([0.2, 1.0, 1.0])


CHAIN = ["red green blue pink gray", "blue pink gray cyan teal", "gray cyan teal gold jade"]


def test_complete_linkage_does_not_chain():
    # d(0,1) = 1 - 3/5 = 0.4 (LCS blue pink gray), d(1,2) = 0.4 (gray cyan teal),
    # d(0,2) = 1 - 1/5 = 0.8 (gray). Complete linkage: {0,1} (or {1,2}) at 0.4, then the
    # third joins at max distance 0.8. Single linkage would give one cluster below 0.8.
    assert cluster_counts(CHAIN, [0.3, 0.5, 0.7, 0.9]) == {"0.3": 3, "0.5": 2, "0.7": 2,
                                                           "0.9": 1}


def test_cluster_counts_at_the_papers_thresholds():
    claims = ["the cat sat on the mat", "the cat lay on a mat",      # d = 1/3
              "dogs bark at night", "dogs bark loudly at night"]     # d = 1 - 8/9 = 1/9
    # the two pairs merge (1/3 and 1/9 <= 0.5), the pairs share no token (d = 1)
    assert cluster_counts(claims) == {"0.5": 2, "0.6": 2, "0.7": 2, "0.8": 2}
    assert cluster_counts(claims, [0.2]) == {"0.2": 3}  # 1/3 > 0.2: the cats stay apart
    assert cluster_counts([]) == {"0.5": 0, "0.6": 0, "0.7": 0, "0.8": 0}
    assert cluster_counts(["one claim"])["0.8"] == 1


def test_duplicates_within_an_answer_are_removed():
    assert unique_claims(["Scrooge is a miser.", "scrooge  is a miser", "", "Tim is ill"]) == [
        "Scrooge is a miser.", "Tim is ill"]
    m = claim_metrics(["A b c.", "a b c", "x y z"])
    assert m.claims == 2 and m.clusters["0.5"] == 2


def test_agreement_on_non_tied_pairs_only():
    def met(claims, clusters):
        return Metrics(claims=claims, clusters={"0.5": clusters})

    pairs = [
        ("comprehensiveness", 1.0, met(5, 1), met(3, 1)),  # agree
        ("comprehensiveness", 0.25, met(5, 1), met(3, 1)),  # disagree
        ("comprehensiveness", 0.5, met(5, 1), met(3, 1)),  # judge tie
        ("comprehensiveness", 1.0, met(4, 1), met(4, 1)),  # metric tie
        ("comprehensiveness", 1.0, None, met(4, 1)),  # failed metrics
        ("diversity", 0.0, met(1, 2), met(1, 3)),  # agree
        ("directness", 0.0, met(1, 2), met(9, 3)),  # ignored
    ]
    out = agreement(pairs)
    assert out.comprehensiveness == Tally(agree=1, pairs=2, rate=0.5)
    assert out.diversity == {"0.5": Tally(agree=1, pairs=1, rate=1.0)}
    assert agreement([]).comprehensiveness.rate is None


def test_a_missing_eval_extra_names_the_pip_line(monkeypatch):
    import sys

    from neo4j_retag.errors import ConfigError
    from neo4j_retag.eval import require, require_extra
    for name in ("scipy", "scipy.cluster.hierarchy"):  # None in sys.modules: ImportError
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(ConfigError, match=r"needs scipy: pip install 'neo4j-retag\[eval\]'"):
        require("scipy.cluster.hierarchy")
    with pytest.raises(ConfigError, match="scipy"):
        require_extra()
