"""Browse every project of a 200-project hub through 10 % injected 503s and 200 ms latency.

Run:  python -m bench.bench_load

`hubtui demo-server` injects the faults over real HTTP; the result is compared with a fault-free
demo API built from the same seed. Prints the time, the requests made and the retries.
"""

from __future__ import annotations

import asyncio

from hubtui.demo import DemoSize
from tests.harness.harness import running_demo_server
from tests.harness.load import browse_every_project, expected_users, filler_hub_name

PROJECTS = 200
SIZE = DemoSize(seed=11, hubs=1, projects_per_hub=PROJECTS, users_per_project=6)


def main() -> None:
    hub_name = filler_hub_name(SIZE)
    flags = [
        *("--seed", "11", "--hubs", "1", "--projects-per-hub", str(PROJECTS)),
        *("--users-per-project", "6", "--latency", "0.2", "--failure-rate", "0.1"),
        *("--failure-statuses", "503", "--retry-after", "1"),
    ]
    with running_demo_server(*flags) as url:
        browse = asyncio.run(browse_every_project(url, hub_name))
    right = browse.users == asyncio.run(expected_users(SIZE, hub_name))
    calls = 2 + PROJECTS + browse.person_retries
    print(f"projects browsed                     {len(browse.users):>8}")
    print(f"data equal to a fault-free server    {right!s:>8}")
    print(f"time, s                              {browse.seconds:>8.1f}")
    print(f"calls (hub, projects, each project)  {calls:>8}")
    print(f"requests made                        {browse.requests:>8}")
    print(f"automatic retries                    {browse.retries:>8}")
    print(
        f"calls still failing after 2 retries  {browse.person_retries:>8} (tried again, as r does)"
    )


if __name__ == "__main__":
    main()
