"""PowerPoint (.pptx: python-pptx) as its audience sees it: each shown slide's text frames,
in groups at any depth, tables (as Markdown) and charts (title, categories by series), then
its speaker notes marked as notes; hidden slides and shapes hidden in the Selection Pane are
skipped and counted. Also the opening of an Office package that Word
(index/formats/word.py) shares."""

from __future__ import annotations

import zipfile
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path

import pptx
from pptx.enum.shapes import MSO_SHAPE_TYPE

from ...model import Progress
from .base import Part, Unreadable
from .tables import markdown_table


def open_package(fn, path: Path):  # noqa: ANN001, ANN201 - Document / Presentation
    """``fn(path)`` (its content checked against its row of the reader table before);
    raises Unreadable (corrupt) for a package that cannot be opened."""
    try:
        return fn(str(path))
    except (zipfile.BadZipFile, KeyError, ValueError, OSError) as err:
        raise Unreadable("corrupt", f"corrupt {path.suffix} archive: {err}") from err
    except Exception as err:  # noqa: BLE001 - the libraries' own package errors
        raise Unreadable("corrupt", f"corrupt {path.suffix} file: "
                                    f"{type(err).__name__}: {err}") from err


def _hidden(shape) -> bool:  # noqa: ANN001 - a python-pptx shape
    """A shape hidden in the Selection Pane (``hidden="1"`` on its ``p:cNvPr``): not shown
    in the slide show."""
    return any(v in ("1", "true") for v in shape._element.xpath("./*/p:cNvPr/@hidden"))


def _number(value: float | None) -> str:
    return "" if value is None else f"{value:g}"


def _title(chart, axis: str | None = None) -> str:  # noqa: ANN001 - a python-pptx Chart
    """The title of ``chart`` or of its ``axis`` (``value_axis``, ``category_axis``); ""
    when it has none (a pie chart has no axes)."""
    try:
        obj = getattr(chart, axis) if axis else chart
        if not obj.has_title:
            return ""
        return (obj.axis_title if axis else obj.chart_title).text_frame.text.strip()
    except (ValueError, AttributeError):
        return ""


def _chart(chart) -> str:  # noqa: ANN001 - a python-pptx Chart
    """``Chart: <title> (<value axis title>)``, then per plot a Markdown table of its
    categories by series (the category axis title as the corner); a plot without categories
    (XY, bubble) names its series."""
    values = _title(chart, "value_axis")
    lines = [" ".join(t for t in ("Chart:", _title(chart), values and f"({values})") if t)]
    for plot in chart.plots:
        series = list(plot.series)
        categories = [str(c) for c in plot.categories]
        if categories:
            rows = [[_title(chart, "category_axis"), *(s.name for s in series)]]
            rows += [[c, *(_number(s.values[i]) if i < len(s.values) else "" for s in series)]
                     for i, c in enumerate(categories)]
            lines.append(markdown_table(rows))
        elif series:
            lines.append("Series: " + ", ".join(s.name for s in series))
    return "\n\n".join(lines)


def _texts(shape, lost: Counter[str]) -> Iterator[str]:  # noqa: ANN001
    if shape.shape_type == MSO_SHAPE_TYPE.GROUP:
        yield from _shape_texts(shape.shapes, lost)
    elif shape.has_text_frame and shape.text_frame.text.strip():
        yield shape.text_frame.text.strip()
    elif getattr(shape, "has_table", False) and shape.has_table:
        yield markdown_table([[c.text for c in row.cells] for row in shape.table.rows])
    elif getattr(shape, "has_chart", False) and shape.has_chart:
        yield _chart(shape.chart)


def _shape_texts(shapes: Iterable, lost: Counter[str]) -> Iterator[str]:
    """The text of each shown shape: text frames, tables and charts, a group's shapes walked
    into at any depth; a hidden shape that holds text is counted in ``lost``."""
    for shape in shapes:
        if _hidden(shape):
            lost["hidden-shapes"] += any(t.strip() for t in _texts(shape, Counter()))
        else:
            yield from _texts(shape, lost)


def read_pptx(path: Path, progress: Progress) -> Iterator[Part]:
    """One `Part` per shown slide (``slide`` from 1, hidden slides counted too): its
    shapes' text, tables and charts, then ``Notes: ...``; a hidden slide gives an empty part
    counted in ``lost`` as ``hidden-slides``, a hidden shape with text is counted as
    ``hidden-shapes``. Raises Unreadable: corrupt."""
    deck = open_package(pptx.Presentation, path)
    for i, slide in enumerate(deck.slides, 1):
        if slide._element.get("show") in ("0", "false"):  # hidden in the slide show
            yield Part("", slide=i, lost={"hidden-slides": 1})
            continue
        lost: Counter[str] = Counter()
        lines = list(_shape_texts(slide.shapes, lost))
        if slide.has_notes_slide and slide.notes_slide.notes_text_frame is not None:
            notes = slide.notes_slide.notes_text_frame.text.strip()
            if notes:
                lines.append(f"Notes: {notes}")
        yield Part("\n\n".join(line for line in lines if line), slide=i,
                   lost={k: n for k, n in lost.items() if n})
