"""Where the people's peak is: `P` on the hub `load-test` in this process, by stage.

Two runs of the app in Textual's headless driver at 120×40, each on the same server:

- the process's resident set read every 5 ms by a thread, each reading put to the stage it was
  read in: both lists read (the hub's users and the project's, at once), the answer's join,
  the rows shown (until every worker has ended), and afterwards;
- Python's own objects traced (``tracemalloc``) from the key on: how many MB they come to at
  their peak and once both lists are read, and the files whose lines made most of them. What
  the resident set holds beyond them is the allocators' (freed and not given back, or spread
  over pages a survivor keeps).

In process, so the resident figures stand about 10 MB above the installed app's (the
benchmark's own modules). The stages are told by wrapping the reading's answer, which joins.

    python -m bench.where_memory_goes URL   # a server with the hub load-test

A process of its own, so that nothing another measure held stands in its start.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import threading
import tracemalloc
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio

from bench.bench_firm import app_on
from bench.bench_firm_app import resident_mb
from bench.bench_tui import settle, to_the_load_test_hub

READ, JOINED, SHOWN, AFTER = (
    "both lists read",
    "the answer's join",
    "the rows shown",
    "afterwards",
)
ROOT = Path(__file__).resolve().parents[1]
EVERY = 0.005  # seconds between two readings of the resident set
TOP = 6  # files named beside the traced total


class Stages:
    """The highest resident set read in each stage, while :attr:`stage` is set."""

    def __init__(self) -> None:
        self.stage: str | None = None
        self.peaks: dict[str, float] = {}
        self._ended = threading.Event()
        self._thread = threading.Thread(target=self._read, daemon=True)

    def _read(self) -> None:
        while not self._ended.wait(EVERY):
            stage = self.stage
            if stage is not None:
                self.peaks[stage] = max(self.peaks.get(stage, 0.0), resident_mb())

    def __enter__(self) -> Stages:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._ended.set()
        self._thread.join()


@contextmanager
def around_the_join(before: Callable[[], None], after: Callable[[], None]) -> Iterator[None]:
    """``before`` as the reading's answer begins its join, ``after`` once it has joined."""
    from hubtui.core.people import hub

    reading: Any = hub._HubReading
    answer = reading.answer

    def answered(self: object, *args: Any) -> object:
        before()
        try:
            return answer(self, *args)
        finally:
            after()

    reading.answer = answered
    try:
        yield
    finally:
        reading.answer = answer


async def _p_on_the_load_test_hub(base_url: str, data: str, at_the_key: Callable[[], None]) -> None:
    async with app_on(base_url, data, store="off").run_test(size=(120, 40)) as pilot:
        await to_the_load_test_hub(pilot)
        gc.collect()
        at_the_key()
        await pilot.press("P")
        await settle(pilot)


async def where_the_peak_is(
    base_url: str, data: str
) -> tuple[float, dict[str, float], tuple[float, float, list[tuple[str, float]]]]:
    """The resident set before ``P``, its peak in each stage, and Python's traced objects
    (their peak, MB once both lists are read, the files that made most of those)."""
    start = [0.0]
    with Stages() as stages:

        def at_the_key() -> None:
            start[0] = resident_mb()
            stages.stage = READ

        def joined() -> None:
            stages.stage = SHOWN

        with around_the_join(lambda: setattr(stages, "stage", JOINED), joined):
            await _p_on_the_load_test_hub(base_url, data, at_the_key)
        stages.stage = AFTER
        await asyncio.sleep(EVERY * 4)
    traced: dict[str, float] = {}
    files: list[tuple[str, float]] = []

    def read_ended() -> None:
        traced["read"] = tracemalloc.get_traced_memory()[0] / 1e6
        by_file: dict[str, float] = defaultdict(float)
        for stat in tracemalloc.take_snapshot().statistics("filename"):
            name = stat.traceback[0].filename
            if name.startswith(str(ROOT)):
                name = str(Path(name).relative_to(ROOT))
            by_file[name.split("site-packages/")[-1]] += stat.size / 1e6
        files.extend(sorted(by_file.items(), key=lambda item: -item[1])[:TOP])

    with around_the_join(read_ended, lambda: None):
        await _p_on_the_load_test_hub(base_url, data, lambda: tracemalloc.start(1))
    peak = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    return start[0], stages.peaks, (peak, traced.get("read", 0.0), files)


def report(
    start: float,
    peaks: dict[str, float],
    traced: tuple[float, float, list[tuple[str, float]]],
) -> str:
    """The stages' peaks over the start, then Python's traced share of them."""
    lines = [f"where the peak is (in process, resident MB; {start:.1f} before P):"]
    for stage in (READ, JOINED, SHOWN, AFTER):
        if stage in peaks:
            lines.append(
                f"  {stage:<38} {peaks[stage]:>7.1f}  (+{peaks[stage] - start:.1f} over the start)"
            )
    peak, read, files = traced
    lines.append(
        f"  Python's objects traced from P on: {peak:.1f} MB at their peak, {read:.1f} MB once "
        "both lists are read; the rest of the resident set above the start is the allocators'"
    )
    lines.extend(f"    {size:>6.1f} MB  {name}" for name, size in files)
    return "\n".join(lines)


def main() -> None:
    import tempfile

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url", help="a demo server with the hub load-test (--big-project-users)")
    url = parser.parse_args().url
    with tempfile.TemporaryDirectory() as data:
        print(report(*anyio.run(where_the_peak_is, url, data)))


if __name__ == "__main__":
    main()
