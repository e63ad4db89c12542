"""Where this process's processor time goes while a block runs, by stage: a benchmark's profile.

py-spy samples the process from outside (100 times a second, every thread, without the
interpreter's lock, so that no thread's sample waits for another's, and without pausing it, so
that the block's figures are its own); a thread waiting (for
the network, for work, for that lock) is idle and counts nothing. Each sample is put to a stage
by its innermost frame whose file names one. A sampler inside the process would see each thread
where it last let go of the lock (the network's calls, mostly), not where its time went.

    with WhereTimeGoes(STAGES) as profile:
        ...
    print(report(profile.seconds))

Where py-spy cannot run (not installed, or not allowed to read another process's memory),
:attr:`WhereTimeGoes.missing` says why and there are no stages.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType

#: A stage and the file paths (parts of them) whose frames are in it.
Stages = Sequence[tuple[str, Sequence[str]]]

OTHER = "everything else (the event loop, the interpreter)"
RATE = 100  # samples a second
ATTACHED = 0.3  # how long py-spy is given to attach before the block runs


def stage_of(frames: Sequence[str], stages: Stages) -> str:
    """The stage of a stack given innermost frame last, as py-spy writes it."""
    for frame in reversed(frames):
        for name, parts in stages:
            if any(part in frame for part in parts):
                return name
    return OTHER


class WhereTimeGoes:
    """py-spy on this process while entered (see the module's text)."""

    def __init__(self, stages: Stages) -> None:
        self.stages = stages
        self.seconds: defaultdict[str, float] = defaultdict(float)
        self.missing: str | None = None
        self._folder = tempfile.TemporaryDirectory()
        self._out = Path(self._folder.name) / "samples.txt"
        self._spy: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> WhereTimeGoes:
        spy = shutil.which("py-spy")
        if spy is None:
            self.missing = "py-spy is not installed (pip install -e '.[dev]')"
            return self
        self._spy = subprocess.Popen(
            [
                *(spy, "record", "--pid", str(os.getpid()), "--rate", str(RATE)),
                *("--format", "raw", "--threads", "--nonblocking", "--output", str(self._out)),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        time.sleep(ATTACHED)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        spy = self._spy
        if spy is None:
            return
        spy.send_signal(signal.SIGINT)  # py-spy writes what it sampled, then ends
        _, said = spy.communicate(timeout=60)
        try:
            lines = self._out.read_text().splitlines()
        except OSError:
            self.missing = f"py-spy sampled nothing: {said.decode(errors='replace')[-300:]}"
            return
        finally:
            self._folder.cleanup()
        for line in lines:
            stack, _, count = line.rpartition(" ")
            self.seconds[stage_of(stack.split(";")[1:], self.stages)] += int(count) / RATE


def report(seconds: Mapping[str, float], indent: str = "  ") -> str:
    """Each stage's seconds and share, most first."""
    total = sum(seconds.values()) or 1.0
    return "\n".join(
        f"{indent}{name:<52} {spent:>6.2f} s {spent / total:>5.0%}"
        for name, spent in sorted(seconds.items(), key=lambda item: -item[1])
    )
