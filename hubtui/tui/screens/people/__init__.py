"""People: the hub's people and their review, why a person can or cannot get in."""
