"""Photos saved with their score (`--labels`, the page) are pipeline samples: `xingzi bench pipeline` reads them."""

from __future__ import annotations

import json
import zlib
from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest
from PIL import Image

from xingzi.cli import main
from xingzi.engine.tiles import BACK_CLASS, Tile
from xingzi.vision import pipeline
from xingzi.vision.detections import Detections
from xingzi.vision.layouts import hand_layout, with_tiles
from xingzi.vision.pipeline import Context, analyse
from xingzi.vision.sample_meta import sample_truth, truth_meta

W, H = 1280, 960
CENTER = (W / 2, H / 2)


class Fake:
    def __init__(self, detections: Detections) -> None:
        self.detections = detections

    def predict(self, image: np.ndarray, ask_second: bool = False) -> Detections:
        return self.detections


def saved(tmp_path, monkeypatch, capsys, name: str, det: Detections, *flags: str) -> dict:
    """The meta `xingzi score NAME.jpg --labels` wrote for a photo read as ``det``."""
    photo = tmp_path / f"{name}.jpg"  # each name its own photo: a set knows a photo saved again by its bytes
    Image.new("RGB", (W, H), (50, 120, 40 + zlib.crc32(name.encode()) % 200)).save(photo)
    monkeypatch.setattr(pipeline, "make_detector", lambda model, conf: Fake(det))
    assert main(["score", str(photo), "--labels", str(tmp_path / "set"), *flags]) == 0, capsys.readouterr().err
    capsys.readouterr()
    return json.loads((tmp_path / "set" / "meta" / f"{name}.json").read_text(encoding="utf-8"))


SAMPLES = [
    pytest.param("plain", hand_layout("123m456m789p12s55p", "3s", size=70, center=CENTER).detections, [], 3,
                 id="plain"),
    pytest.param("in_row", hand_layout("1112345679999m", "8m", size=70, center=CENTER, win_apart=False).detections,
                 ["--win", "8m"], 27, id="winning-tile-said"),
    pytest.param("melds", hand_layout("123m55p12s", "3s", ["pung 中", "concealed_kong 4s"], 2, size=60,
                                      center=CENTER).detections, ["--self-draw"], None, id="melds-fa-self-draw"),
    pytest.param("kong_down", hand_layout("123m456s5p", "5p", ["concealed_kong 中", "pung 9p"], kong_shown="DDDD",
                                          size=70, center=CENTER).detections, ["--fix", "BACK=中"], 6,
                 id="face-down-kong-named"),
]


@pytest.mark.parametrize(("name", "det", "flags", "own"), SAMPLES)
def test_the_score_is_saved_as_the_truth(tmp_path, monkeypatch, capsys, name, det, flags, own):
    flags = [f"{int(np.flatnonzero(det.cls == BACK_CLASS)[0])}=中" if f == "BACK=中" else f for f in flags]
    meta = saved(tmp_path, monkeypatch, capsys, name, det, *flags)
    assert meta["expect"]["valid"] and (own is None or meta["expect"]["own"] == own)
    assert meta["situation"]["self_draw"] == ("--self-draw" in flags)
    labels = (tmp_path / "set" / "labels" / f"{name}.txt").read_text().splitlines()
    assert len(meta["tiles"]) == len(labels) == len(det)  # one truth tile per label row, in its order
    assert [t["cls"] for t in meta["tiles"]] == [int(line.split()[0]) for line in labels]
    assert meta["win_shown"] == ("--win" not in flags)
    groups = {t["group"] for t in meta["tiles"]}
    assert groups == set(range(len(meta["situation"]["melds"]) + 1 + (meta["situation"]["fa"] > 0)))


def test_a_folder_of_saved_photos_is_benched_end_to_end(tmp_path, monkeypatch, capsys):
    for param in SAMPLES:
        name, det, flags, _ = param.values
        flags = [f"{int(np.flatnonzero(det.cls == BACK_CLASS)[0])}=中" if f == "BACK=中" else f for f in flags]
        saved(tmp_path, monkeypatch, capsys, name, det, *flags)
    out = tmp_path / "bench.json"
    assert main(["bench", "pipeline", "--data", str(tmp_path / "set"), "--boxes", "truth", "--json-out", str(out)]) == 0
    numbers = json.loads(out.read_text())
    # the photo alone gives 3 of 4: the winning tile sorted into the row was the user's word; one tap gives it
    assert numbers["samples"] == 4 and numbers["pao_total_exact_pct"] == 75.0, capsys.readouterr().out
    assert numbers["pao_exact_after_one_tap_pct"] == 100.0 and numbers["needs_win_in_row"] == "0/1 right"
    assert len(numbers["pao_samples"]) == 4 and len(numbers["pao_wrong"]) == 1
    # a later run paired with this one sample by sample: the same outcomes, then one sample the earlier run got wrong
    bench = ["bench", "pipeline", "--data", str(tmp_path / "set"), "--boxes", "truth", "--compare", str(out)]
    capsys.readouterr()
    assert main(bench) == 0
    assert "炮 total right +0 -0 (net +0, McNemar exact p 1.00)" in capsys.readouterr().out
    right = sorted(set(numbers["pao_samples"]) - set(numbers["pao_wrong"]))
    out.write_text(json.dumps({**numbers, "pao_wrong": numbers["pao_wrong"] + right[:1]}))
    assert main(bench) == 0
    assert "炮 total right +1 -0 (net +1" in capsys.readouterr().out
    out.write_text(json.dumps({**numbers, "pao_samples": right}))
    assert main(bench) == 2
    assert "scored different samples" in capsys.readouterr().err
    out.write_text("not json")  # a bad file is told before any photo is read
    monkeypatch.setattr("xingzi.vision.bench_pipeline.load_image", lambda *a: pytest.fail("a photo was read"))
    assert main(bench) == 2
    assert "expected a JSON file written by --json-out" in capsys.readouterr().err


def test_a_likeliest_legal_reading_is_saved_with_its_faces(tmp_path, monkeypatch, capsys):
    det = hand_layout("123m456m789p12s55p", "3s", size=70, center=CENTER, probs=True).detections
    five = int(np.flatnonzero(det.cls == Tile.P5.index)[0])
    cls, probs = det.cls.copy(), det.probs.copy()
    cls[five], probs[five, Tile.P6.index], probs[five, Tile.P5.index] = Tile.P6.index, 0.6, 0.3
    meta = saved(tmp_path, monkeypatch, capsys, "repaired", Detections(det.xyxy, cls, det.conf, probs))
    assert meta["tiles"][five]["cls"] == Tile.P5.index and meta["expect"]["own"] == 3
    assert meta["situation"]["hand"] == "123456m55789p123s"


def test_no_truth_where_the_scored_reading_cannot_be_regrouped_as_scored():
    det = hand_layout("123m456m789p12s55p", "3s", size=70, center=CENTER).detections
    image = np.zeros((H, W, 3), np.uint8)
    res = analyse(image, det, Context())
    assert truth_meta(res, [], "test") is not None
    other = analyse(image, det, Context(self_draw=True))  # another score of the same faces
    pretend = replace(res, repair=SimpleNamespace(changes=()))  # as if a likeliest legal reading was scored
    faces, _, meta = sample_truth(pretend, [], "test", lambda faces: other)  # type: ignore[arg-type]
    assert meta is None and np.array_equal(faces.cls, det.cls)
    short = analyse(image, det.subset(np.arange(len(det)) != 0), Context())  # 13 tiles: a missed 1m added
    assert short.repair is not None and short.result is not None and short.result["valid"]
    _, _, meta = sample_truth(short, [], "test", lambda faces: analyse(image, faces, Context(), as_read=True))
    assert meta is None  # the tile the score added has no box: no truth
    cls = det.cls.copy()
    cls[int(np.flatnonzero(cls == Tile.P5.index)[0])] = Tile.P6.index
    false_win = analyse(image, Detections(det.xyxy, cls, det.conf), Context(), as_read=True)
    meta = truth_meta(false_win, [], "test")  # a 诈胡 is a score: kept as the truth
    assert meta is not None and meta["expect"]["valid"] is False


def test_a_box_said_to_be_no_tile_is_in_neither_labels_nor_truth(tmp_path, monkeypatch, capsys):
    det = hand_layout("123m456m789p12s55p", "3s", size=70, center=CENTER).detections
    stray = with_tiles(det, [[W / 2 - 300, H / 2 + 200, W / 2 - 250, H / 2 + 270]], [Tile.FA.index])
    meta = saved(tmp_path, monkeypatch, capsys, "stray", stray, "--not-tile", str(len(det)))
    assert len(meta["tiles"]) == len(det) and meta["situation"]["fa"] == 0
    meta = saved(tmp_path, monkeypatch, capsys, "aside", stray, "--aside", str(len(det)))
    assert len(meta["tiles"]) == len(det) + 1 and meta["tiles"][-1]["role"] == "loose"
