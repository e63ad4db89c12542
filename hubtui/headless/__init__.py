"""The same answers without the screen: commands that print and exit, for scripts and tickets.

They share every setting, the token rules, the client, the search engine and the export rules
with the app, and never import Textual, so they start fast. Every command is held to one table
of exit statuses (:data:`EXIT_TABLE`).
"""

from hubtui.headless.commands import HEADLESS, add_commands, run
from hubtui.headless.output import EXIT_STATUSES, EXIT_TABLE, aligned
from hubtui.headless.tables import resolve_hub

__all__ = [
    "EXIT_STATUSES",
    "EXIT_TABLE",
    "HEADLESS",
    "add_commands",
    "aligned",
    "resolve_hub",
    "run",
]
