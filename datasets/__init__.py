"""Synthetic photo generator and YOLO dataset tools."""
