"""Label errata: corrections to a dataset's labels, checked against the file they were written for."""

from __future__ import annotations

import json

import numpy as np
import pytest
from PIL import Image
from yolo_folder import label_text, write_yolo_folder

from xingzi.cli import main
from xingzi.datasets.errata import ERRATA_DIR, errata_path, fix_rows, load_errata, shipped_fixer
from xingzi.vision.evaluate import load_dataset, name_table, truths_for

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
])
def test_bad_errata_files_say_what_is_wrong(tmp_path, text, match):
    (tmp_path / "bad.toml").write_text(text)
    with pytest.raises(ValueError, match=match):
        load_errata(tmp_path / "bad.toml")


def test_eval_scores_against_the_corrected_labels_only_when_asked(dataset, tmp_path, capsys):
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
    from xingzi.models.train import SHARED_DATA

    files = sorted(ERRATA_DIR.glob("*.toml"))
    assert [f.stem for f in files] == ["real_cn_train", "real_cn_val"]
    for path in files:
        folder = SHARED_DATA / path.stem
        assert folder.is_dir(), f"{folder} holds the photos {path.name} fixes (../shared/data)"
        names = read_class_names(folder)
        assert names is not None
        errata = load_errata(path)
        assert all(f.why for f in errata.photos)
        for fix in errata.photos:
            rows = read_labels(folder / "labels" / (fix.image.rsplit(".", 1)[0] + ".txt"))
            fixed = fix_rows(rows, fix, names)
            assert len(fixed) == len(rows) - fix.dropped
            assert (folder / "images" / fix.image).is_file()


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
