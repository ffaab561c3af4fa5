"""The eval charts' error bars: counts and costs never reach below 0."""

import matplotlib
import pytest

from neo4j_retag.eval import charts as eval_charts
from neo4j_retag.eval.records import Stats

matplotlib.use("Agg")


def test_error_bars_are_cut_at_zero():
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots()
    eval_charts._bars(ax, ["retag", "global"], [("claims", [Stats(mean=0.5, std=1.8, n=2),
                                                             Stats(mean=3.0, std=1.0, n=2)])])
    (bars,) = [c for c in ax.containers if hasattr(c, "errorbar")]
    lows = [seg[0][1] for seg in bars.errorbar.lines[2][0].get_segments()]
    highs = [seg[1][1] for seg in bars.errorbar.lines[2][0].get_segments()]
    assert lows == pytest.approx([0.0, 2.0]) and highs == pytest.approx([2.3, 4.0])
    plt.close(fig)
