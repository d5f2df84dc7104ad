"""datasets/yolo.py's label reader: what a label line may be, and what it is told when it may not."""

from __future__ import annotations

import pytest

from xingzi.datasets.yolo import box_problem, read_labels


@pytest.mark.parametrize("line, told", [
    pytest.param("3 0.5 0.5 -0.1 0.1", "expected a box of some width and height, got w -0.1 h 0.1", id="negative-width"),
    pytest.param("3 0.5 0.5 0.1 0", "got w 0.1 h 0", id="no-height"),
    pytest.param("3 1.5 0.5 0.1 0.1", "wholly outside it at cx 1.5 cy 0.5", id="right-of-the-photo"),
    pytest.param("3 0.5 -0.06 0.1 0.1", "wholly outside it", id="above-the-photo"),
    pytest.param("3 0.5 0.5 0.1 0.1 0.2", "expected 5 numbers .*got 6", id="six-numbers"),
    pytest.param("3.5 0.5 0.5 0.1 0.1", "expected a whole class id, got 3.5", id="half-a-class"),
])
def test_a_label_line_boxing_no_tile_of_the_photo_is_refused_naming_its_line(tmp_path, line, told) -> None:
    path = tmp_path / "a.txt"
    path.write_text(f"1 0.5 0.5 0.1 0.1\n{line}\n", encoding="utf-8")
    with pytest.raises(ValueError, match=f"a.txt:2: .*{told}"):
        read_labels(path)


@pytest.mark.parametrize("values", [
    pytest.param([3, 0.98, 0.5, 0.1, 0.1], id="partly-outside-right"),
    pytest.param([3, -0.04, 0.5, 0.1, 0.1], id="partly-outside-left"),
    pytest.param([3, 0.5, 0.5, 1e-4, 1e-4], id="tiny"),
])
def test_a_box_the_frame_cuts_is_a_tile(values) -> None:
    assert box_problem(values) is None


def test_a_missing_label_file_is_no_tiles_and_a_good_one_reads_whole(tmp_path) -> None:
    assert read_labels(tmp_path / "none.txt").shape == (0, 5)
    path = tmp_path / "b.txt"
    path.write_text("1 0.5 0.5 0.1 0.1\n\n30 0.98 0.5 0.1 0.1\n", encoding="utf-8")
    assert read_labels(path).tolist() == [[1, 0.5, 0.5, 0.1, 0.1], [30, 0.98, 0.5, 0.1, 0.1]]


@pytest.mark.parametrize(("orientation", "size"), [pytest.param(1, (40, 30), id="upright"),
                                                   pytest.param(3, (40, 30), id="half-turn"),
                                                   pytest.param(6, (30, 40), id="quarter-turn"),
                                                   pytest.param(8, (30, 40), id="other-quarter-turn")])
def test_an_images_size_is_as_it_is_shown_its_exif_turn_applied(tmp_path, orientation, size):
    """Labels are drawn on the photo as shown (OpenCV and Ultralytics read it turned): eval scaled a phone's sideways
    photo's boxes by the stored width and height, and no tile matched."""
    from PIL import Image

    from xingzi.datasets.yolo import image_size

    exif = Image.Exif()
    exif[0x0112] = orientation
    for name in ("p.jpg", "p.png", "p.tif"):  # (Pillow turns a TIFF's size itself: not turned twice)
        Image.new("RGB", (40, 30)).save(tmp_path / name, exif=exif.tobytes() if name != "p.tif" else exif)
        assert image_size(tmp_path / name) == size, name
