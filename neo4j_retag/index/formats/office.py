"""PowerPoint (.pptx: python-pptx) as its audience sees it: each shown slide's text frames,
in groups at any depth, and tables (as Markdown), then its speaker notes marked as notes;
hidden slides are skipped and counted. Also the opening of an Office package that Word
(index/formats/word.py) shares."""

from __future__ import annotations

import zipfile
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


def _shape_texts(shapes: Iterable) -> Iterator[str]:
    """The text of each shape, a group's shapes walked into at any depth."""
    for shape in shapes:
        if shape.shape_type == MSO_SHAPE_TYPE.GROUP:
            yield from _shape_texts(shape.shapes)
        elif shape.has_text_frame and shape.text_frame.text.strip():
            yield shape.text_frame.text.strip()
        elif getattr(shape, "has_table", False) and shape.has_table:
            yield markdown_table([[c.text for c in row.cells] for row in shape.table.rows])


def read_pptx(path: Path, progress: Progress) -> Iterator[Part]:
    """One `Part` per shown slide (``slide`` from 1, hidden slides counted too): its
    shapes' text and tables, then ``Notes: ...``; a hidden slide gives an empty part counted
    in ``lost`` as ``hidden-slides``. Raises Unreadable: mismatched, corrupt."""
    deck = open_package(pptx.Presentation, path)
    for i, slide in enumerate(deck.slides, 1):
        if slide._element.get("show") in ("0", "false"):  # hidden in the slide show
            yield Part("", slide=i, lost={"hidden-slides": 1})
            continue
        lines = list(_shape_texts(slide.shapes))
        if slide.has_notes_slide and slide.notes_slide.notes_text_frame is not None:
            notes = slide.notes_slide.notes_text_frame.text.strip()
            if notes:
                lines.append(f"Notes: {notes}")
        yield Part("\n\n".join(line for line in lines if line), slide=i)
