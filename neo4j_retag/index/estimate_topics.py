"""`ingest --estimate`'s topic stages, modelled by their structure (index/estimate.py).

- **Mined** (``TOPIC_MODE`` assign or reextract): map batches over the mining level's reports,
  two reduces, one topic list - mined again only when the new text units exceed
  ``TOPIC_REMINE_SHARE`` of all -, one split, and assignment per text unit labelled.
- **Communities**: no mining, no assignment: a name call for each of the ``MAX_TOPICS``
  topics (upper side: only a topic of several communities pays one), each reading
  ``TITLE_SENTENCES`` sentences and writing at most ``TITLE_TOKENS``. The topic subgraphs'
  communities are counted free, as for mined topics: they repeat the general communities and
  reuse their reports by key (on BBC-200 the topic scopes' 6,398 communities cost no call);
  a title one does pay is in the last ingest's actual figures, which calibrate the next.
"""

from __future__ import annotations

import math

from .. import tokens
from ..config import Settings
from ..llm.endpoint import WINDOW_KEY, Capabilities
from ..model import LLMCost
from ..prompts import fragment, render
from . import topic_assign
from .estimate_profile import Profile
from .report_compose import TITLE_SENTENCES, TITLE_TOKENS
from .topic_names import MAX_TOPICS

SENTENCE_TOKENS = 32  # an evidence sentence a title call reads, in prompt tokens


def _stage(calls: float, prompt: float, completion: float) -> LLMCost:
    return LLMCost(calls=round(calls), prompt_tokens=round(prompt),
                   completion_tokens=round(completion))


def topics_cost(settings: Settings, p: Profile, new: int, unit_tokens: float,
                indexed: int) -> LLMCost:
    """The topic stages of an ingest of ``new`` text units (``unit_tokens`` each) into a
    graph of ``indexed``, as TOPIC_MODE builds them (module doc)."""
    if settings.topic_build_mode == "communities":
        return _communities(settings, p)
    return _mined(settings, p, new, unit_tokens, indexed)


def _communities(settings: Settings, p: Profile) -> LLMCost:
    calls = MAX_TOPICS
    prompt = p.prompt_token_factor * (_overhead(settings, "index/report_title", sentences="")
                                      + TITLE_SENTENCES * SENTENCE_TOKENS)
    return _stage(calls, calls * prompt, calls * TITLE_TOKENS)


def _overhead(settings: Settings, prompt: str, /, **values: str) -> int:
    return sum(tokens.count(m["content"], settings.encoding) + 4
               for m in render(prompt, **values))


def _mined(settings: Settings, p: Profile, new: int, unit_tokens: float,
           indexed: int) -> LLMCost:
    """Topic mining (when the new text units exceed TOPIC_REMINE_SHARE of all: index/
    topic_basis.py) and assignment (every text unit after mining, else the new ones)."""
    calls = prompt = completion = 0.0
    labelled = new
    if not indexed or new / (new + indexed) > settings.index.topic_remine_share:
        labelled = new + indexed
        mined = labelled * p.mined_tokens_per_unit
        maps = max(1, math.ceil(mined / settings.query.map_context_tokens))
        points = min(maps * p.map_completion, settings.query.reduce_context_tokens)
        frame = _overhead(settings, "query/reduce", context="", response_type="a bulleted list",
                          question=fragment("index/topics_question"))
        # two reduces, each split first when its points exceed the window (query/reduce_fit)
        part_calls, part_prompt, part_completion, points = _partial_reduces(settings, points,
                                                                            frame)
        calls += maps + 3 + 2 * part_calls
        prompt += (mined + maps * _overhead(settings, "query/map", context="", min_points="3",
                                            question=fragment("index/mining_question"))
                   + 2 * (points + frame + part_prompt)
                   + p.reduce_completion + _overhead(settings, "index/topics_list", answers="",
                                                     max_topics="8"))
        completion += (maps * p.map_completion + 2 * (p.reduce_completion + part_completion)
                       + p.list_completion)
    batch = max(1, topic_assign.ASSIGN_BATCH)
    if settings.index.topic_split and (labelled > new or not indexed):
        # a topic holding most of the graph is split (index/topic_split.py): counted as one
        # split call and its share of the text units assigned again - an upper-side guess
        moved = math.ceil(labelled * settings.query.retag_topic_max_share)
        calls += 1
        prompt += _overhead(settings, "index/split_topic", name="", description="", reports="",
                            min_topics="2", max_topics="4") + 8 * p.listing_tokens
        completion += p.list_completion
        labelled += moved
    assign_calls = math.ceil(labelled / batch)
    calls += assign_calls
    prompt += labelled * unit_tokens + assign_calls * (
        p.listing_tokens + _overhead(settings, "index/assign_topics", topics="", text=""))
    completion += labelled * p.assign_completion
    retry = 1 + p.topic_retry
    return _stage(calls * retry, prompt * retry, completion * retry)


def _partial_reduces(settings: Settings, points: float, frame: int
                     ) -> tuple[float, float, float, float]:
    """(calls, prompt tokens, completion tokens, the points left) of the hierarchical reduce
    (query/reduce_fit.py) when ``points`` tokens of map points exceed the room a known window
    (LLM_CTX for the local server, or learnt) leaves beside the reduce prompt (``frame``)
    and its completion: groups of that room, each reduced to at most half of it, level by
    level. Nothing when the window is unknown or they fit."""
    local = settings.services.llm_ctx if settings.llm.local else None
    known = [w for w in (Capabilities(settings).get(WINDOW_KEY), local) if w]
    calls = prompt = completion = 0.0
    if not known:
        return calls, prompt, completion, points
    room = max(256, int(min(known) * 0.9) - frame - settings.llm.max_tokens)
    cap = max(32, min(settings.llm.max_tokens, room // 2 - 24))
    while points > room:
        groups = math.ceil(points / room)
        calls += groups
        prompt += points + groups * frame
        completion += groups * cap
        points = groups * cap
    return calls, prompt, completion, points


