"""Synthetic phone photos of revealed Xingzi hands with exact YOLO labels."""
