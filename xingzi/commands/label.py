"""``xingzi label``: pre-label photos with the model, and bring corrected labels back.

    xingzi label PHOTOS --out DATASET                  pre-label (YOLO + Label Studio files)
    xingzi label --import-labelstudio EXPORT.json --out DATASET
    xingzi label --import-yolo EXPORT_DIR --out DATASET   (CVAT / Roboflow YOLO export)
    xingzi label --export-labelstudio --out DATASET       (tasks file from the current labels)
"""

from __future__ import annotations

import argparse
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("photos", nargs="?", help="folder of photos to pre-label")
    parser.add_argument("--out", required=True, help="dataset folder (created if missing)")
    parser.add_argument("--model", help="detector weights .pt or .onnx (default: the shipped model)")
    parser.add_argument("--imgsz", type=int, default=None, help="model input size (default: the size the model was made for)")
    parser.add_argument("--conf", type=float, default=0.25, help="lowest score kept as a pre-label")
    parser.add_argument("--overwrite", action="store_true",
                        help="replace existing label files too (each is backed up to labels_backup/ first)")
    parser.add_argument("--link", action="store_true", help="hard-link photos into the dataset instead of copying")
    parser.add_argument("--url-prefix", help="image URL prefix in the Label Studio tasks "
                        "(default: /data/local-files/?d=<dataset folder name>/)")
    parser.add_argument("--no-progress", action="store_true")
    parser.add_argument("--import-labelstudio", metavar="EXPORT.json", help="Label Studio JSON export to bring back")
    parser.add_argument("--import-yolo", metavar="EXPORT_DIR", help="YOLO export of CVAT/Roboflow to bring in")
    parser.add_argument("--export-labelstudio", action="store_true",
                        help="only rewrite labelstudio_tasks.json/config.xml from the dataset's current labels")


def run(args: argparse.Namespace) -> int:
    chosen = [x for x in (args.photos, args.import_labelstudio, args.import_yolo, args.export_labelstudio) if x]
    if len(chosen) != 1:
        raise ValueError("give exactly one of: PHOTOS folder, --import-labelstudio EXPORT.json, --import-yolo DIR, "
                         "--export-labelstudio")
    if args.export_labelstudio:
        from xingzi.datasets.labelstudio import write_labelstudio_files

        if not (Path(args.out) / "images").is_dir():
            raise FileNotFoundError(f"no dataset at {args.out} (expected {Path(args.out) / 'images'})")
        print(f"wrote {write_labelstudio_files(args.out, args.url_prefix)}")
        return 0
    if args.import_labelstudio or args.import_yolo:
        from xingzi.datasets.labelstudio import (
            import_labelstudio,
            import_yolo_export,
            write_labelstudio_files,
        )

        if args.import_labelstudio:
            r = import_labelstudio(args.import_labelstudio, args.out)
        else:
            r = import_yolo_export(args.import_yolo, args.out, link=args.link)
        write_labelstudio_files(args.out, args.url_prefix)
        print(f"{args.out}: {r.new} new, {r.replaced} replaced (old ones in {r.backups}), "
              f"{r.unchanged} unchanged, {r.not_annotated} tasks not annotated yet (pre-labels kept)")
        if r.unmapped_names:
            print(f"dropped {r.dropped_boxes} boxes of classes we do not have: {', '.join(r.unmapped_names)}")
            if r.dropped_boxes:
                from xingzi.datasets.classnames import dropped_note

                print(dropped_note(r.dropped_boxes))
        return 0
    from xingzi.datasets.label import detector_predictor, prelabel_folder
    from xingzi.vision.detector import MAX_IMGSZ

    if not 0 <= args.conf <= 1:  # said by the option's name (the detector names none)
        raise ValueError(f"--conf must be a confidence from 0 to 1, got {args.conf:g}")
    if args.imgsz is not None and (args.imgsz % 32 or not 32 <= args.imgsz <= MAX_IMGSZ):
        raise ValueError(f"--imgsz must be a multiple of 32 from 32 to {MAX_IMGSZ}, got {args.imgsz}")
    predict = detector_predictor(args.model, args.imgsz, args.conf)
    report = prelabel_folder(args.photos, args.out, predict, overwrite=args.overwrite, link=args.link,
                             show_progress=not args.no_progress, url_prefix=args.url_prefix,
                             model_version=Path(args.model).name if args.model else "xingzi_yolo11n")
    print(report.summary())
    return 1 if report.failed else 0
