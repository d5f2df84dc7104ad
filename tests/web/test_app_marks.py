"""The user's word on a held photo's tiles, at its edges: tile numbers and faces out of range said as what they are,
a face named inside a face-down kong, the tile the server placed named by its own number, a collecting server that
keeps a photo only when asked."""

from __future__ import annotations

import io
import zipfile

import pytest
from web_helpers import client_for, kong_down_detections, layout_detections, missed_tile_detections

from xingzi.engine.tiles import BACK_CLASS, Tile


@pytest.mark.parametrize(
    ("corrections", "message"),
    [
        pytest.param(
            {"-1": 3},
            "bad correction: correction for tile #-1: there are 14 tiles (0..13)",
            id="index-negative",
        ),
        pytest.param(
            {"0": -1},
            "bad correction: correction for tile #0: class must be 0..30, got -1",
            id="class-negative",
        ),
        pytest.param(
            {"999999999": 3},
            "bad correction: correction for tile #999999999: there are 14 tiles",
            id="nine-digits",
        ),
        pytest.param(
            {"1000000000": 3},
            "corrections: a tile index is a whole number written plainly, such as \"3\"; got '1000000000'",
            id="ten-digits",
        ),
    ],
)
def test_a_correction_out_of_range_is_said_as_a_bad_correction(photo, corrections, message):
    """Said of the correction itself (not of a tile added: none was), by the number the user sent."""
    client, _ = client_for(layout_detections())
    token = client.post("/api/read", content=photo).json()["token"]
    r = client.post("/api/rescore", json={"token": token, "corrections": corrections})
    assert r.status_code == 400 and r.json()["error"].startswith(message), r.json()["error"]


@pytest.mark.parametrize(
    "others",
    [
        pytest.param({}, id="alone"),
        pytest.param({"0": Tile.M1.index}, id="beside-a-correction-of-tile-0"),  # (#0 reads 1m: set as it is)
    ],
)
def test_a_face_named_in_the_middle_of_a_face_down_kong_goes_to_its_end(photo, others):
    """A face between backs makes no kong: the 中 named on #10 of the four backs (#8..#11) is put on the end nearest,
    #11, and the kong counts (6 炮), whatever other tiles the same request corrects."""
    det = kong_down_detections()
    assert int(det.cls[0]) == Tile.M1.index
    client, _ = client_for(det)
    token = client.post("/api/read", content=photo).json()["token"]
    body = client.post(
        "/api/rescore", json={"token": token, "corrections": {**others, "10": Tile.ZHONG.index}}
    ).json()
    kong = body["reading"]["tiles"][8:12]
    assert body["own"] == 6 and [t["role"] for t in kong] == ["concealed_kong"] * 4
    assert [t["cls"] for t in kong] == [BACK_CLASS] * 3 + [Tile.ZHONG.index]


def test_a_tile_placed_by_the_server_is_named_by_its_own_number_among_the_added(photo):
    """Two tiles added, the first tapped where it lies (#13), the second placed by the server (#14): the labels are
    refused for #14, the one whose box is no training label."""
    det, box = missed_tile_detections()
    client, _ = client_for(det)
    token = client.post("/api/read", content=photo).json()["token"]
    added = [{"cls": Tile.M5.index, "xyxy": box.tolist()}, {"cls": Tile.M5.index, "beside": 0}]
    r = client.post("/api/labels", json={"token": token, "added": added, "name": "hand"})
    assert r.status_code == 400 and r.json()["error"].startswith('tile #14 was added with "+"'), r.json()[
        "error"
    ]


@pytest.mark.parametrize(
    "store", [pytest.param({}, id="store-not-said"), pytest.param({"store": False}, id="store-false")]
)
def test_a_server_with_a_dataset_folder_keeps_a_photo_only_when_asked(photo, tmp_path, store):
    """The page's "save labels as a zip" on a collecting server: the zip comes back, the folder stays as it was."""
    folder = tmp_path / "collected"
    client, _ = client_for(layout_detections(), collect=folder)
    token = client.post("/api/read", content=photo).json()["token"]
    r = client.post("/api/labels", json={"token": token, "name": "hand", **store})
    assert r.status_code == 200 and r.headers["content-type"] == "application/zip"
    with zipfile.ZipFile(io.BytesIO(r.content)) as z:
        assert len(z.read("labels/hand.txt").decode().splitlines()) == 14
    assert client.get("/api/faces").json()["collect"] == 0 and not (folder / "labels" / "hand.txt").exists()
