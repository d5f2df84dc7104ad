"""xingzi: read, group and score photos of revealed Xingzi (星子) mahjong hands."""

__version__ = "0.1.0"
