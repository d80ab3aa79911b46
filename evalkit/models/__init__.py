"""evalkit.models."""
