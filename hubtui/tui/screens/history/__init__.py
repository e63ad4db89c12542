"""History: what changed since a snapshot kept."""
