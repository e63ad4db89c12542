"""Browsing through 10 % injected 503s with latency ends with the right data, retries bounded."""

from __future__ import annotations

from hubtui.demo import DemoSize
from tests.harness.harness import running_demo_server
from tests.harness.load import browse_every_project, expected_users, filler_hub_name

SIZE = DemoSize(seed=7, hubs=1, projects_per_hub=30, users_per_project=4)


async def test_browsing_every_project_through_injected_503s() -> None:
    hub_name = filler_hub_name(SIZE)
    flags = [
        *("--seed", "7", "--hubs", "1", "--projects-per-hub", "30", "--users-per-project", "4"),
        *("--latency", "0.01", "--failure-rate", "0.1", "--failure-statuses", "503"),
        *("--retry-after", "0"),
    ]
    with running_demo_server(*flags) as url:
        browse = await browse_every_project(url, hub_name)
    assert browse.users == await expected_users(SIZE, hub_name)
    assert len(browse.users) == 30
    calls = 2 + 30 + browse.person_retries
    assert browse.retries > 0
    assert browse.requests <= calls * 3  # at most 2 automatic retries a call
    # Every request is a call or one of its automatic retries; the by-name call taught the region.
    assert browse.requests == calls + browse.retries
