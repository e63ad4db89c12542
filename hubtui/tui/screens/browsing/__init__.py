"""Browsing: the hub list, a hub, a project's users, a person across projects, the access
matrix, going to a hub by name."""
