"""Bytes written to the terminal per keystroke: hubtui beside a stock Textual DataTable.

Run:  python -m bench.bench_bytes            (80×24 and 200×60, 12 moves each)
      python -m bench.bench_bytes --quick    (80×24 only, 4 moves)

Each app runs in its own pseudo-terminal (TERM=xterm-256color) in the same run; a cursor move
is down or up on a list, and the figure is the median of the bytes the app wrote in answer. A
screen change is enter (open the highlighted row). Over SSH these bytes are the keystroke's cost.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile

from tests.harness.terminal_bytes import measure


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    sizes = [(80, 24)] if args.quick else [(80, 24), (200, 60)]
    count = 4 if args.quick else 12
    with tempfile.TemporaryDirectory() as home:
        env = dict(os.environ, HOME=home, XDG_CONFIG_HOME=home, XDG_STATE_HOME=home)
        env.pop("HUBTUI_PROFILE", None)
        for size in sizes:
            print(f"== {size[0]}×{size[1]}, TERM=xterm-256color")
            stock = measure(
                [sys.executable, "-m", "tests.harness.stock_table_app", "hubs"],
                size,
                count,
                b"acme",
                env,
            )
            ours = measure(
                [sys.executable, "-m", "hubtui", "--demo"], size, count, b"acme", env, screens=True
            )
            anchor = stock["list: move, median bytes"]
            report("stock DataTable: move, median bytes", anchor, 1.0)
            for name, value in ours.items():
                ratio = value / anchor if name.endswith("move, median bytes") else None
                report(f"hubtui {name}", value, ratio)
            report("stock DataTable: start-up, bytes", stock["start-up, bytes"], None)


def report(name: str, value: float, ratio: float | None) -> None:
    shown = f"{ratio:5.2f}×" if ratio is not None else ""
    print(f"{name:<46} {value:>10,.0f} {shown}")


if __name__ == "__main__":
    main()
