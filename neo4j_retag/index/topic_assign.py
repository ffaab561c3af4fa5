"""Topic assignment (``assign`` mode of ReTAG topic subgraphs, index/topics.py): the LLM
labels text units with the corpus topics they concern; a topic's subgraph is what those text
units produced.

One text unit per call (``ASSIGN_BATCH``): a batch of several shares one call, paying the
instructions and the topic listing once, but four per call labelled 3 of 6 test units with
their own category against 5 of 6 one by one (docs/indexing.md); the benchmarks still measure
batches (``batch``).
The schema asks for one labelled list per passage (``passage_1`` ... ``passage_k``, all
required), so a reply cannot silently drop a passage; a batch whose call fails fails each of
its text units (a `Failure` each: they are labelled by the next run).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Literal

from pydantic import BaseModel, create_model

from ..config import Settings
from ..db import Graph, Record
from ..errors import Failure, LLMError
from ..llm import LLM
from ..model import Progress, TextUnit
from ..prompts import defused, render
from ..stages import Stage
from .topic_names import Topic

log = logging.getLogger(__name__)

ASSIGN_BATCH = 1  # text units per assignment call (module docstring)


def labels_model(names: tuple[str, ...], size: int) -> type[BaseModel]:
    """The reply of a call labelling ``size`` text units: a list of topic names (an enum of
    ``names``) per passage; one unit keeps the single-passage shape (``topics``)."""
    item: Any = list[Literal[names]]  # type: ignore[valid-type]
    if size == 1:
        return create_model("TopicLabels", topics=(item, []))
    return create_model(f"TopicLabels{size}",
                        **{f"passage_{i}": (item, ...) for i in range(1, size + 1)})


def _messages(listing: str, units: list[TextUnit]) -> list[dict[str, str]]:
    if len(units) == 1:
        return render("index/assign_topics", topics=listing, text=units[0].text)
    # each passage in its own block, whose tag its text cannot write (prompts.defused)
    passages = "\n\n".join(f'<text passage="{i}">\n{defused(u.text, ("text", "data"))}\n</text>'
                           for i, u in enumerate(units, 1))
    return render("index/assign_topics_batch", topics=listing, passages=passages,
                  n=str(len(units)))


async def assign_text_units(graph: Graph, llm: LLM, settings: Settings, topics: list[Topic],
                            progress: Progress, failed: list[Failure], units: list[TextUnit],
                            batch: int | None = None) -> int:
    """Label ``units`` with their ``topics``, ``batch`` (default ASSIGN_BATCH) per call; writes
    the labels (``ABOUT_TOPIC``; the entities' topic labels follow from them,
    index/label_topic_entities_from_chunks), marks the units labelled, and returns how many
    (text unit, topic) pairs were written. A failed batch's text units are appended to
    ``failed`` and stay unmarked (the next build labels them)."""
    names = tuple(t.name for t in topics)
    listing = "\n".join(f"- {t.name}: {t.description}" for t in topics)
    size = max(1, batch or ASSIGN_BATCH)
    batches = [units[i:i + size] for i in range(0, len(units), size)]
    rows: list[Record] = []
    done: list[Record] = []  # labelled, with no topic too: an incremental build skips them

    async def one(batch: list[TextUnit]) -> None:
        model = labels_model(names, len(batch))
        try:
            reply = await llm.structured(_messages(listing, batch), model, stage=Stage.TOPIC_ASSIGN,
                                         max_tokens=100 * len(batch))
            lists = ([reply.topics] if len(batch) == 1  # type: ignore[attr-defined]
                     else [getattr(reply, f"passage_{i}") for i in range(1, len(batch) + 1)])
            rows.extend({"chunk_id": u.id, "topic": n}
                        for u, found in zip(batch, lists, strict=True)
                        for n in dict.fromkeys(found))
            done.extend({"id": u.id} for u in batch)
        except LLMError as err:
            # an unlabelled text unit stays in the general graph only (until the retry)
            for u in batch:
                failure = Failure.of(f"topic labels of text unit {u.id}", err)
                log.warning("topic item %s failed (%s): %s", failure.item, failure.reason, err)
                failed.append(failure)
        progress("topic assign", len(batch), None)

    await asyncio.gather(*(one(b) for b in batches))
    graph.write("index/label_topic_chunks", rows)
    graph.write("index/mark_topic_assigned", done)
    return len(rows)
