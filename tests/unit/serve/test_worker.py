"""The question loops: a question blocked in a synchronous call (a Neo4j query that waits)
holds up its own loop only - two such questions take the time of one."""

from __future__ import annotations

import asyncio
import time

from neo4j_retag.serve.worker import Worker


async def test_blocking_questions_run_side_by_side_on_loops_of_their_own():
    worker = Worker(3)
    worker.start()
    try:
        async def blocked() -> int:
            time.sleep(0.5)  # what a synchronous driver call does to its loop
            return worker.index()

        t0 = time.perf_counter()
        loops = await asyncio.gather(*(worker.run(blocked()) for _ in range(3)))
        seconds = time.perf_counter() - t0
        closed: list[int] = []

        async def close(i: int) -> None:
            closed.append(worker.index() == i)

        await worker.each(close)
    finally:
        worker.stop()
    assert sorted(loops) == [0, 1, 2], loops  # the least busy loop each time
    assert seconds < 1.2, seconds  # one loop would take 1.5 s
    assert closed == [True] * 3
