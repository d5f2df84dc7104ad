"""Vision: the tile detector, grouping detections into a hand, drawing results.

Only the detector module imports Ultralytics; everything else works on numpy arrays.
"""
