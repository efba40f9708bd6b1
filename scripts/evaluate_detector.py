#!/usr/bin/env python
"""Measure the tile detector on any YOLO-labelled image folder.

    python -m scripts.evaluate_detector DATA_DIR --names NAMES.yaml [--json] [--model models/x.onnx]
    python -m scripts.evaluate_detector DATA_DIR --names NAMES.yaml --predictions PRED_DIR

DATA_DIR holds images/ and labels/ (YOLO txt; polygon rows are turned into boxes). NAMES.yaml is the set's
ultralytics data.yaml (``names:`` as a list or {index: name}) or a JSON file with ``names``; see vision/names.py
for the accepted naming schemes. Prints precision, recall, mAP50, mAP50-95 overall and per class, the worst
confusions and the detector's time per image; ``--json`` prints one JSON object instead.
``--predictions`` scores YOLO txt predictions (``class cx cy w h [conf]``, same class indices as the labels)
instead of running the model, so any detector's output can be measured the same way.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from mjtable.vision.evaluate import (DatasetError, detector_predictor, evaluate, format_report,
                             labels_predictor, list_samples, report_to_dict)
from mjtable.vision.names import NamesError, load_names


def _fail(msg: str) -> int:
    print(f"evaluate_detector: error: {msg}", file=sys.stderr)
    return 2


def _image_loader():
    try:
        from mjtable.vision.images import load_image
        return load_image
    except ImportError:
        import cv2

        def load_image(path):
            img = cv2.imread(path, cv2.IMREAD_COLOR)
            if img is None:
                raise DatasetError(f"not an image: {path}")
            return img
        return load_image


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("data_dir", help="folder with images/ and labels/")
    ap.add_argument("--names", required=True, help="data.yaml or JSON with the set's class names")
    ap.add_argument("--model", help="ONNX tile model (the locator) to use instead of the committed default")
    ap.add_argument("--classifier", help="ONNX tile classifier to use instead of the committed default")
    ap.add_argument("--conf", type=float,
                    help="detector confidence threshold (default: the detector's own; 0.001 gives the full "
                         "precision/recall curve, as ultralytics val does)")
    ap.add_argument("--predictions", help="folder of YOLO txt predictions to score instead of running a model")
    ap.add_argument("--keep-all-classes", action="store_true",
                    help="also count predictions of tile kinds the set does not label (flowers, backs ...)")
    ap.add_argument("--confusions", type=int, default=10, help="how many worst confusions to list")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    return ap


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        mapping = load_names(args.names)
        list_samples(args.data_dir)                 # check the folder before loading a model
        load_image = _image_loader()
        if args.predictions:
            if args.model or args.classifier or args.conf is not None:
                return _fail("--model/--classifier/--conf run a model: not with --predictions")
            predict = labels_predictor(args.predictions, args.data_dir, mapping)
            timed = False
        else:
            try:
                from mjtable.vision.detector import DetectorConfig, TileDetector
            except ImportError as e:
                return _fail(f"the detector is not available ({e})")
            kwargs = {}
            if args.model:
                kwargs["locator"] = Path(args.model)
            if args.classifier:
                kwargs["classifier"] = Path(args.classifier)
            if args.conf is not None:
                kwargs["conf"] = args.conf
            detector = TileDetector(DetectorConfig(**kwargs))
            predict = detector_predictor(detector)
            timed = True
        report = evaluate(args.data_dir, mapping, predict, load_image, timed=timed,
                          keep_all_classes=args.keep_all_classes)
    except (NamesError, DatasetError) as e:
        return _fail(str(e))
    except (ValueError, OSError, RuntimeError) as e:   # ImageError (ValueError), ModelError (RuntimeError) ...
        return _fail(f"{type(e).__name__}: {e}")
    text = json.dumps(report_to_dict(report, args.confusions), ensure_ascii=False) if args.json \
        else format_report(report, args.confusions)
    try:
        print(text, flush=True)
    except BrokenPipeError:                   # e.g. piped into head
        sys.stdout = open(os.devnull, "w")
    return 0


if __name__ == "__main__":
    sys.exit(main())
