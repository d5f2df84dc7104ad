"""The PNG plots of ``xingzi eval``: the confusion matrix and per-class AP50/F1, Chinese tile names
drawn with the bundled CJK font (matplotlib's own has none)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from xingzi.vision.metrics import Scores


def _font():
    from matplotlib import font_manager

    from xingzi.vision.runtime import CJK_FONT

    font_manager.fontManager.addfont(str(CJK_FONT))
    return font_manager.FontProperties(fname=str(CJK_FONT))


def confusion_png(cm: np.ndarray, path: Path, title: str) -> None:
    """Counts with colour by share of the truth row; Chinese tile names on both axes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from xingzi.engine.tiles import CLASS_NAMES_CN

    font = _font()
    labels = [*CLASS_NAMES_CN, "背景"]
    share = cm / np.maximum(cm.sum(axis=1, keepdims=True), 1)
    fig, ax = plt.subplots(figsize=(15, 13))
    ax.imshow(share, cmap="Blues", vmin=0, vmax=1)
    for (i, j), v in np.ndenumerate(cm):
        if v:
            ax.text(j, i, str(v), ha="center", va="center", fontsize=6, color="white" if share[i, j] > 0.5 else "black")
    ax.set_xticks(range(len(labels)), labels, rotation=90, fontproperties=font, fontsize=8)
    ax.set_yticks(range(len(labels)), labels, fontproperties=font, fontsize=8)
    ax.set_xlabel("预测 prediction", fontproperties=font)
    ax.set_ylabel("真值 truth", fontproperties=font)
    ax.set_title(title, fontproperties=font)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def per_class_png(s: Scores, path: Path, title: str) -> None:
    import matplotlib.pyplot as plt

    fig = per_class_figure(s, title)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def per_class_figure(s: Scores, title: str):
    """AP50 and F1 per face as bars, the legend in the room above them (placed where it fit best, it hid the bars of
    the last faces, most of them near 1)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from xingzi.engine.tiles import CLASS_NAMES_CN

    font = _font()
    x = np.arange(len(CLASS_NAMES_CN))
    fig, ax = plt.subplots(figsize=(14, 4))
    ax.bar(x - 0.2, np.nan_to_num(s.ap50), 0.4, label="AP50")
    ax.bar(x + 0.2, np.nan_to_num(s.f1), 0.4, label="F1")
    ax.set_xticks(x, CLASS_NAMES_CN, rotation=90, fontproperties=font, fontsize=8)
    ax.set_ylim(0, 1.22)
    ax.set_yticks(np.linspace(0, 1, 6))
    ax.legend(loc="upper right", ncol=2, frameon=False)
    ax.set_title(title, fontproperties=font)
    fig.tight_layout()
    return fig
