"""tools/fa_firings.py: each tile the misread-发 rule counts is matched to its label, and the command tallies them."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tools.fa_firings import label_kind, main, rule_counted
from xingzi.engine.tiles import CLASS_NAMES, Tile
from xingzi.vision.detections import Detections
from xingzi.vision.grouping import group
from xingzi.vision.layouts import hand_layout, with_tiles
from xingzi.vision.metrics import IGNORE, UNREAD

FA, S1 = Tile.FA.index, Tile.S1.index
W, H = 1280, 960
BONUS = [[300, 450, 345, 510], [346, 450, 391, 510]]  # two bonus 发 side by side, below the hand's row
BESIDE = [392, 450, 437, 510]  # a third tile beside them, read 1s with 发 next


def table() -> Detections:
    """A winning hand, two bonus 发 and a tile read 1s (0.59) with 发 next (0.57) lying beside them."""
    det = with_tiles(hand_layout("123m456m789p12s55p", "3s", size=60, center=(640, 300)).detections,
                     [*BONUS, BESIDE], [FA, FA, S1])
    probs = np.zeros((len(det), 31), np.float32)
    probs[np.arange(len(det)), det.cls] = det.conf
    probs[-1, S1], probs[-1, FA] = 0.59, 0.57
    return Detections(det.xyxy, det.cls, det.conf, probs)


def test_the_tiles_counted_by_the_rule_are_those_read_as_another_face():
    det = table()
    reading = group(det)
    assert reading.fa == 3
    assert rule_counted(det, reading) == [len(det) - 1]  # the two read 发 are not the rule's
    bare = det.subset(np.arange(len(det) - 3))  # no 发 on the table
    assert rule_counted(bare, group(bare)) == []


@pytest.mark.parametrize("labels,kind,cls", [
    pytest.param([], "no_label", None, id="no-labels"),
    pytest.param([(FA, BESIDE)], "fa", FA, id="labelled-fa"),
    pytest.param([(S1, BESIDE)], "other_face", S1, id="labelled-another-face"),
    pytest.param([(IGNORE, BESIDE)], "no_face_given", None, id="a-wind-or-flower"),
    pytest.param([(UNREAD, BESIDE)], "no_face_given", None, id="face-not-given"),
    pytest.param([(FA, [392, 480, 437, 540])], "no_label", None, id="overlap-a-third"),
    pytest.param([(FA, [392, 470, 437, 530])], "fa", FA, id="overlap-just-half"),  # IoU 1800 / 3600
    pytest.param([(FA, [392, 471, 437, 531])], "no_label", None, id="overlap-just-under-half"),  # 0.48
    pytest.param([(S1, [392, 455, 437, 515]), (FA, [700, 450, 745, 510])], "other_face", S1, id="the-box-under-it"),
])
def test_each_counted_tile_is_matched_to_the_labelled_box_under_it(labels, kind, cls):
    xyxy = np.array([box for _, box in labels], np.float64).reshape(-1, 4)
    true_cls = np.array([c for c, _ in labels], np.int64)
    assert label_kind(np.array(BESIDE, np.float64), xyxy, true_cls) == (kind, cls)


def _label_line(cls: int, box: list[int]) -> str:
    x0, y0, x1, y1 = box
    return f"{cls} {(x0 + x1) / 2 / W:.6f} {(y0 + y1) / 2 / H:.6f} {(x1 - x0) / W:.6f} {(y1 - y0) / H:.6f}\n"


def test_the_command_tallies_the_labels_of_what_the_rule_counted(tmp_path, monkeypatch, capsys):
    from xingzi.vision import pipeline
    from xingzi.vision.photo import write_image

    det = table()

    class Fake:
        def predict(self, image, ask_second=False):
            return det

    (tmp_path / "images").mkdir()
    (tmp_path / "labels").mkdir()
    (tmp_path / "classes.txt").write_text("\n".join([*CLASS_NAMES[:30], "other"]) + "\n")
    for name, face in (("a", FA), ("b", S1)):  # the same photo, the tile labelled 发 in one and 1s in the other
        write_image(tmp_path / "images" / f"{name}.png", np.zeros((H, W, 3), np.uint8))
        (tmp_path / "labels" / f"{name}.txt").write_text(_label_line(FA, BONUS[0]) + _label_line(face, BESIDE))
    monkeypatch.setattr(pipeline, "make_detector", lambda model, conf: Fake())
    out = tmp_path / "firings.json"
    assert main(["--data", str(tmp_path), "--json-out", str(out)]) == 0
    got = json.loads(out.read_text())
    assert (got["photos"], got["fa"], got["other_face"], got["no_face_given"], got["no_label"]) == (2, 1, 1, 0, 0)
    assert [(f["tile"], f["read"], f["labelled"]) for f in got["firings"]] == [(len(det) - 1, "1s", "fa"),
                                                                                (len(det) - 1, "1s", "1s")]
    printed = capsys.readouterr().out
    assert "2 photos read; the misread-发 rule counted 2 tile(s) as 发" in printed
    assert f"b.png: tile #{len(det) - 1} read 1s, labelled 1s" in printed
    assert main(["--data", str(tmp_path), "--every", "2", "--json-out", str(out)]) == 0  # a.png only
    assert (json.loads(out.read_text())["photos"], json.loads(out.read_text())["fa"]) == (1, 1)
    with pytest.raises(ValueError, match="--every must be 1 or more, got 0"):
        main(["--data", str(tmp_path), "--every", "0"])
