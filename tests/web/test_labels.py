"""The page's "save labels": one photo as corrected, as a YOLO sample in a zip; safe sample names."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import cv2
import numpy as np
import pytest
from web_helpers import (
    HEIGHT,
    WIDTH,
    client_for,
    foreign_fa_detections,
    layout_detections,
    missed_tile_detections,
)

from xingzi.datasets.check import check_dataset
from xingzi.datasets.samples import safe_name
from xingzi.datasets.yolo import read_labels, yolo_to_xyxy
from xingzi.engine.tiles import Tile
from xingzi.vision.layouts import with_tiles


def _unzipped(data: bytes, into: Path) -> Path:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        names = set(z.namelist())
        required = {"classes.txt", "data.yaml", "images/hand.jpg", "labels/hand.txt"}
        assert required <= names <= required | {"meta/hand.json"}  # the score as truth, when there is one
        z.extractall(into)
    return into


def test_saving_labels_gives_a_yolo_sample_of_the_tiles_as_corrected(photo, tmp_path):
    det, box = missed_tile_detections()
    stray = [[WIDTH / 2 - 200, HEIGHT / 2 + 120, WIDTH / 2 - 150, HEIGHT / 2 + 190]]
    client, _ = client_for(with_tiles(det, stray, [Tile.FA.index]))  # 13 tiles of the hand, a 发 below (#13)
    token = client.post("/api/read", content=photo).json()["token"]
    marks = {"token": token, "corrections": {"9": Tile.S4.index}, "added": [{"cls": Tile.M5.index, "xyxy": box.tolist()}],
             "name": "../IMG 0001.hand.HEIC"}
    r = client.post("/api/labels", json={**marks, "name": "hand.jpg"})
    assert r.status_code == 200 and r.headers["content-type"] == "application/zip"
    assert r.headers["content-disposition"] == 'attachment; filename="hand.zip"'
    root = _unzipped(r.content, tmp_path / "all")
    rows = read_labels(root / "labels" / "hand.txt")
    assert len(rows) == 15 and rows[9, 0] == Tile.S4.index and rows[14, 0] == Tile.M5.index  # corrected, added
    assert np.allclose(yolo_to_xyxy(rows[14:, 1:], WIDTH, HEIGHT)[0], box, atol=0.1)
    assert cv2.imdecode(np.frombuffer((root / "images" / "hand.jpg").read_bytes(), np.uint8), 1).shape == (HEIGHT, WIDTH, 3)
    report = check_dataset(root)
    assert report.ok and report.boxes == 15, report.format_text()
    aside = client.post("/api/labels", json={**marks, "name": "hand", "ignored": [13]})  # a tile, not the hand's
    assert len(read_labels(_unzipped(aside.content, tmp_path / "aside") / "labels" / "hand.txt")) == 15
    gone = client.post("/api/labels", json={**marks, "name": "hand", "removed": [13]})  # no tile at all
    assert len(read_labels(_unzipped(gone.content, tmp_path / "gone") / "labels" / "hand.txt")) == 14
    scored = client.post("/api/rescore", json={**marks, "removed": [13]}).json()
    assert scored["reading"]["tiles"][13]["role"] == "ignored" and scored["reading"]["fa"] == 0


def test_a_tile_of_no_xingzi_face_gets_no_label_until_named(photo, tmp_path):
    client, _ = client_for(foreign_fa_detections())
    token = client.post("/api/read", content=photo).json()["token"]
    plain = client.post("/api/labels", json={"token": token, "name": "hand"})
    assert len(read_labels(_unzipped(plain.content, tmp_path / "a") / "labels" / "hand.txt")) == 14
    named = client.post("/api/labels", json={"token": token, "name": "hand", "corrections": {"14": Tile.FA.index}})
    assert len(read_labels(_unzipped(named.content, tmp_path / "b") / "labels" / "hand.txt")) == 15


@pytest.mark.parametrize("payload,status,message", [
    pytest.param({"token": "nope"}, 404, "upload it again", id="unknown-token"),
    pytest.param({"removed": [99]}, 400, "removed tile #99: there are 14 tiles", id="removed-out-of-range"),
    pytest.param({"removed": "3"}, 400, "removed must be a list", id="removed-not-a-list"),
    pytest.param({"added": [{"cls": 40, "xyxy": [1, 1, 5, 5]}]}, 400, "class must be an integer", id="bad-added"),
])
def test_bad_labels_requests(photo, payload, status, message):
    client, _ = client_for(layout_detections())
    token = client.post("/api/read", content=photo).json()["token"]
    r = client.post("/api/labels", json={"token": token, **payload})
    assert r.status_code == status and message in r.json()["error"]
    assert client.post("/api/labels", content=b"not json").status_code == 400


@pytest.mark.parametrize("given,stem", [
    pytest.param("IMG_0001.HEIC", "IMG_0001", id="extension-dropped"),
    pytest.param("../../etc/passwd", "passwd", id="no-folders"),
    pytest.param("C:\\photos\\hand 1.jpg", "hand_1", id="windows-path-and-space"),
    pytest.param("麻将.jpg", "photo", id="nothing-left"),
    pytest.param(".hidden", "hidden", id="dot-file"),
    pytest.param("a" * 100 + ".png", "a" * 64, id="long"),
    pytest.param(None, "photo", id="none"),
    pytest.param(7, "photo", id="not-a-string"),
])
def test_sample_names_are_safe_file_stems(given, stem):
    assert safe_name(given) == stem


def test_a_server_with_a_dataset_folder_keeps_each_saved_photo_once(photo, tmp_path):
    folder = tmp_path / "collected"
    client, _ = client_for(layout_detections(), collect=folder)
    assert client.get("/api/faces").json()["collect"] == 0
    token = client.post("/api/read", content=photo).json()["token"]
    first = client.post("/api/labels", json={"token": token, "name": "IMG 7.jpg", "store": True})
    assert first.json() == {"saved": "IMG_7", "photos": 1, "replaced": False, "truth": True, "backup": None}
    assert json.loads((folder / "meta" / "IMG_7.json").read_text(encoding="utf-8"))["expect"]["own"] == 3
    again = client.post("/api/labels", json={"token": token, "name": "IMG 7.jpg", "store": True,
                                             "corrections": {"0": Tile.ZHONG.index}})
    assert again.json()["saved"] == "IMG_7" and again.json()["photos"] == 1  # corrected further: not doubled
    assert again.json()["replaced"]
    assert read_labels(folder / "labels" / "IMG_7.txt")[0, 0] == Tile.ZHONG.index
    backup = again.json()["backup"]  # the labels it replaced, as they were, named relative to the folder
    assert backup.startswith("labels_backup/IMG_7.") and read_labels(folder / backup)[0, 0] != Tile.ZHONG.index
    assert client.post("/api/labels", json={"token": token, "name": "IMG 7.jpg", "store": True,
                                            "corrections": {"0": Tile.ZHONG.index}}).json()["backup"] is None  # same
    ok, other_photo = cv2.imencode(".png", np.full((HEIGHT, WIDTH, 3), 30, np.uint8))
    other = client.post("/api/read", content=other_photo.tobytes()).json()["token"]
    assert client.post("/api/labels", json={"token": other, "name": "IMG 7.jpg", "store": True}).json() == {
        "saved": "IMG_7_2", "photos": 2, "replaced": False, "truth": True, "backup": None}  # another photo of that name
    report = check_dataset(folder)
    assert report.ok and report.images == 2 and report.boxes == 28, report.format_text()
    assert "nc: 31" in (folder / "data.yaml").read_text() and (folder / "classes.txt").exists()
    restarted, _ = client_for(layout_detections(), collect=folder)  # a later run: earlier photos kept
    assert restarted.get("/api/faces").json()["collect"] == 2
    token = restarted.post("/api/read", content=other_photo.tobytes()).json()["token"]
    saved = restarted.post("/api/labels", json={"token": token, "name": "IMG_7", "store": True, "removed": [0]})
    assert saved.json()["saved"] == "IMG_7_2" and saved.json()["photos"] == 2  # known by its pixels
    assert saved.json()["replaced"] and not saved.json()["truth"]
    assert saved.json()["backup"].startswith("labels_backup/IMG_7_2.")
    assert not (folder / "meta" / "IMG_7_2.json").exists()  # 13 tiles and a 1m added by the score: no truth now
    assert len(read_labels(folder / "labels" / "IMG_7_2.txt")) == 13
    assert read_labels(folder / "labels" / "IMG_7.txt")[0, 0] == Tile.ZHONG.index


def test_storing_labels_needs_a_dataset_folder(photo, tmp_path):
    client, _ = client_for(layout_detections())
    assert client.get("/api/faces").json()["collect"] is None
    token = client.post("/api/read", content=photo).json()["token"]
    r = client.post("/api/labels", json={"token": token, "store": True})
    assert r.status_code == 400 and "--collect" in r.json()["error"]
    (tmp_path / "file").write_text("")
    with pytest.raises(ValueError, match="expected a dataset folder"):
        client_for(layout_detections(), collect=tmp_path / "file")


@pytest.mark.parametrize(("as_read", "face"), [
    pytest.param(False, Tile.S2, id="the-likeliest-legal-reading-scored"),
    pytest.param(True, Tile.S3, id="as-read"),
])
def test_labels_carry_the_faces_the_page_showed(photo, tmp_path, as_read, face):
    client, _ = client_for(layout_detections(misread_2s_as_3s=True))  # tile #10: a 2s read as 3s, 2s its 2nd choice
    token = client.post("/api/read", content=photo).json()["token"]
    shown = client.post("/api/rescore", json={"token": token, "as_read": as_read}).json()
    assert ("repaired" in shown["reading"]) is not as_read  # scored as 2s (drawn 三条→二条), or as read
    r = client.post("/api/labels", json={"token": token, "name": "hand", "as_read": as_read})
    root = _unzipped(r.content, tmp_path)
    assert read_labels(root / "labels" / "hand.txt")[10, 0] == face.index
    meta = json.loads((root / "meta" / "hand.json").read_text(encoding="utf-8"))  # the score, as the truth
    assert meta["tiles"][10]["cls"] == face.index and meta["source"] == "page"
    assert meta["expect"]["valid"] is not as_read  # 3 炮, or the 诈胡 of the tiles as read
