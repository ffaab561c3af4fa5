"""The LLM call limit shared by the question loops: never more holders than the limit across
loops on different threads, every waiter served, and a cancelled waiter passes its slot on."""

from __future__ import annotations

import asyncio
import threading

from neo4j_retag.serve.limit import SharedLimit


def test_holders_across_loops_never_exceed_the_limit():
    limit, lock = SharedLimit(3), threading.Lock()
    now, peak, done = [0], [0], []

    async def hold() -> None:
        async with limit:
            with lock:
                now[0] += 1
                peak[0] = max(peak[0], now[0])
            await asyncio.sleep(0.01)
            with lock:
                now[0] -= 1
        done.append(1)

    async def many() -> None:
        await asyncio.gather(*(hold() for _ in range(20)))

    threads = [threading.Thread(target=asyncio.run, args=(many(),)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    assert len(done) == 80 and peak[0] == 3 and now[0] == 0


async def test_a_cancelled_waiter_gives_its_slot_on():
    limit = SharedLimit(1)
    await limit.acquire()
    waiter = asyncio.create_task(limit.acquire())
    await asyncio.sleep(0.01)
    limit.release()  # handed to the waiter ...
    waiter.cancel()  # ... which leaves before it runs
    await asyncio.sleep(0.01)
    await asyncio.wait_for(limit.acquire(), 1)  # the slot was passed on, not lost
    limit.release()
