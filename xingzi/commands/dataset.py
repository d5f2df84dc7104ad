"""``xingzi dataset check|merge|split``: find label errors, combine datasets, split by source photo."""

from __future__ import annotations

import argparse
from pathlib import Path

from xingzi.datasets.classnames import dropped_note
from xingzi.datasets.yolo import unread_note


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    check = sub.add_parser("check", help="find label errors (exit 1 when there are errors)")
    check.add_argument("dir", help="YOLO dataset folder (images/, labels/, data.yaml) or a zip of one")
    check.add_argument("--json", action="store_true", help="print the report as JSON")
    check.add_argument("--max-per-kind", type=int, default=20, help="issues shown per kind in the text report "
                       "(default 20; 0: only how many of each kind)")
    check.add_argument("--model", help="also read every image with a model ('auto': the shipped detector and "
                       "classifier, or a weights file): labelled tiles it reads surely as another face, and tiles it "
                       "finds surely where there is no label, are warnings (datasets/audit.py)")
    check.add_argument("--sure", type=float, default=None,
                       help="with --model: the confidence from which to warn (default 0.8)")
    check.add_argument("--errata", default="none", metavar="FILE",
                       help="read the labels of the photos a label-errata file fixes as corrected ('auto': "
                            "datasets/errata/<folder>.toml; default 'none'): what is left is what is not fixed yet")
    merge = sub.add_parser("merge", help="combine YOLO datasets into one (classes mapped by name)")
    merge.add_argument("sources", nargs="+", help="dataset folders or zips (e.g. the page's saved labels: "
                       "`xingzi dataset merge old_set *.zip --out new_set`)")
    merge.add_argument("--out", required=True, help="new dataset folder")
    merge.add_argument("--link", action="store_true", help="hard-link images instead of copying")
    split = sub.add_parser("split", help="split into train/val by source photo",
                           description="Split a dataset into train/val by source photo. In place (no --out) it writes "
                           "DIR/train.txt and DIR/val.txt and points DIR/data.yaml at them (its other keys kept); a "
                           "train.txt/val.txt there that lists otherwise (another --seed or --val, or lists of your "
                           "own), or a data.yaml with comments, is refused unless --overwrite is given; the same split "
                           "again changes nothing.")
    split.add_argument("dir", help="YOLO dataset folder")
    split.add_argument("--val", type=float, default=0.15,
                       help="share of images for validation (default 0.15): the nearest count, whole source photos, "
                            "at least one in each part")
    split.add_argument("--seed", type=int, default=0)
    split.add_argument("--out", help="copy into OUT/images/{train,val}; default: write train.txt/val.txt in DIR")
    split.add_argument("--link", action="store_true", help="with --out: hard-link images instead of copying")
    split.add_argument("--overwrite", action="store_true",
                       help="in place: replace DIR's train.txt/val.txt that list otherwise, and write data.yaml again "
                            "even if that drops its comments")


def _folder_of(path: str) -> str:
    """A data.yaml given (as `xingzi eval --data` takes it) stands for its folder."""
    p = Path(path)
    return str(p.parent) if p.suffix.lower() in (".yaml", ".yml") and p.is_file() else path


def run(args: argparse.Namespace) -> int:
    given = args.sources if args.action == "merge" else [args.dir]
    blank = next((path for path in given if not path.strip()), None)
    if blank is not None:  # Path('') is the current folder: it was read (and split wrote there)
        raise ValueError(f"{'a source' if args.action == 'merge' else 'DIR'} is empty: expected a dataset folder or "
                         f"zip, got {blank!r}")
    if args.action == "merge":
        args.sources = [_folder_of(s) for s in args.sources]
    else:
        args.dir = _folder_of(args.dir)
    if args.action == "check":
        from xingzi.datasets.check import refuse_max_per_kind
        from xingzi.datasets.zipped import dataset_folder

        refuse_max_per_kind(args.max_per_kind)  # before a --model reads every photo
        if args.sure is not None and not args.model:  # it was read as nothing
            raise ValueError(f"--sure is the confidence from which --model's readings warn: give --model too (got "
                             f"--sure {args.sure:g} without --model)")
        if args.sure is not None and not 0 < args.sure <= 1:  # said before the model is loaded
            raise ValueError(f"--sure must be in (0, 1], got {args.sure:g}")
        with dataset_folder(args.dir) as folder:
            ok, text = _check(args, folder)
        # a zip was read unpacked in a temporary folder: name its files as inside the zip
        if folder != Path(args.dir):
            text = text.replace(f"{folder}/", f"{args.dir}!/").replace(str(folder), args.dir)
        print(text)
        return 0 if ok else 1
    if args.action == "merge":
        from xingzi.datasets.merge import merge_datasets

        m = merge_datasets(args.sources, args.out, link=args.link)
        copies = {src: (k, first) for src, k, first in m.copies}
        for src, n in m.per_source:
            k, first = copies.get(src, (0, ""))
            skipped = f", skipped {k} identical (byte for byte) to photos merged before ({first}{', …' if k > 1 else ''})"
            print(f"{src}: {n} images" + (skipped if k else ""))
        if m.unmapped_names:
            print(f"dropped {m.dropped_boxes} boxes of classes we do not have: {', '.join(m.unmapped_names)}")
            if m.dropped_boxes:
                print(dropped_note(m.dropped_boxes))
        if m.unlabelled:
            print(f"skipped {m.unlabelled} images without a label file")
        for src in args.sources:
            if Path(src).is_dir() and (note := unread_note(src)):
                print(f"note: {note}")
        held = len(list((Path(m.out) / "labels").glob("*.txt")))  # a merge into a set adds to what it held
        print(f"{m.out}: {m.images} images merged" + (f", {held} in the set" if held != m.images else ""))
        return 0
    from xingzi.datasets.split import split_dataset

    if args.seed < 0:  # as synth refuses one
        raise ValueError(f"--seed must be 0 or more, got {args.seed}")
    s = split_dataset(args.dir, val=args.val, seed=args.seed, out=args.out, link=args.link, overwrite=args.overwrite)
    print(f"{s.root}: train {len(s.train)} images ({s.groups_train} source photos), "
          f"val {len(s.val)} images ({s.groups_val} source photos)")
    if s.unlabelled:
        print(f"left out {s.unlabelled} images without a label file")
    if note := unread_note(args.dir):
        print(f"note: {note}")
    return 0


def _check(args: argparse.Namespace, folder: Path) -> tuple[bool, str]:
    """(no errors, the report as text or JSON) for the dataset unpacked or found at ``folder``."""
    from xingzi.datasets.check import check_dataset, dataset_pairs
    from xingzi.datasets.errata import errata_for

    errata = errata_for(args.errata, Path(args.dir), [image for image, _ in dataset_pairs(folder)])
    report = check_dataset(folder, errata)
    if args.model:
        from dataclasses import replace

        from xingzi.datasets.audit import SURE, audit_dataset
        from xingzi.vision.pipeline import make_detector

        detector = make_detector(None if args.model == "auto" else args.model, None)
        warnings = audit_dataset(folder, detector, SURE if args.sure is None else args.sure, errata)
        report = replace(report, issues=report.issues + tuple(warnings))
    if args.json:
        return report.ok, report.to_json()
    head = f"read as corrected: {errata.summary()}\n" if errata else ""
    return report.ok, head + report.format_text(args.max_per_kind)
