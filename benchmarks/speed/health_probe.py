"""GET /health every INTERVAL seconds until the file STOP exists; prints the latencies (s) as
one JSON list and the statuses seen. A process of its own (serve_latency.py): probing from
the load generator's event loop would add its own waits (20 answers parsed on that loop) to
the server's.

    python -m benchmarks.speed.health_probe URL STOP [INTERVAL]
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import httpx2 as httpx


def main() -> None:
    url, stop = sys.argv[1], Path(sys.argv[2])
    interval = float(sys.argv[3]) if len(sys.argv) > 3 else 0.05
    times: list[float] = []
    states: set[str] = set()
    with httpx.Client(timeout=60) as c:
        while not stop.exists():
            t0 = time.perf_counter()
            r = c.get(f"{url}/health")
            times.append(time.perf_counter() - t0)
            states.add(r.json().get("status", "?") if r.status_code == 200 else
                       str(r.status_code))
            time.sleep(interval)
    print(json.dumps({"times": times, "statuses": sorted(states)}))


if __name__ == "__main__":
    main()
