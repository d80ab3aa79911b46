"""evalkit.harness."""
