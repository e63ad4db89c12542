"""The same answers without the screen: commands that print and exit, for scripts and tickets.

They share every setting, the token rules, the client, the search engine and the export rules
with the app, and never import Textual, so they start fast: only the module of the command run is
imported (:data:`~hubtui.headless.arguments.COMMANDS`). Every command is held to one table of
exit statuses (:data:`EXIT_TABLE`).
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import TYPE_CHECKING

from hubtui.core.collection import collected_rarely
from hubtui.core.workflows.kept import StoreError
from hubtui.headless.arguments import COMMANDS, HEADLESS, add_commands, file_pair
from hubtui.headless.output import (
    BROKEN_PIPE,
    EXIT_STATUSES,
    EXIT_TABLE,
    INTERRUPTED,
    NOT_SENT,
    Stop,
    aligned,
)
from hubtui.text import inert

if TYPE_CHECKING:
    import argparse

    from hubtui.core.workspace import Workspace

__all__ = [
    "EXIT_STATUSES",
    "EXIT_TABLE",
    "HEADLESS",
    "add_commands",
    "aligned",
    "file_pair",
    "run",
]


def run(args: argparse.Namespace, workspace: Workspace) -> int:
    """Run one headless command on ``workspace``, importing only its module; its exit status."""
    with collected_rarely():  # a command reads lists whole: see core/collection.py
        return _run(args, workspace)


def _run(args: argparse.Namespace, workspace: Workspace) -> int:
    module = "hubtui.headless.history" if file_pair(args) else COMMANDS[args.command]
    try:
        status: int = importlib.import_module(module).main(args, workspace)
    except Stop as stop:
        print(f"hubtui: {stop.message}", file=sys.stderr)
        status = stop.status
    except StoreError as error:  # a store that cannot be read or written: said, one status
        print(f"hubtui: {inert(str(error), limit=None)}", file=sys.stderr)
        status = NOT_SENT
    except KeyboardInterrupt:
        print("\nhubtui: stopped.", file=sys.stderr)
        return INTERRUPTED
    except BrokenPipeError:
        # Whatever is still buffered goes nowhere, quietly, instead of a traceback at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return BROKEN_PIPE
    if workspace.identity.demo and workspace.change_log.changes:
        # The in-process demo starts afresh in every process: what this one changed is gone
        # with it (its change log keeps the lines; a demo-server keeps the changes).
        print(
            "hubtui: --demo starts afresh in each process: the change lasts only in this one "
            "(run `hubtui demo-server` and --base-url to keep changes across commands).",
            file=sys.stderr,
        )
    if workspace.team is not None:  # the change lines of this run (or an earlier one) shared
        if waiting := workspace.share_changes():
            print(f"hubtui: {inert(waiting, limit=None)}", file=sys.stderr)
        if workspace.server_store is not None:
            workspace.server_store.close()
    return status
