"""evalkit.conditions."""
