"""`xingzi eval`'s pictures: the confusion matrix and the per-class bars, their Chinese tile names in the bundled font."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from PIL import Image

from xingzi.engine.tiles import CLASS_NAMES_CN
from xingzi.vision.eval_plots import confusion_png, per_class_png
from xingzi.vision.metrics import Scores

N = len(CLASS_NAMES_CN)


def scores() -> Scores:
    per_class = np.linspace(0.2, 1.0, N)
    per_class[3] = np.nan  # a face with no truth: no bar, not a crash
    ints = np.ones(N, np.int64)
    return Scores(per_class, per_class, per_class, per_class, per_class, ints, ints, ints, ints,
                  np.eye(N + 1, dtype=np.int64), np.ones(2, bool), np.full(2, 14))


@pytest.mark.parametrize("draw, size", [
    pytest.param(lambda path: confusion_png(np.diag(np.arange(N + 1)) + 1, path, "m.onnx@800 (conf ≥ 0.25)"), (1650, 1430),
                 id="confusion"),
    pytest.param(lambda path: per_class_png(scores(), path, "m.onnx@800~blur"), (1540, 440), id="per-class"),
])
def test_each_picture_is_drawn_with_every_character_in_its_font(tmp_path, draw, size):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        draw(tmp_path / "plot.png")
    missing = [str(w.message) for w in caught if "missing from" in str(w.message)]
    assert missing == []  # matplotlib warns of each glyph its font lacks (drawn as an empty box)
    with Image.open(tmp_path / "plot.png") as im:
        rgb = np.asarray(im.convert("RGB")).astype(int)
    assert rgb.shape[1::-1] == size
    blue = (rgb[..., 2] - rgb[..., 0] > 60).mean()  # the filled cells or bars, not text on white
    assert blue > 0.01, blue


def test_the_per_class_legend_hides_no_bar():
    """Every face near 1 (a good detector): the legend lay over the last faces' bars."""
    import matplotlib.pyplot as plt

    from xingzi.vision.eval_plots import per_class_figure

    s = scores()
    s.ap50[:], s.f1[:] = 0.99, 0.98
    fig = per_class_figure(s, "all near 1")
    fig.canvas.draw()
    ax = fig.axes[0]
    legend = ax.get_legend().get_window_extent()
    bars = [patch.get_window_extent() for patch in ax.patches]
    plt.close(fig)
    assert len(bars) == 2 * N and not [b for b in bars if b.overlaps(legend)]
