"""``mjtable PHOTO``: score the hand on a photo (the default command); ``read_photo`` is audit's too."""
from __future__ import annotations

import argparse
import json
import time

from mjtable import pipeline
from mjtable.errors import EXIT_OK, UnreadableError
from mjtable.outputs import check_outputs, write_atomic
from mjtable.pipeline import KINDS, Reading

from . import (Parser, add_common, add_detections, add_facts, annotated, commands_help, png_bytes, print_reading,
               referee_from_args, situation_from_args)


def main(argv: list[str]) -> int:
    ap = parser("mjtable")
    a = ap.parse_args(argv)
    outputs = [a.annotate] if a.annotate is not None else []
    check_outputs(outputs, inputs(a))          # before the photo is read: a refusal costs nothing
    try:
        img, out = read_photo(a)
    except UnreadableError as e:               # nothing read: the JSON says why and how to retake, as the API does
        if a.json:
            print(json.dumps({"error": e.reason, "advice": list(e.advice)}, ensure_ascii=False))
        raise
    if a.annotate is not None:
        write_atomic(a.annotate, png_bytes(annotated(img, out)), inputs(a))
    print_reading(out, a)
    pipeline.verdict(out)
    return EXIT_OK


def parser(prog: str) -> argparse.ArgumentParser:
    ap = Parser(prog=prog, description="Score the Mahjong hand on a photo.",
                formatter_class=argparse.RawDescriptionHelpFormatter,
                epilog=commands_help() + "\n\nmjtable --help-exit lists the exit codes, mjtable --version the version.")
    ap.add_argument("photo", help="image file (jpg/png)")
    ap.add_argument("--kind", choices=KINDS, default="auto",
                    help="phone photo of one hand, or overhead frame of the table (default: guess)")
    ap.add_argument("--annotate", metavar="OUT.png", help="write the photo with what was read drawn on it")
    add_detections(ap)
    add_common(ap)
    add_facts(ap)
    return ap


def read_photo(a) -> tuple[object, Reading]:
    pipeline.check_rules(a.rules, a.profile)
    t0 = time.perf_counter()
    img, stretched = pipeline.load_frame(a.photo)
    t1 = time.perf_counter()
    det = pipeline.FileDetector(a.detections) if a.detections else pipeline.load_detector()
    t2 = time.perf_counter()
    out = pipeline.read_image(img, det, situation_from_args(a), a.rules, a.profile, a.kind, **referee_from_args(a),
                              stretched=stretched)
    out.ms = {"read": (t1 - t0) * 1000, "load_model": (t2 - t1) * 1000, **out.ms}
    return img, out


def inputs(a) -> list:
    """The files a photo command reads: no output of it may be written over them (the detector's models too)."""
    from mjtable.vision.detector_config import MODEL_ARGS, int8_path
    models = [p for m in MODEL_ARGS.values() if m is not None for p in (m, int8_path(m))]
    return [x for x in (a.photo, a.detections) if x] + models
