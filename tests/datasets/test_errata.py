"""Label errata: corrections to a dataset's labels, checked against the file they were written for."""

from __future__ import annotations

import json

import numpy as np
import pytest
from PIL import Image
from shared_folder import shared_file
from yolo_folder import label_text, write_yolo_folder

from xingzi.cli import main
from xingzi.datasets.errata import (
    ERRATA_DIR,
    UNREAD_ID,
    check_covers,
    errata_path,
    fix_rows,
    load_errata,
    shipped_fixer,
)
from xingzi.vision.eval_data import load_dataset, name_table, truths_for

NAMES = ["1m", "2m", "1p", "other"]
LABELS = {  # stem -> rows: class id, cx cy w h
    "a": [(2, 0.1, 0.5, 0.1, 0.4), (2, 0.3, 0.5, 0.1, 0.4), (2, 0.5, 0.5, 0.1, 0.4)],
    "b": [(0, 0.2, 0.5, 0.1, 0.4), (0, 0.2, 0.5, 0.1, 0.4)],  # one tile labelled twice
}
FIX_A = '''
[[photo]]
image = "a.png"
was = "1p 1p 1p"
now = "2m 1p other"
why = "every tile labelled 1p"
'''
FIXES = FIX_A + '''
[[photo]]
image = "b.png"
was = "1m 1m"
now = "1m -"
why = "the same tile twice"
'''


@pytest.fixture
def dataset(tmp_path):
    root = write_yolo_folder(tmp_path / "ds", NAMES, LABELS)
    (tmp_path / "fixes.toml").write_text(FIXES)
    return root


def test_fixes_relabel_and_drop_boxes_by_the_datasets_own_names(dataset, tmp_path):
    errata = load_errata(tmp_path / "fixes.toml")
    assert errata.summary().endswith("2 photos, 2 boxes relabelled, 1 dropped")
    a = fix_rows(np.array(LABELS["a"]), errata.photos[0], NAMES)
    assert a[:, 0].tolist() == [1, 2, 3]
    np.testing.assert_array_equal(a[:, 1:], np.array(LABELS["a"])[:, 1:])  # boxes untouched
    assert fix_rows(np.array(LABELS["b"]), errata.photos[1], NAMES).tolist() == [list(LABELS["b"][0])]
    plain, _ = truths_for(load_dataset(dataset), name_table(NAMES))
    fixed, _ = truths_for(load_dataset(dataset), name_table(NAMES), errata)
    assert [len(t) for t in plain] == [3, 2]
    assert [len(t) for t in fixed] == [3, 1]
    assert fixed[0].cls[2] < 0 and fixed[0].cls[:2].tolist() == [1, 9]  # `other` is ignored, 1p is ours 9


FIX_ADD = FIX_A + 'add = ["1m 0.7 0.5 0.1 0.4", "unread 0.9 0.5 0.1 0.4"]\n'


def test_added_tiles_are_scored_and_unread_ones_neither_hit_nor_miss(dataset, tmp_path, capsys, eval_scores_only):
    """A face nobody labelled counts like any label; a tile whose face is not given is not scored either way."""
    (tmp_path / "add.toml").write_text(FIX_ADD)
    errata = load_errata(tmp_path / "add.toml")
    assert errata.summary().endswith("1 photos, 2 boxes relabelled, 0 dropped, 2 added (1 of them tiles whose "
                                     "face is not given)")
    a = fix_rows(np.array(LABELS["a"]), errata.photos[0], NAMES)
    assert a[:, 0].tolist() == [1, 2, 3, 0, UNREAD_ID]
    np.testing.assert_allclose(a[3:, 1:], [[0.7, 0.5, 0.1, 0.4], [0.9, 0.5, 0.1, 0.4]])
    fixed, _ = truths_for(load_dataset(dataset), name_table(NAMES), errata)
    assert fixed[0].cls.tolist() == [1, 9, -1, 0, -2]  # the wind is IGNORE, the unread tile UNREAD: neither scored
    preds = tmp_path / "preds"
    preds.mkdir()
    right = [(1, 0.1, 0.5, 0.1, 0.4, 0.9), (2, 0.3, 0.5, 0.1, 0.4, 0.9), (0, 0.7, 0.5, 0.1, 0.4, 0.9)]
    (preds / "b.txt").write_text(label_text([(0, 0.2, 0.5, 0.1, 0.4, 0.9)]))
    summaries = []
    for extra in ([(2, 0.9, 0.5, 0.1, 0.4, 0.9)], []):  # a face read on the unread tile, or nothing there
        (preds / "a.txt").write_text(label_text(right + extra))
        out = tmp_path / f"out{len(summaries)}"
        assert main(["eval", "--data", str(dataset), "--preds", str(preds), "--out", str(out),
                     "--errata", str(tmp_path / "add.toml")]) == 0
        summaries.append(json.loads((out / "preds.json").read_text())["summary"])
    assert "2 added (1 of them" in capsys.readouterr().out
    assert [s["tiles"] for s in summaries] == [5, 5]  # a: 2m 1p 1m (the wind and the unread tile ignored); b: 2
    assert summaries[0]["image_exact"] == summaries[1]["image_exact"] == 0.5  # b's twin is still a "miss"
    (preds / "a.txt").write_text(label_text(right[:2]))  # the added 1m not found: a miss
    assert main(["eval", "--data", str(dataset), "--preds", str(preds), "--out", str(tmp_path / "o3"),
                 "--errata", str(tmp_path / "add.toml")]) == 0
    assert json.loads((tmp_path / "o3" / "preds.json").read_text())["summary"]["image_exact"] == 0.0


def test_a_negative_class_in_a_label_file_is_still_an_error_with_errata(dataset, tmp_path):
    """Only an erratum's added tiles may carry the unread mark; a file that says -1 is malformed."""
    (tmp_path / "add.toml").write_text(FIX_ADD)
    (dataset / "labels" / "b.txt").write_text(label_text([(-1, 0.2, 0.5, 0.1, 0.4)]))
    for errata in (None, load_errata(tmp_path / "add.toml")):
        with pytest.raises(ValueError, match=r"b.txt:1: expected a class id 0..3 \(one per class name\), got -1"):
            truths_for(load_dataset(dataset), name_table(NAMES), errata)


def test_an_added_face_must_be_one_of_the_datasets_names(tmp_path):
    (tmp_path / "add.toml").write_text(FIX_A + 'add = ["9s 0.7 0.5 0.1 0.4"]\n')
    with pytest.raises(ValueError, match=r"classes \['9s'\] are not among"):
        fix_rows(np.array(LABELS["a"]), load_errata(tmp_path / "add.toml").photos[0], NAMES)


UNUSABLE_B = '[[unusable]]\nimage = "b.png"\nwhy = "its boxes lost the tiles"\n'


def test_a_photo_whose_labels_are_unusable_is_not_scored(dataset, tmp_path, capsys, eval_scores_only):
    (tmp_path / "fixes.toml").write_text(FIX_A + UNUSABLE_B)
    errata = load_errata(tmp_path / "fixes.toml")
    assert errata.left_out == {"b.png"}
    assert errata.summary().endswith("0 dropped; 1 photos left out (labels unusable)")
    preds = tmp_path / "preds"
    preds.mkdir()
    (preds / "a.txt").write_text(label_text([(1, 0.1, 0.5, 0.1, 0.4, 0.9), (2, 0.3, 0.5, 0.1, 0.4, 0.9)]))
    (preds / "b.txt").write_text("")  # b's tiles not found: no longer counted
    assert main(["eval", "--data", str(dataset), "--preds", str(preds), "--out", str(tmp_path / "out"),
                 "--errata", str(tmp_path / "fixes.toml")]) == 0
    summary = json.loads((tmp_path / "out" / "preds.json").read_text())["summary"]
    assert (summary["images"], summary["image_exact"]) == (1, 1.0)
    assert main(["dataset", "check", str(dataset), "--errata", str(tmp_path / "fixes.toml")]) == 0
    assert "left out (labels unusable)" in capsys.readouterr().out
    only = tmp_path / "only.toml"
    only.write_text(UNUSABLE_B.replace("b.png", "zz.png"))
    with pytest.raises(ValueError, match="fixes 1 photos not in this dataset, e.g. zz.png"):
        check_covers(load_errata(only), load_dataset(dataset).images)


def test_a_fix_is_refused_when_the_labels_are_not_what_it_was_written_for(tmp_path, dataset):
    fix = load_errata(tmp_path / "fixes.toml").photos[0]
    changed = np.array(LABELS["a"])
    changed[1, 0] = 0  # someone relabelled a line since
    with pytest.raises(ValueError, match="read 1p 1m 1p, but the erratum was written for 1p 1p 1p"):
        fix_rows(changed, fix, NAMES)
    with pytest.raises(ValueError, match="are not among the dataset's names"):
        fix_rows(np.array(LABELS["a"]), fix, ["1m", "zhong", "1p", "other"])


@pytest.mark.parametrize(("text", "match"), [
    pytest.param("", "expected \\[\\[photo\\]\\] tables", id="empty"),
    pytest.param("[[photo]\n", "not valid TOML", id="not-toml"),
    pytest.param('[[photo]]\nimage = "a.png"\nwas = "1p"\nnow = "2m"\n', "expected the keys", id="no-why"),
    pytest.param('[[photo]]\nimage = "a.png"\nwas = "1p 1p"\nnow = "2m"\nwhy = ""\n', "one class per line",
                 id="lengths-differ"),
    pytest.param('[[photo]]\nimage = "a.png"\nwas = "1p -"\nnow = "2m -"\nwhy = ""\n', "only belongs in 'now'",
                 id="drop-in-was"),
    pytest.param('[[photo]]\nimage = "a.png"\nwas = ""\nnow = ""\nwhy = ""\n', "class names separated",
                 id="no-classes"),
    pytest.param(FIXES + FIXES, "fixed twice", id="twice"),
    pytest.param(FIX_A + 'add = "1p 0.5 0.5 0.1 0.1"\n', "a list of strings", id="add-not-a-list"),
    pytest.param(FIX_A + 'add = ["1p 0.5 0.5 0.1"]\n', "four numbers", id="add-three-numbers"),
    pytest.param(FIX_A + 'add = ["1p 0.5 0.5 0.1 x"]\n', "four numbers", id="add-not-a-number"),
    pytest.param(FIX_A + 'add = ["- 0.5 0.5 0.1 0.1"]\n', "four numbers", id="add-a-drop"),
    pytest.param(FIX_A + 'add = ["1p 0.98 0.5 0.2 0.1"]\n', "inside the photo", id="add-outside"),
    pytest.param(FIX_A + 'add = ["1p 0.5 0.5 0 0.1"]\n', "inside the photo", id="add-empty-box"),
    pytest.param(FIX_A + 'add = ["1p 0.5 0.5 0.1 0"]\n', "inside the photo", id="add-flat-box"),
    pytest.param(FIX_A + 'add = ["1p 0.5 0.98 0.1 0.2"]\n', "inside the photo", id="add-off-the-bottom"),
    pytest.param(FIX_A + 'add = ["1p 0.5 0.02 0.1 0.2"]\n', "inside the photo", id="add-off-the-top"),
    pytest.param(FIX_A + 'also = 1\n', "expected the keys", id="unknown-key"),
    pytest.param('[[unusable]]\nimage = "a.png"\n', "expected the keys image, why", id="unusable-no-why"),
    pytest.param(FIX_A + '[[unusable]]\nimage = "a.png"\nwhy = "x"\n', "fixed or left out twice",
                 id="fixed-and-left-out"),
])
def test_bad_errata_files_say_what_is_wrong(tmp_path, text, match):
    (tmp_path / "bad.toml").write_text(text)
    with pytest.raises(ValueError, match=match):
        load_errata(tmp_path / "bad.toml")


def test_eval_scores_against_the_corrected_labels_only_when_asked(dataset, tmp_path, capsys, eval_scores_only):
    preds = tmp_path / "preds"
    preds.mkdir()
    (preds / "a.txt").write_text(label_text([(1, 0.1, 0.5, 0.1, 0.4, 0.9), (2, 0.3, 0.5, 0.1, 0.4, 0.9)]))
    (preds / "b.txt").write_text(label_text([(0, 0.2, 0.5, 0.1, 0.4, 0.9)]))
    summaries = {}
    for errata in ("none", str(tmp_path / "fixes.toml")):
        out = tmp_path / f"out_{len(summaries)}"
        assert main(["eval", "--data", str(dataset), "--preds", str(preds), "--out", str(out),
                     "--errata", errata]) == 0
        summaries[errata] = json.loads((out / "preds.json").read_text())["summary"]
    assert "2 photos, 2 boxes relabelled, 1 dropped" in capsys.readouterr().out
    assert summaries["none"]["image_exact"] == 0.0  # the shipped labels: 2m "misread", b's twin "missed"
    assert summaries[str(tmp_path / "fixes.toml")]["image_exact"] == 1.0
    assert summaries[str(tmp_path / "fixes.toml")]["tiles"] == 3


def test_errata_for_photos_not_in_the_dataset_or_an_unknown_set_are_errors(dataset, tmp_path, capsys):
    (tmp_path / "other.toml").write_text(FIXES.replace("b.png", "zz.png"))
    code = main(["eval", "--data", str(dataset), "--preds", str(tmp_path), "--errata", str(tmp_path / "other.toml")])
    assert code != 0 and "fixes 1 photos not in this dataset, e.g. zz.png" in capsys.readouterr().err
    with pytest.raises(ValueError, match="no ds.toml in datasets/errata"):
        errata_path("auto", dataset)
    assert errata_path("none", dataset) is None


def test_the_shipped_errata_fit_the_label_files_they_were_written_for():
    """Every fix of datasets/errata applies to ../shared/data as it is (its fingerprint matches)."""
    from xingzi.datasets.check import read_class_names
    from xingzi.datasets.yolo import read_labels

    files = sorted(ERRATA_DIR.glob("*.toml"))
    assert [f.stem for f in files] == ["real_cn_train", "real_cn_val"]
    for path in files:
        folder = shared_file("data", path.stem)  # (found from a mutation clone inside the checkout too)
        assert folder.is_dir(), f"{folder} holds the photos {path.name} fixes (../shared/data)"
        names = read_class_names(folder)
        assert names is not None
        errata = load_errata(path)
        assert all(f.why for f in errata.photos)
        for fix in errata.photos:
            rows = read_labels(folder / "labels" / (fix.image.rsplit(".", 1)[0] + ".txt"))
            fixed = fix_rows(rows, fix, names)
            assert len(fixed) == len(rows) - fix.dropped + len(fix.add)
            assert (folder / "images" / fix.image).is_file()
        assert all((folder / "images" / u.image).is_file() and u.why for u in errata.unusable)


@pytest.fixture
def real_like(tmp_path, monkeypatch):
    """A folder named like a shipped errata file, in the real_cn class order (30 faces, then `other`)."""
    import xingzi.datasets.errata as errata_module
    from xingzi.datasets.tile_crops import REAL_NAMES

    root = tmp_path / "rc"
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    (root / "classes.txt").write_text("\n".join(REAL_NAMES) + "\n")
    Image.new("RGB", (200, 100), (90, 120, 90)).save(root / "images" / "a.png")
    (root / "labels" / "a.txt").write_text(label_text(LABELS["a"]).replace("2 ", "9 "))  # three 1p (id 9)
    errata_dir = tmp_path / "errata"
    errata_dir.mkdir()
    (errata_dir / "rc.toml").write_text(FIX_A)
    monkeypatch.setattr(errata_module, "ERRATA_DIR", errata_dir)
    return root


def test_training_reads_the_fixes_shipped_for_its_folder(real_like, tmp_path):
    from xingzi.datasets.tile_crops import Jitter, class_table, crops_of, names_of
    from xingzi.datasets.yolo import read_labels
    from xingzi.models.pack_real import pack_split
    from xingzi.models.train import make_view

    make_view(real_like, tmp_path / "view")
    pack_split(real_like, tmp_path / "pack", quality=70)
    for out in (tmp_path / "view", tmp_path / "pack"):  # 2m and 1p kept; the wind (`other`) is background
        assert read_labels(out / "labels" / "a.txt")[:, 0].tolist() == [1, 9]
    fix = shipped_fixer(real_like)
    table = class_table(names_of(real_like))
    rng = np.random.default_rng(0)
    crops = list(crops_of(real_like / "images" / "a.png", table, 1, rng, Jitter(), fix=fix))
    plain = list(crops_of(real_like / "images" / "a.png", table, 1, rng, Jitter()))
    assert [c for _, c in plain] == [9, 9, 9]
    assert [c for _, c in crops][:2] == [1, 9] and crops[2][1] != 9  # the third is the `other` class


def test_training_leaves_out_photos_whose_labels_are_unusable(real_like, tmp_path):
    import xingzi.datasets.errata as errata_module
    from xingzi.datasets.tile_crops import CropConfig, build
    from xingzi.models.pack_real import pack_split
    from xingzi.models.train import make_view

    Image.new("RGB", (200, 100), (90, 120, 90)).save(real_like / "images" / "b.png")
    (real_like / "labels" / "b.txt").write_text(label_text([(2, 0.5, 0.5, 0.2, 0.4)]))  # a box that lost its tile
    crops = build(CropConfig(str(real_like), None, str(tmp_path / "c0"), real_copies=1, dev_share=0))
    assert crops["counts"]["train"]["crops"] == 4  # a's three and b's one
    make_view(real_like, tmp_path / "view")
    assert sorted(p.name for p in (tmp_path / "view" / "images").iterdir()) == ["a.png", "b.png"]
    (errata_module.ERRATA_DIR / "rc.toml").write_text(FIX_A + UNUSABLE_B)
    assert [p.name for p in errata_module.training_images(real_like)] == ["a.png"]
    make_view(real_like, tmp_path / "view")  # made again: the stale link and labels go too
    assert [p.name for p in (tmp_path / "view" / "images").iterdir()] == ["a.png"]
    assert [p.name for p in (tmp_path / "view" / "labels").iterdir()] == ["a.txt"]
    assert pack_split(real_like, tmp_path / "pack", quality=70) == 1
    assert [p.name for p in (tmp_path / "pack" / "images").iterdir()] == ["a.webp"]
    crops = build(CropConfig(str(real_like), None, str(tmp_path / "c1"), real_copies=1, dev_share=0))
    assert crops["counts"]["train"]["crops"] == 3


def test_training_learns_added_faces_and_leaves_unread_tiles_out(real_like, tmp_path):
    import xingzi.datasets.errata as errata_module
    from xingzi.datasets.tile_crops import Jitter, class_table, crops_of, names_of
    from xingzi.datasets.yolo import read_labels
    from xingzi.models.train import make_view

    (errata_module.ERRATA_DIR / "rc.toml").write_text(FIX_ADD)
    make_view(real_like, tmp_path / "view")
    rows = read_labels(tmp_path / "view" / "labels" / "a.txt")
    assert rows[:, 0].tolist() == [1, 9, 0]  # 2m, 1p, and the added 1m; the wind and the unread tile are not there
    table = class_table(names_of(real_like))
    crops = list(crops_of(real_like / "images" / "a.png", table, 1, np.random.default_rng(0), Jitter(),
                          fix=shipped_fixer(real_like)))
    assert len(crops) == 4 and crops[3][1] == 0  # the wind's crop (`other`) and the added 1m; no unread crop


def test_a_whole_photo_box_is_inside_it():
    from xingzi.datasets.errata import _added

    assert _added(["1p 0.5 0.5 1 1"], "where") == (("1p", 0.5, 0.5, 1.0, 1.0),)


def test_a_folder_with_no_shipped_fixes_is_read_as_it_is(tmp_path):
    rows = np.array([[3, 0.5, 0.5, 0.1, 0.2], [30, 0.2, 0.2, 0.1, 0.1]])
    fix = shipped_fixer(tmp_path)  # no datasets/errata/<name>.toml for it
    np.testing.assert_array_equal(fix("a.png", rows), rows)
