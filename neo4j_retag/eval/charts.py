"""PNG charts of an evaluation run (matplotlib, Agg backend): the head-to-head win-rate
matrix per criterion (the papers' heat maps), claim and cluster counts per method with
error bars (Edge et al. 2025), and prompt tokens / LLM calls / seconds per method.

Figures have fixed sizes (:data:`SIZES`, pixels at 100 dpi, no tight cropping) so that a
test can check that every PNG decodes at the right size.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from . import require
from .records import Scores, Stats

DPI = 100
SIZES = {"win_rates.png": (1000, 900), "claims.png": (1200, 500), "cost.png": (1200, 420)}
NUGGET_SIZES = {"nuggets.png": (1200, 420)}  # `eval --nuggets` only


def _plt() -> Any:
    require("matplotlib").use("Agg")  # no display: files only
    return require("matplotlib.pyplot")


def _figure(plt: Any, name: str, rows: int, cols: int) -> tuple[Any, Any]:
    w, h = (SIZES | NUGGET_SIZES)[name]
    fig, axes = plt.subplots(rows, cols, figsize=(w / DPI, h / DPI), dpi=DPI, squeeze=False)
    return fig, axes.ravel()


def _save(plt: Any, fig: Any, folder: Path, name: str) -> Path:
    path = folder / name
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


def win_rate_chart(plt: Any, folder: Path, result: Scores) -> Path:
    """One heat map per criterion: row method's win rate against the column method."""
    np = require("numpy")
    methods, criteria = result.methods, result.criteria
    cols = 2 if len(criteria) > 1 else 1
    fig, axes = _figure(plt, "win_rates.png", (len(criteria) + cols - 1) // cols, cols)
    for ax, c in zip(axes, criteria, strict=False):
        m = result.win_matrix[c]
        grid = np.array([[np.nan if m[r][k] is None else 100 * m[r][k] for k in methods]
                         for r in methods], dtype=float)
        ax.imshow(np.ma.masked_invalid(grid), cmap="RdYlGn", vmin=0, vmax=100)
        ax.set_xticks(range(len(methods)), methods, rotation=30, ha="right")
        ax.set_yticks(range(len(methods)), methods)
        for i in range(len(methods)):
            for j in range(len(methods)):
                ax.text(j, i, "-" if np.isnan(grid[i, j]) else f"{grid[i, j]:.0f}",
                        ha="center", va="center", fontsize=9)
        ax.set_title(f"{c}: row wins vs column (%)", fontsize=10)
    for ax in axes[len(criteria):]:
        ax.axis("off")
    fig.suptitle(f"Head-to-head win rates, {len(result.questions)} questions")
    fig.subplots_adjust(left=0.12, right=0.97, top=0.9, bottom=0.1, hspace=0.45, wspace=0.4)
    return _save(plt, fig, folder, "win_rates.png")


def _bars(ax: Any, labels: list[str], series: list[tuple[str, list[Stats]]]) -> None:
    """Grouped bars (one group per label, one bar per series) with std error bars, cut at 0
    (every quantity charted is a count or a cost)."""
    width = 0.8 / max(len(series), 1)
    for s, (name, values) in enumerate(series):
        xs = [i + (s - (len(series) - 1) / 2) * width for i in range(len(labels))]
        means = [v.mean or 0 for v in values]
        stds = [v.std or 0 for v in values]
        ax.bar(xs, means, width, yerr=[[min(m, d) for m, d in zip(means, stds, strict=True)],
                                       stds], capsize=3, label=name)
    # 9 method names (global-dynamic, lazy@100) side by side in a third of 1200 px: at 40°
    # they no longer run into each other
    ax.set_xticks(range(len(labels)), labels, rotation=40, ha="right", fontsize=9)


def claims_chart(plt: Any, folder: Path, result: Scores) -> Path:
    """Comprehensiveness (unique claims) and diversity (clusters per τ) per method."""
    methods, claims = result.methods, result.claims
    fig, (left, right) = _figure(plt, "claims.png", 1, 2)
    _bars(left, methods, [("claims", [claims[m].claims for m in methods])])
    left.set_title("Comprehensiveness: unique claims per answer", fontsize=10)
    _bars(right, methods, [(f"τ={t}", [claims[m].clusters[t] for m in methods])
                           for t in result.taus])
    right.set_title("Diversity: claim clusters per answer", fontsize=10)
    right.legend(fontsize=8, ncols=len(result.taus), loc="lower center",
                 bbox_to_anchor=(0.5, -0.45))
    fig.subplots_adjust(left=0.06, right=0.98, top=0.9, bottom=0.36, wspace=0.2)
    return _save(plt, fig, folder, "claims.png")


def cost_chart(plt: Any, folder: Path, result: Scores) -> Path:
    """Prompt tokens, LLM calls and seconds per answer, per method."""
    methods, cost = result.methods, result.cost
    fig, axes = _figure(plt, "cost.png", 1, 3)
    for ax, (key, title) in zip(axes, (("prompt_tokens", "Prompt tokens per answer"),
                                       ("llm_calls", "LLM calls per answer"),
                                       ("seconds", "Seconds per answer")), strict=True):
        _bars(ax, methods, [(key, [getattr(cost[m], key) for m in methods])])
        ax.set_title(title, fontsize=10)
    fig.subplots_adjust(left=0.06, right=0.98, top=0.88, bottom=0.28, wspace=0.3)
    return _save(plt, fig, folder, "cost.png")


def nugget_chart(plt: Any, folder: Path, result: Scores) -> Path:
    """Per method, bars with std error bars: nugget recall, the share of claims the cited text
    supports, citations per answer (`eval --nuggets`)."""
    methods, ns = result.methods, result.nuggets or {}
    fig, axes = _figure(plt, "nuggets.png", 1, 3)
    for ax, (key, title) in zip(axes, (("recall", "Nugget recall per answer"),
                                       ("supported", "Claims supported by cited text"),
                                       ("citations", "Citations per answer")), strict=True):
        series = [(key, [getattr(ns[m], key) for m in methods])]
        if key == "recall" and any(ns[m].recall_similar for m in methods):
            series = [("by alias", series[0][1]),
                      ("+ by embedding", [ns[m].recall_similar or ns[m].recall
                                          for m in methods])]
        _bars(ax, methods, series)
        if len(series) > 1:
            ax.legend(fontsize=8)
        if key != "citations":
            ax.set_ylim(0, 1.05)
        ax.set_title(title, fontsize=10)
    fig.subplots_adjust(left=0.06, right=0.98, top=0.88, bottom=0.28, wspace=0.3)
    return _save(plt, fig, folder, "nuggets.png")


def write_charts(folder: Path, result: Scores) -> list[Path]:
    """The PNGs of :data:`SIZES` in ``folder``; no win-rate chart for an evaluation without
    judgements (``eval --no-judge``); ``nuggets.png`` (:data:`NUGGET_SIZES`) with nuggets."""
    plt = _plt()
    wins = [win_rate_chart(plt, folder, result)] if result.criteria else []
    nuggets = [nugget_chart(plt, folder, result)] if result.nuggets else []
    return wins + [claims_chart(plt, folder, result), cost_chart(plt, folder, result)] + nuggets
