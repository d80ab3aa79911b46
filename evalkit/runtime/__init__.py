"""evalkit.runtime."""
