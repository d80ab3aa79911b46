"""evalkit.scenarios."""
