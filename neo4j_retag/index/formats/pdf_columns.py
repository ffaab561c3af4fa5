"""A page's reading order when its text stands in columns side by side: PDFium reads a line
of each column as one line when the columns are drawn line by line ("left line 1 right line
1"). Columns are found by the x positions of PDFium's text rectangles: a vertical gutter
that no text crosses (but lines spanning the columns: a title, a figure's caption), with
lines on both sides at the same heights, each side's lines long (prose, not a table's
cells). Such a
page is read band by band from the top (a spanning line is a band of its own), each band's
columns left to right; three or more columns too.

Not found as columns: a page with fewer than `MIN_LINES` lines side by side, columns whose
lines are not at the same heights (PDFium then reads them in their drawing order, mostly
right), a gutter narrower than `MIN_GUTTER`, columns of short lines (`PROSE`). A table of
two wide columns of wrapped text can look like two columns and be read column by column."""

from __future__ import annotations

from statistics import median

Rect = tuple[float, float, float, float]  # left, bottom, right, top (PDF points)
MIN_LINES = 4  # lines side by side, at one height, before a page counts as columns
MIN_GUTTER = 8.0  # points between columns (a word space is 2-4)
PROSE = 10.0  # a column's lines, by median, are this many times as wide as high (about 20
# letters or more): prose, not a table's cells
ACROSS = 0.25  # lines crossing the gutter (titles, captions) at most this share


def _line(r: Rect) -> int:
    return round((r[1] + r[3]) / 6)


def _gutter(rects: list[Rect]) -> float | None:
    """The x of the widest vertical gap between columns, or None (see the module)."""
    if len(rects) < 2 * MIN_LINES:
        return None
    x0, x1 = min(r[0] for r in rects), max(r[2] for r in rects)
    lo, hi = x0 + 0.15 * (x1 - x0), x1 - 0.15 * (x1 - x0)
    events = sorted([(r[0], 1) for r in rects] + [(r[2], -1) for r in rects])
    best: tuple[int, float, float] | None = None  # (crossing, -width, x)
    depth = 0
    for (x, step), (nxt, _) in zip(events, events[1:], strict=False):
        depth += step
        a, b = max(x, lo), min(nxt, hi)
        if b - a >= MIN_GUTTER and nxt - x >= MIN_GUTTER:
            key = (depth, -(nxt - x), (x + nxt) / 2)
            best = key if best is None or key < best else best
    if best is None or best[0] > ACROSS * len(rects):
        return None
    g = best[2]
    left = [r for r in rects if r[2] <= g]
    right = [r for r in rects if r[0] >= g]
    if not left or not right:
        return None
    lines = {_line(r) for r in right}  # a line's middle, in steps of 3 points
    beside = sum(1 for r in left if {_line(r) - 1, _line(r), _line(r) + 1} & lines)
    if beside < MIN_LINES:
        return None
    if any(median((r[2] - r[0]) / max(r[3] - r[1], 1.0) for r in side) < PROSE
           for side in (left, right)):
        return None
    return g


def _merged(rects: list[Rect]) -> list[Rect]:
    """Rectangles of one line closer than a gutter joined: a line drawn word by word is one
    line."""
    out: list[Rect] = []
    for r in sorted(rects, key=lambda r: (_line(r), r[0])):
        if out and _line(out[-1]) == _line(r) and r[0] - out[-1][2] < MIN_GUTTER:
            last = out.pop()
            r = (last[0], min(last[1], r[1]), max(last[2], r[2]), max(last[3], r[3]))
        out.append(r)
    return out


def reading_boxes(rects: list[Rect], box: Rect) -> list[Rect]:
    """The areas of ``box`` to read one after another: ``[box]`` for text in one column;
    else bands from the top, each band's columns left to right."""
    rects = _merged(rects)
    g = _gutter(rects)
    if g is None:
        return [box]
    bands: list[tuple[bool, list[Rect]]] = []  # (crosses the gutter, its rects), top down
    for r in sorted(rects, key=lambda r: -r[3]):
        across = r[0] < g < r[2]
        if bands and not across and not bands[-1][0]:
            bands[-1][1].append(r)
        else:
            bands.append((across, [r]))
    tops = [max(r[3] for r in rs) for _, rs in bands]
    bottoms = [min(r[1] for r in rs) for _, rs in bands]
    if any(bottoms[i] < tops[i + 1] for i in range(len(bands) - 1)):
        return [box]  # bands that overlap: no clean cut between them
    out: list[Rect] = []
    for i, (across, rs) in enumerate(bands):
        top = box[3] if i == 0 else (bottoms[i - 1] + tops[i]) / 2
        bottom = box[1] if i == len(bands) - 1 else (bottoms[i] + tops[i + 1]) / 2
        if across:
            out.append((box[0], bottom, box[2], top))
            continue
        for part, limits in (([r for r in rs if r[2] <= g], (box[0], bottom, g, top)),
                             ([r for r in rs if r[0] >= g], (g, bottom, box[2], top))):
            if part:
                out += reading_boxes(part, limits)
    return out
