"""``mjtable evaluate DATA --names NAMES``: measure the tile detector on any YOLO-labelled image folder
(mjtable.vision.evaluate), or score another detector's YOLO predictions the same way.

DATA holds images/ and labels/ (YOLO txt; polygon rows are turned into boxes). NAMES is the set's ultralytics
data.yaml (``names:`` as a list or {index: name}) or a JSON file with ``names``; vision/names.py lists the naming
schemes it reads. Prints precision, recall, mAP50, mAP50-95 overall and per class, the worst confusions and the
detector's time per image; ``--json`` prints one JSON object instead. A folder or names file that cannot be read
exits 3 (input), a model that cannot be loaded 7, conflicting options 2."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from mjtable.errors import EXIT_OK, InputError, UsageError, shown

from . import Parser


def _probability(text: str) -> float:
    """An argparse type: a confidence threshold, a number from 0 to 1."""
    try:
        v = float(text)
    except ValueError:
        v = float("nan")
    if not 0.0 <= v <= 1.0:
        raise argparse.ArgumentTypeError(f"want a confidence from 0 to 1: {shown(text)}")
    return v


def build_parser(prog: str = "mjtable evaluate") -> Parser:
    ap = Parser(prog=prog, description="Measure the tile detector on a YOLO-labelled image folder (or score "
                "YOLO predictions): precision, recall, mAP50, mAP50-95, per class, the worst confusions.")
    ap.add_argument("data_dir", metavar="DATA", help="folder with images/ and labels/")
    ap.add_argument("--names", required=True, help="data.yaml or JSON with the set's class names")
    ap.add_argument("--model", help="ONNX tile model (the locator) to use instead of the committed default")
    ap.add_argument("--classifier", help="ONNX tile classifier to use instead of the committed default")
    ap.add_argument("--conf", type=_probability,
                    help="detector confidence threshold (default: the detector's own; 0.001 gives the full "
                         "precision/recall curve, as ultralytics val does)")
    ap.add_argument("--predictions", help="folder of YOLO txt predictions to score instead of running a model")
    ap.add_argument("--keep-all-classes", action="store_true",
                    help="also count predictions of tile kinds the set does not label (flowers, backs ...)")
    ap.add_argument("--confusions", type=int, default=10, help="how many worst confusions to list")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    return ap


def _predictor(a, mapping):
    """(predict, timed): the YOLO predictions given, or the detector (its models as the options say)."""
    from mjtable.vision.evaluate import detector_predictor, labels_predictor
    if a.predictions:
        if a.model or a.classifier or a.conf is not None:
            raise UsageError("--model/--classifier/--conf run a model: not with --predictions")
        return labels_predictor(a.predictions, a.data_dir, mapping), False
    from mjtable.vision.detector_config import DetectorConfig
    from mjtable.vision.locate import load_detector
    kwargs = {"locator": Path(a.model)} if a.model else {}
    if a.classifier:
        kwargs["classifier"] = Path(a.classifier)
    if a.conf is not None:
        kwargs["conf"] = a.conf
    return detector_predictor(load_detector(config=DetectorConfig(**kwargs))), True


def main(argv: list[str]) -> int:
    a = build_parser().parse_args(argv)
    from mjtable.vision.evaluate import DatasetError, evaluate, format_report, list_samples, report_to_dict
    from mjtable.vision.images import load_image
    from mjtable.vision.names import NamesError, load_names
    try:
        mapping = load_names(a.names)
        list_samples(a.data_dir)                 # the folder is checked before a model is loaded
        predict, timed = _predictor(a, mapping)
        report = evaluate(a.data_dir, mapping, predict, lambda p: load_image(p), timed=timed,
                          keep_all_classes=a.keep_all_classes)
    except (NamesError, DatasetError) as e:
        raise InputError(str(e)) from None
    text = json.dumps(report_to_dict(report, a.confusions), ensure_ascii=False) if a.json \
        else format_report(report, a.confusions)
    sys.stdout.write(text + "\n")
    return EXIT_OK
