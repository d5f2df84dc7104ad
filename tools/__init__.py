"""Developer tools run from the repository root (``python -m tools.NAME``); not installed."""
