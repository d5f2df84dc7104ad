"""``xingzi eval``: score detectors on a YOLO dataset and print them side by side."""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xingzi.vision.metrics import Scores
    from xingzi.vision.perturb import Perturbation

# The detector's extra readings of a photo that eval can switch off, one flag each: --no-<step>.
SECOND_READINGS = (
    ("stretched", "read each picture once as it is: no squeezed re-reading of pictures with almost no tiles "
                  "found (saved with one axis stretched)"),
    ("negative", "never read a photo's negative (done when the tiles found are read with little confidence: "
                 "dark tiles with light faces)"),
    ("sharpen", "never read a sharpened copy of a photo (done when the tiles found are read with some doubt: "
                "blurred photos)"),
    ("recheck", "never read a doubtful tile again from crops shifted four ways (the classifier's 'recheck')"),
    ("cut", "keep the boxes of tiles the photo's frame cuts to a sliver (under 0.35 of a tile inside: "
            "dropped by default)"),
    ("lone", "keep the boxes read with doubt that lie far from every tile read surely (dropped by default: "
             "tiles of the heap behind, things on the table)"),
    ("balance", "never read a white-balanced copy of a photo (done when the plate of the tiles found is coloured by "
                "the light: a warm bulb, shade)"),
    ("denoise", "never read a grainy photo smoothed (done when its noise at the model's scale is above "
                "xingzi.vision.denoise.NOISY: a phone in a dark room)"),
    ("deblur", "never read a copy of a shaken photo with its motion streak taken out (done when the streak found "
               "in its cepstrum is deeper than xingzi.vision.deblur.STREAK_DEPTH; kept when read more surely)"),
    ("defocus", "never read a copy of an out-of-focus photo with its blur disk divided out (done when the disk "
                "found in its cepstrum is deeper than xingzi.vision.defocus.DISK_DEPTH; kept when read more surely)"),
    ("fit", "read every photo on the model's padded square canvas (800x800), not on one fitted to the photo's "
            "shape (800x608 for a 4:3 photo: the same network, three quarters of its time)"),
    ("backcolour", "never read a box read as 白板 as a face-down tile by its colour (done when its middle is far "
                   "in colour from the plate of the faces read surely)"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", type=Path, required=True,
                        help="data.yaml, or a folder with images/ and labels/ (classes named by its data.yaml, "
                             "or a classes.txt there or in its parent)")
    parser.add_argument("--split", default="val", help="data.yaml key of the images to score (default val)")
    parser.add_argument("--model", type=Path, action="append", default=[],
                        help="detector weights .pt/.onnx (repeatable; default: the shipped model if no --preds)")
    parser.add_argument("--preds", type=Path, action="append", default=[],
                        help="folder of YOLO txt predictions 'cls cx cy w h conf' per image (repeatable); "
                             "class names from its classes.txt, else the dataset's")
    parser.add_argument("--name-map", default=None,
                        help="extra name table 'theirs=ours,...' ('theirs=' ignores) or a JSON file")
    parser.add_argument("--imgsz", type=int, default=None,
                        help="model input size for .pt weights (default: the size it was trained at)")
    parser.add_argument("--conf", type=float, default=0.25, help="operating threshold for P/R/F1/exact")
    parser.add_argument("--iou", type=float, default=0.5, help="NMS IoU of the model")
    parser.add_argument("--classifier", action="append", default=[],
                        help="second-stage tile classifier .onnx, 'none', or 'auto' (the shipped "
                             "models/xingzi_tilecls.onnx if present; the default); repeatable, one row each")
    for step, what in SECOND_READINGS:
        parser.add_argument(f"--no-{step}", dest=step, action="store_false", help=what)
    parser.add_argument("--second", action="append", default=[], metavar="PATH",
                        help="second-opinion .onnx averaged in where the model reads the tiles with doubt; "
                             "'auto' (default): the shipped stage-5 model, beside the shipped model only; 'none'; "
                             "repeatable: several are averaged, each network counting the same")
    parser.add_argument("--second-doubt", type=float, default=None, metavar="G",
                        help="ask the second opinion where the sure tiles' median confidence is under G "
                             "(default: the shipped gate; above 1: on every photo)")
    parser.add_argument("--perturb", default=None, metavar="NAME",
                        help="read every photo changed (true boxes moved with it): rot90, rot180, half, blur, "
                             "jpeg30, dim, warm, cold, noise, shot, motion, shake, defocus, shadow, glare, tilt or negate; "
                             "the row name ends in ~NAME")
    parser.add_argument("--exclude", action="append", default=[], metavar="GLOB",
                        help="leave out images whose file name matches (repeatable; e.g. known label errors)")
    parser.add_argument("--errata", default="none", metavar="FILE",
                        help="score against corrected labels: a TOML of label fixes, or 'auto' for "
                             "datasets/errata/<dataset folder>.toml (default 'none': the labels as shipped)")
    parser.add_argument("--out", type=Path, default=Path("runs/eval"), help="where JSON and PNGs go")
    parser.add_argument("--show-misses", type=int, default=None, metavar="N",
                        help="print, per row, how the images not read exactly went wrong and the first N of them "
                             "(0: the counts only; every one is in the JSON's 'images')")
    parser.add_argument("--by", action="append", default=[], metavar="KEY",
                        help="image exact per value of a field of meta/<stem>.json (synthetic sets: style, "
                             "layout, pattern), or per size of the tiles in pixels (tile_px: any set); repeatable")
    parser.add_argument("--draw-misses", type=Path, default=None, metavar="DIR",
                        help="draw each image not read exactly to DIR/<row>/<name>.jpg: misread boxes orange "
                             "(真 true, 读 read), boxes off their tile yellow, tiles not found red, boxes on no tile "
                             "purple")
    parser.add_argument("--save-preds", type=Path, default=None, metavar="DIR",
                        help="write each model row's boxes as YOLO txt to DIR/<row>/ ('cls cx cy w h conf', "
                             "classes.txt): --preds DIR/<row> scores them again without the model")
    parser.add_argument("--markdown", action="store_true", help="also print the rows as a Markdown table")
    parser.add_argument("--per-class", action="store_true",
                        help="also print each row's figures per face (truth, TP, FP, FN, P, R, F1, AP50; in the JSON "
                             "and <row>_per_class.png either way)")


def without_recheck(classifier: str):
    """The classifier ``--classifier`` names ('auto' or a path), built with its shifted re-reading off."""
    from xingzi.vision.classifier import DEFAULT_CLASSIFIER, TileClassifier

    return TileClassifier(DEFAULT_CLASSIFIER if classifier == "auto" else Path(classifier), recheck=0.0)


def unique_row(row: str, source: Path, taken: set[str]) -> str:
    """A row's name made unique among those ``taken``: as it is, else with the name of the folder of its ``source``
    (weights or a predictions folder) before it — runs saved by --save-preds, or models exported to different
    folders, share their file names — else numbered."""
    name = row
    if name in taken:
        name = f"{source.parent.name}-{row}"
    base, k = name, 2
    while name in taken:
        name, k = f"{base}-{k}", k + 1
    return name


def run(args: argparse.Namespace) -> int:
    from xingzi.datasets.errata import errata_for, without_images, without_unusable
    from xingzi.vision import eval_data as evd
    from xingzi.vision import evaluate as ev
    from xingzi.vision.detector import MAX_IMGSZ
    from xingzi.vision.eval_compare import compare, format_every_row_wrong, format_paired, wrong_in_every_row
    from xingzi.vision.eval_report import (
        check_by,
        check_out_folder,
        format_by,
        format_misses,
        format_per_class,
        write_miss_pictures,
        write_preds,
    )

    for flag, value in (("--conf", args.conf), ("--iou", args.iou)):
        if not 0 <= value <= 1:  # said before any work: past 1 nothing is kept, and F1 0 would look like a result
            raise ValueError(f"{flag} must be in [0, 1], got {value:g}")
    if args.imgsz is not None and (args.imgsz % 32 or not 32 <= args.imgsz <= MAX_IMGSZ):  # (the detector's own message names no option)
        raise ValueError(f"--imgsz must be a multiple of 32 from 32 to {MAX_IMGSZ}, got {args.imgsz}")
    if args.show_misses is not None and args.show_misses < 0:
        raise ValueError(f"--show-misses must be 0 or more, got {args.show_misses}")
    # where the results go, said before a photo is read (they were lost at the end, after every model had run)
    for flag, folder in (("--out", args.out), ("--draw-misses", args.draw_misses), ("--save-preds", args.save_preds)):
        if folder is not None:
            check_out_folder(flag, folder)
    ds = evd.load_dataset(args.data, args.split)
    from xingzi.datasets.yolo import jpeg_cut_short, unread_note

    if note := unread_note(ds.root):
        print(f"note: {note}", file=sys.stderr)
    cut = [p for p in ds.images if p.suffix.lower() in (".jpg", ".jpeg") and jpeg_cut_short(p)]
    if cut:  # read and scored as they are: their lower part grey (`xingzi dataset check` warns of them too)
        print(f"note: {len(cut)} JPEG(s) cut short, scored as they decode, e.g. {cut[0].name}", file=sys.stderr)
    errata = errata_for(args.errata, args.data, ds.images)
    if errata:
        print(errata.summary())
        ds = without_unusable(ds, errata)
    if args.exclude:
        n = len(ds.images)
        ds = without_images(ds, args.exclude)
        print(f"left out {n - len(ds.images)} of {n} images matching {', '.join(args.exclude)}")
    if not ds.images:
        raise ValueError(f"no images found for {args.data} ({args.split})")
    check_by(ds.images, ds.root / "meta", args.by)  # a mistyped key said now, not under '?' after the model ran
    per_image = (ds.images, args.by, ds.root / "meta")
    overrides = evd.parse_name_map(args.name_map)
    truths, sizes = evd.truths_for(ds, evd.name_table(ds.names, overrides), errata)
    if outside := evd.boxes_outside(ds):  # (`xingzi dataset check` calls them errors)
        which = f"{outside[0]} and {len(outside) - 1} more: label boxes reach" if len(outside) > 1 else \
            f"{outside[0]}: a label box reaches"
        print(f"warning: {which} outside the photo, scored clipped to it (`xingzi dataset check` lists each)",
              file=sys.stderr)
    unlabelled = {"no_label_file": evd.missing_labels(ds)}  # scored as photos of no tiles: said in the report
    perturb = None
    if args.perturb:
        from xingzi.vision.perturb import get

        perturb = get(args.perturb)
        if args.preds or args.save_preds:
            raise ValueError("--perturb changes the photos a model reads; it cannot apply to --preds or "
                             "--save-preds files")
        truths = evd.perturbed_truths(truths, sizes, perturb)
        print(f"every photo {perturb.what}")

    # every predictions file read, and a bad row refused, before a model runs
    given = [(d, evd.preds_from_dir(ds, sizes, d, evd.preds_table(d, ds, overrides))) for d in args.preds]
    models = list(args.model)
    if not models and not args.preds:
        from xingzi.vision.detector import default_weights

        models = [default_weights()]
    if args.save_preds and not models:  # the --preds rows' boxes are files already
        print(f"note: --save-preds writes a model row's boxes; with --preds rows alone nothing goes to "
              f"{args.save_preds}")
    results: list[dict] = []
    scored: list[tuple[Scores, list, Perturbation | None, bool]] = []  # per row: written once every row is printed
    for weights, classifier in itertools.product(models, args.classifier or ["auto"]):
        if not args.recheck and classifier != "none":
            classifier = without_recheck(classifier)
        preds, extra = ev.preds_from_model(ds, weights, args.imgsz, args.conf, args.iou, classifier=classifier,
                                           stretched=args.stretched, negative=args.negative, perturb=perturb,
                                           sharpen=args.sharpen, second=args.second or "auto",
                                           second_doubt=args.second_doubt,
                                           min_inside=None if args.cut else 0.0,
                                           lone_conf=None if args.lone else 0.0,
                                           back_far=None if args.backcolour else 0.0, balance=args.balance,
                                           noisy=None if args.denoise else 0.0,
                                           shaken=None if args.deblur else 0.0,
                                           defocused=None if args.defocus else 0.0, fit=args.fit)
        if args.second_doubt is not None and "second" not in extra:
            print(f"note: --second-doubt {args.second_doubt:g} unused: {Path(weights).name} reads without a second "
                  "opinion (the shipped one goes with the shipped model only; name one with --second)")
        row = f"{Path(weights).name}@{extra['latency']['imgsz']}" + (f"-iou{args.iou:g}" if args.iou != 0.5 else "")
        row += "".join(("-unstretched" if step == "stretched" else f"-no{step}")
                       for step, _ in SECOND_READINGS if not getattr(args, step))
        row += "".join(f"+{Path(p).stem}" for p in extra.get("second_paths", ()))
        row += f"@{extra['second_doubt']:g}" if args.second_doubt is not None and "second" in extra else ""
        row += f"~{perturb.name}" if perturb else ""
        row += f"+{Path(extra['classifier']).stem}" if "classifier" in extra else ""
        row = unique_row(row, Path(weights), {r["row"] for r in results})
        result, s = ev.score_row(truths, preds, args.conf, row,
                                 {"model": str(weights), "data": str(args.data), **unlabelled, **extra}, *per_image)
        results.append(result)
        scored.append((s, preds, perturb, True))
    for pred_dir, preds in given:
        missing = evd.missing_preds(ds, pred_dir)
        if missing:
            print(f"note: {len(missing)} of {len(ds.images)} photos have no prediction file in {pred_dir} (counted as "
                  f"finding no tile), e.g. {missing[0]}")
        row = unique_row(pred_dir.name, pred_dir, {r["row"] for r in results})
        result, s = ev.score_row(truths, preds, args.conf, row,
                                 {"preds": str(pred_dir), "data": str(args.data), **unlabelled}, *per_image)
        results.append(result)
        scored.append((s, preds, None, False))
    print(ev.format_rows(results))
    pairs = [compare(results[0], r, ev.HAND_MAX_TILES) for r in results[1:]]  # every row against the first
    if pairs:
        print("\n".join(format_paired(p) for p in pairs))
        print(format_every_row_wrong(wrong_in_every_row(results), results[0]["summary"]["images"], len(results)))
    for r in results:
        for key in args.by:
            print(format_by(r["row"], key, r["by"][key]))
    if args.show_misses is not None:
        for r in results:
            print(format_misses(r["row"], r["images"], r["misreads"], args.show_misses))
    if args.per_class:
        for r in results:
            print(format_per_class(r["row"], r["per_class"]))
    if args.markdown:
        print(ev.markdown_rows(results))
    # written last: a folder that fails even so (the disk full) costs the files, not the figures printed above
    sys.stdout.flush()
    for result, (s, preds, row_perturb, model_row) in zip(results, scored, strict=True):
        row = result["row"]
        ev.write_row(args.out, result, s)
        if args.save_preds and model_row:
            print(f"boxes written: {write_preds(ds.images, sizes, preds, args.save_preds / row)}")
        if args.draw_misses:
            n = write_miss_pictures(ds.images, truths, preds, args.conf, args.draw_misses / row, row_perturb)
            print(f"{n} pictures of images not read exactly: {args.draw_misses / row}")
    if pairs:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "comparison.json").write_text(json.dumps([p.as_dict() for p in pairs], indent=1) + "\n")
    else:  # one row: an earlier run's comparison in the same --out would pass for this one's
        (args.out / "comparison.json").unlink(missing_ok=True)
    print(f"written: {args.out}/<row>.json, <row>_confusion.png, <row>_per_class.png")
    return 0
