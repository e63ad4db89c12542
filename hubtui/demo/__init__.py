"""The embedded demo API: the contract over deterministic seeded data.

It imports neither the client (``hubtui.api``) nor Textual, so it is an independent
implementation to test the client against.
"""

from hubtui.demo.data import DEMO_TOKEN, DemoSize, DemoStore, last_week
from hubtui.demo.faults import Faults, ServerStats
from hubtui.demo.server import create_app

__all__ = [
    "DEMO_TOKEN",
    "DemoSize",
    "DemoStore",
    "Faults",
    "ServerStats",
    "create_app",
    "last_week",
]
