"""One-file extensions of evalkit, each registered on import: a provider, a condition, a metric."""
