"""Shipped detector weights, their model card, conversion and training scripts."""
