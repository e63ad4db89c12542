"""hubtui: a keyboard-first terminal app for hubs, projects and project users."""

__version__ = "0.1.0"
