"""Detector figures: mAP50 / mAP50-95 on a synthetic test split and on the held-out real photos, confusions
of the known hard pairs, orientation accuracy, and ms per frame with onnxruntime on 2 threads.

    python -m scripts.evaluate_detector_figures [--locator models/tile_locator.onnx] [--float | --compare]
        [--overhead-locator models/tile_locator_overhead.onnx | --overhead-locator none] [--compare-overhead]
        [--compare-routing] [--compare-vote] [--compare-odd-back] [--compare-overhead-classifier]
        [--refiner models/tile_refiner.onnx | --refiner none] [--compare-refine]
        [--classifier models/tile_classifier.onnx | --one-stage] [--synth data/synth/test] [--real data/real/heldout]
        [--limit 200] [--conf 0.01]

The synthetic test split must come from a seed not used in training (data/synth/test: seed 9001; training
used seed 100). The real held-out split keeps whole source photos out of training
(scripts/prepare_detector_data.py). Metrics come from mjtable.vision.metrics (COCO-style 101-point AP).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from mjtable.scoring import tiles as T
from mjtable.vision.detector import (
    CLASSIFIER,
    LOCATOR,
    OVERHEAD_LOCATOR,
    REFINER,
    DetectorConfig,
    TileDetector,
)
from mjtable.vision.evaluate import images_of
from mjtable.vision.images import load_image
from mjtable.vision.labels import read_yolo
from mjtable.vision.metrics import IOU_THRESHOLDS, DetectionEvaluator, box_iou

ROOT = Path(__file__).resolve().parent.parent

# parts of the detector measured without and with (--compare-KEY): TileDetector argument set to None for
# "without", the two runs' names, and what the part is
PARTS = {
    "overhead": ("overhead_locator", "one locator", "with overhead locator",
                 "the overhead locator (int8, or float with --float)"),
    "routing": ("router", "no view router", "view router",
                "guessing the kind without and with the view router (speed also told the kind)"),
    "vote": ("vote", "no box voting", "box voting", "box voting (mjtable.vision.detector.vote_boxes)"),
    "odd-back": ("odd_back", "no back colour check", "back colour check",
                 "the back colour check (mjtable.vision.detector.odd_backs)"),
    "refine": ("refiner", "no refiner", "box refiner", "the box refiner (models/tile_refiner.onnx)"),
    "overhead-classifier": ("overhead_classifier", "one classifier", "overhead classifier",
                            "the overhead classifier (models/tile_classifier_overhead.onnx)"),
}
HARD_PAIRS = [  # (name, classes): confusions among these are reported; 1-bamboo: with any class
    ("1-bamboo bird vs others", [18]),
    ("4/5/6 dots", [12, 13, 14]),
    ("7/9 bamboo", [24, 26]),
    ("white dragon vs back", [31, T.BACK]),
]


def evaluate(det: TileDetector, files: list[Path], kinds_only: bool = False):
    """kinds_only: ground truth has no backs labelled (real riichi photos) -> drop predicted backs."""
    ev = DetectionEvaluator(T.N_CLASSES)
    orient_ok = orient_n = 0
    times = []
    for f in files:
        img = load_image(f)
        h, w = img.shape[:2]
        gb, gc = read_yolo(f.parent.parent / "labels" / (f.stem + ".txt"), w, h)
        t0 = time.perf_counter()
        dets = det.detect(img)
        times.append(time.perf_counter() - t0)
        if kinds_only:
            dets = [d for d in dets if d.kind != T.BACK]
        pb = np.array([d.box for d in dets], np.float64).reshape(-1, 4)
        pc = np.array([d.kind for d in dets], np.int64)
        ps = np.array([d.confidence for d in dets], np.float64)
        ev.add(gb, gc, pb, pc, ps)
        gt_json = f.parent.parent / "gt" / (f.stem + ".json")
        if gt_json.exists() and len(dets):
            objs = json.loads(gt_json.read_text())["objects"]
            ob = np.array([o["box"] for o in objs], np.float64).reshape(-1, 4)
            iou = box_iou(ob, pb)
            for i, o in enumerate(objs):
                j = int(iou[i].argmax())
                if iou[i, j] >= 0.5 and dets[j].kind == o["kind"]:
                    orient_n += 1
                    orient_ok += dets[j].orientation == o["orientation"]
    return ev.result(), (orient_ok / orient_n if orient_n else float("nan")), times


def hard_pair_lines(res) -> list[str]:
    """Confusions among each hard group (a one-class group: that class against every other class)."""
    cm = res.confusion[:-1, :-1]          # drop the background row/column
    out = []
    for name, cls in HARD_PAIRS:
        cells = []
        if len(cls) == 1:
            c = cls[0]
            n = int(cm[c].sum())
            cells = [(int(cm[c, j]), c, j) for j in range(len(cm)) if j != c and cm[c, j]]
            cells += [(int(cm[i, c]), i, c) for i in range(len(cm)) if i != c and cm[i, c]]
        else:
            n = int(cm[np.ix_(cls, cls)].sum())
            cells = [(int(cm[a, b]), a, b) for a in cls for b in cls if a != b and cm[a, b]]
        wrong = sum(k for k, _, _ in cells)
        cells.sort(reverse=True)
        desc = ", ".join(f"{T.code(a)}->{T.code(b)}: {k}" for k, a, b in cells[:4]) or "none"
        out.append(f"  {name}: {wrong} confusions among {n} matched tiles ({desc})")
    return out


class Told:
    """A detector told the kind of every frame (mjtable --kind), for timing beside guessing."""

    def __init__(self, det: TileDetector, kind: str):
        self.det, self.kind = det, kind

    def detect(self, img):
        return self.det.detect(img, self.kind)


def speed(dets: dict, files: list[Path], rounds: int = 3) -> dict[str, tuple[float, float, float]]:
    """ms per frame of each detector, timed in turns on the same frames (fair on a shared machine): median, and
    the 10th and 90th percentiles (this machine's speed swings by a third within seconds; the 10th percentile is
    close to what a frame costs on a quiet machine)."""
    imgs = [load_image(f) for f in files]
    for det in dets.values():
        for im in imgs[:2]:
            det.detect(im)
    times: dict[str, list[float]] = {k: [] for k in dets}
    for _ in range(rounds):
        for im in imgs:
            for k, det in dets.items():
                t0 = time.perf_counter()
                det.detect(im)
                times[k].append((time.perf_counter() - t0) * 1000)
    return {k: (float(np.median(v)), float(np.percentile(v, 10)), float(np.percentile(v, 90)))
            for k, v in times.items()}


def speed_lines(dets: dict[str, TileDetector], synth: str, told: bool = False, rounds: int = 10) -> list[str]:
    """Speed on phone photos and on overhead frames separately (an overhead frame has ~130 tiles to classify,
    a phone photo ~16). told: also the last detector told each frame's kind."""
    d = synth.partition(":")[0]
    out = []
    for kind in ("phone", "overhead"):
        files = images_of(f"{d}:{kind}_*", 12)
        if not files:
            continue
        runs = dict(dets)
        if told:
            runs["told the kind"] = Told(list(dets.values())[-1], kind)
        ms = speed(runs, files, rounds)
        h, w = load_image(files[0]).shape[:2]
        base = next(iter(ms.values()))[0]
        out.append(f"  speed, {kind} {w}x{h} (ms per frame, median [10th-90th percentile] of {rounds * len(files)}, "
                   f"onnxruntime 2 threads, both stages): "
                   + ", ".join(f"{k} {m:.1f} [{lo:.1f}-{hi:.1f}]" + (f" ({base / m:.2f}x)" if i else "")
                               for i, (k, (m, lo, hi)) in enumerate(ms.items())))
    return out


def report(name: str, det: TileDetector, synth: str, real: str, limit: int) -> dict:
    out = {}
    print(f"== {name}")
    for split, spec, kinds_only in (("synthetic test", synth, False), ("real held-out", real, True)):
        files = images_of(spec, limit)
        if not files:
            print(f"  {split}: no images at {spec}")
            continue
        res, orient, _ = evaluate(det, files, kinds_only)
        out[split] = (res.map50, res.map50_95)
        print(f"  {split} ({res.n_images} images, {res.n_gt} tiles): mAP50 {res.map50:.3f}  "
              f"mAP50-95 {res.map50_95:.3f}  P {res.precision:.3f}  R {res.recall:.3f}"
              + (f"  orientation acc {orient:.3f}" if orient == orient else ""))
        print("  mAP by IoU threshold (where mAP50-95 is lost): "
              + "  ".join(f"{t:.2f} {v:.3f}" for t, v in zip(IOU_THRESHOLDS, res.map_by_iou)))
        for line in hard_pair_lines(res):
            print(line)
        worst = [c for c in res.worst_confusions(6, include_background=False)]
        if worst:
            print("  worst confusions: " + ", ".join(f"{T.code(c.truth)}->{T.code(c.predicted)}: {c.count}"
                                                     for c in worst))
    return out


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--locator", type=Path, default=LOCATOR)
    ap.add_argument("--classifier", type=Path, default=CLASSIFIER)
    ap.add_argument("--one-stage", action="store_true", help="the locator predicts the 43 kinds itself")
    ap.add_argument("--synth", default=str(ROOT / "data/synth/test"), help="YOLO dir[:glob]")
    ap.add_argument("--real", default=str(ROOT / "data/real/heldout"))
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--conf", type=float, default=0.01)
    ap.add_argument("--name", default=None)
    ap.add_argument("--float", action="store_true", help="the float models even where int8 ones exist")
    ap.add_argument("--compare", action="store_true", help="float and int8 models side by side")
    ap.add_argument("--overhead-locator", default=str(OVERHEAD_LOCATOR),
                    help="locator for frames that look overhead (default: the committed one; 'none': never)")
    ap.add_argument("--refiner", default=str(REFINER), help="box refiner (default: the committed one; 'none': off)")
    for key, (_, off, on, what) in PARTS.items():
        ap.add_argument(f"--compare-{key}", action="store_true", help=f"{what}: '{off}' and '{on}' side by side")
    return ap


def main(argv=None) -> int:
    a = build_parser().parse_args(argv)
    cls = None if a.one_stage else a.classifier
    over = None if a.overhead_locator == "none" else Path(a.overhead_locator)
    refiner = None if a.refiner == "none" else Path(a.refiner)
    parts = [k for k in PARTS if getattr(a, "compare_" + k.replace("-", "_"))]
    if a.compare:
        variants = {"float": dict(int8=False), "int8": dict(int8=True)}
    elif parts:
        arg, off, on, _ = PARTS[parts[0]]
        variants = {off: dict(int8=not a.float, **{arg: None}), on: dict(int8=not a.float)}
    else:
        variants = {"": dict(int8=not a.float)}
    for kw in variants.values():
        kw.setdefault("overhead_locator", over)
        kw.setdefault("refiner", refiner)
    dets = {}
    for tag, kw in variants.items():
        det = TileDetector(DetectorConfig(locator=a.locator, classifier=cls, conf=a.conf, **kw))
        name = det.locator_path.name + ("" if cls is None else f" + {Path(det.classifier_path).name}")
        if det.overhead_locator_path is not None:
            name += f" (overhead frames: {Path(det.overhead_locator_path).name}"
            if det.overhead_classifier_path is not None:
                name += f" + {Path(det.overhead_classifier_path).name}"
            name += ")"
        if det.refiner_path is not None:
            name += f" + {Path(det.refiner_path).name}"
        report(a.name or (f"{tag}: {name}" if tag else name), det, a.synth, a.real, a.limit)
        # speed at the runtime's operating point (default confidence threshold), not at the low threshold
        # that the AP computation needs (which sends hundreds of weak boxes to the classifier)
        dets[tag or name] = TileDetector(DetectorConfig(locator=a.locator, classifier=cls, **kw))
    for line in speed_lines(dets, a.synth, told=a.compare_routing):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
