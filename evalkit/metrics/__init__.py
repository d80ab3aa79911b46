"""evalkit.metrics."""
