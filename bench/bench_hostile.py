"""What hostile servers cost hubtui's client: peak memory and time to give up, per attack.

Each attack is served on loopback by this process; a fresh Python process runs the client
(``HubClient.list_hubs``) against it and reports its outcome, the seconds it took and its peak
resident memory (VmHWM). The anchor is the same client process reading an honest 8-hub answer in
the same run: memory is reported beside it and as a ratio.

    python -m bench.bench_hostile            # all attacks (about a minute)
"""

from __future__ import annotations

import asyncio
import json
import sys
import time

from tests.harness.hostile import HUB, Answer, gzip_bomb, hostile_server

CLIENT = """
import asyncio, json, sys, time
from hubtui.api import HubClient, HubError

async def main(url, deadline):
    started = time.monotonic()
    async with HubClient(url, deadline=deadline, max_retries=0) as client:
        try:
            hubs = await client.list_hubs()
            outcome = f"{len(hubs)} hubs"
        except HubError as error:
            outcome = str(error)
    took = time.monotonic() - started
    peak = next(l for l in open("/proc/self/status") if l.startswith("VmHWM:")).split()[1]
    print(json.dumps({"outcome": outcome, "seconds": took, "peak_mb": int(peak) / 1024}))

asyncio.run(main(sys.argv[1], float(sys.argv[2])))
"""


def attacks() -> dict[str, tuple[Answer, float]]:
    honest = json.dumps([{**HUB, "Id": f"h{n}", "Name": f"hub-{n}"} for n in range(8)]).encode()
    stacked = gzip_bomb(1024, layers=2)
    single = gzip_bomb(1024, layers=1)
    flood = (b"[" + b",".join([b'{"Id":"1","Name":"x"}'] * 6_000_000) + b"]")[: 127 * 2**20]
    drip_body = json.dumps([HUB] * 100).encode()
    return {
        "anchor: honest 8 hubs": ((200, {}, [honest], 0.0), 60.0),
        f"gzip, gzip: {len(stacked):,} B → 1 GB": (
            (200, {"Content-Encoding": "gzip, gzip"}, [stacked], 0.0),
            60.0,
        ),
        f"gzip: {len(single):,} B → 1 GB": (
            (200, {"Content-Encoding": "gzip"}, [single], 0.0),
            60.0,
        ),
        "127 MB of tiny records (6 M)": ((200, {}, [flood], 0.0), 60.0),
        "1 byte every 0.1 s, deadline 5 s": (
            (200, {}, [drip_body[i : i + 1] for i in range(len(drip_body))], 0.1),
            5.0,
        ),
    }


async def run() -> None:
    rows = []
    anchor_mb = 0.0
    for name, (answer, deadline) in attacks().items():
        async with hostile_server(lambda m, p, b, a=answer: a) as server:  # type: ignore[misc]
            process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-c",
                CLIENT,
                server.url,
                str(deadline),
                stdout=asyncio.subprocess.PIPE,
            )
            started = time.monotonic()
            out, _ = await process.communicate()
            wall = time.monotonic() - started
        result = json.loads(out)
        if name.startswith("anchor"):
            anchor_mb = result["peak_mb"]
        rows.append((name, result, wall))
    print(f"{'attack':<36} {'peak MB':>8} {'× anchor':>9} {'s':>6}  outcome")
    for name, result, _ in rows:
        ratio = result["peak_mb"] / anchor_mb if anchor_mb else 0.0
        outcome = result["outcome"][:90]
        peak, seconds = result["peak_mb"], result["seconds"]
        print(f"{name:<36} {peak:>8.1f} {ratio:>9.2f} {seconds:>6.2f}  {outcome}")


if __name__ == "__main__":
    asyncio.run(run())
