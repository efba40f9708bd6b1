"""Evaluate a detector on any YOLO-labelled image folder (scripts/evaluate_detector.py), and read single-tile crops
pasted on cloth as the runtime reads a located box (the real-data evaluations and benchmarks).

A data set is ``DATA_DIR/images/**.{jpg,jpeg,png,bmp,webp}`` with ``DATA_DIR/labels/<same relative path>.txt``,
read by mjtable.vision.labels (boxes or polygons; an image without a label file has no tiles). Class indices are
the data set's own; a names mapping (mjtable.vision.names) turns them into tile ids. Prediction files, if given
instead of a model, use the same format plus an optional confidence as 6th number.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from mjtable.scoring import tiles as T

from .labels import DatasetError, read_yolo_rows
from .metrics import DetectionEvaluator, EvalResult

IMAGE_EXTS = (".jpg", ".jpeg", ".png", ".bmp", ".webp")


@dataclass(frozen=True)
class Sample:
    image: Path
    label: Path          # may not exist: no tiles in that image


def list_samples(data_dir) -> list[Sample]:
    data_dir = Path(data_dir)
    if not data_dir.is_dir():
        raise DatasetError(f"no such folder: {data_dir}")
    images, labels = data_dir / "images", data_dir / "labels"
    if not images.is_dir():
        raise DatasetError(f"{data_dir} has no images/ folder")
    if not labels.is_dir():
        raise DatasetError(f"{data_dir} has no labels/ folder")
    found = sorted(p for p in images.rglob("*") if p.suffix.lower() in IMAGE_EXTS and p.is_file())
    if not found:
        raise DatasetError(f"no images ({', '.join(IMAGE_EXTS)}) under {images}")
    return [Sample(p, (labels / p.relative_to(images)).with_suffix(".txt")) for p in found]


def images_of(spec: str, limit: int = 0) -> list[Path]:
    """The .jpg images of a YOLO folder given as ``DIR`` or ``DIR:GLOB`` (a file-name pattern without the
    extension), sorted; the first ``limit`` of them when limit > 0."""
    d, _, pattern = spec.partition(":")
    files = sorted(Path(d).glob(f"images/{pattern or '*'}.jpg"))
    return files[:limit] if limit else files


Predictor = Callable[[np.ndarray, Sample], tuple[np.ndarray, np.ndarray, np.ndarray]]


def detector_predictor(detector) -> Predictor:
    """Wrap an object with ``detect(img) -> list[Detection]`` as a Predictor."""
    def predict(img, sample):
        dets = detector.detect(img)
        return (np.array([d.box for d in dets], dtype=np.float64).reshape(-1, 4),
                np.array([d.kind for d in dets], dtype=np.int64),
                np.array([d.confidence for d in dets], dtype=np.float64))
    return predict


def labels_predictor(pred_dir, data_dir, mapping: dict[int, int]) -> Predictor:
    """Predictions read from YOLO txt files in ``pred_dir`` (same relative names as labels/)."""
    pred_dir, images = Path(pred_dir), Path(data_dir) / "images"
    if not pred_dir.is_dir():
        raise DatasetError(f"no such predictions folder: {pred_dir}")

    def predict(img, sample):
        path = (pred_dir / sample.image.relative_to(images)).with_suffix(".txt")
        return read_yolo_rows(path, mapping, img.shape[1], img.shape[0], with_conf=True)
    return predict


@dataclass
class Report:
    data_dir: str
    result: EvalResult
    ms_per_image: float | None            # mean time of the predictor per image (None: read from files)
    dropped: int = 0                      # predictions of classes the data set does not label
    classes: list[int] = field(default_factory=list)   # tile ids the data set labels


def evaluate(data_dir, mapping: dict[int, int], predict: Predictor, load_image: Callable[[str], np.ndarray],
             timed: bool = True, keep_all_classes: bool = False) -> Report:
    """Run ``predict`` on every image of ``data_dir`` and score it against the labels.

    Predictions of tile kinds the names file does not list are dropped (a set without flowers or backs
    cannot say whether such a detection is right) unless ``keep_all_classes``.
    """
    samples = list_samples(data_dir)
    labelled = sorted(set(mapping.values()))
    allowed = np.zeros(T.N_CLASSES, dtype=bool)
    allowed[labelled] = True
    ev = DetectionEvaluator(num_classes=T.N_CLASSES)
    times, dropped = [], 0
    from tqdm import tqdm
    for s in tqdm(samples, desc="images", disable=None, leave=False):    # a bar on a terminal only
        img = load_image(str(s.image))
        h, w = img.shape[:2]
        gt_boxes, gt_cls, _ = read_yolo_rows(s.label, mapping, w, h)
        t0 = time.perf_counter()
        boxes, cls, conf = predict(img, s)
        times.append(time.perf_counter() - t0)
        if not keep_all_classes and cls.size:
            keep = allowed[np.clip(cls, 0, T.N_CLASSES - 1)] & (cls >= 0) & (cls < T.N_CLASSES)
            dropped += int((~keep).sum())
            boxes, cls, conf = boxes[keep], cls[keep], conf[keep]
        ev.add(gt_boxes, gt_cls, boxes, cls, conf)
    ms = 1000 * float(np.mean(times)) if timed else None
    return Report(str(data_dir), ev.result(), ms, dropped, labelled)


# ---------------------------------------------------------------- output

def _num(x: float) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else round(float(x), 4)


def _name(t: int | None) -> str:
    return "background" if t is None else T.code(t)


def report_to_dict(rep: Report, k_confusions: int = 10) -> dict:
    r = rep.result
    return {
        "data": rep.data_dir, "images": r.n_images, "ground_truth": r.n_gt, "predictions": r.n_pred,
        "dropped_predictions": rep.dropped,
        "precision": _num(r.precision), "recall": _num(r.recall),
        "map50": _num(r.map50), "map50_95": _num(r.map50_95),
        "agnostic_recall50": _num(r.agnostic_recall), "flowers_ap50": _num(r.mean_ap50(T.FLOWERS)),
        "ms_per_image": None if rep.ms_per_image is None else round(rep.ms_per_image, 1),
        "per_class": {T.code(c): {"name_cn": T.chinese(c), "ground_truth": cr.n_gt, "predictions": cr.n_pred,
                                  "precision": _num(cr.precision), "recall": _num(cr.recall),
                                  "ap50": _num(cr.ap50), "ap50_95": _num(cr.ap50_95)}
                      for c, cr in r.per_class.items()},
        "worst_confusions": [{"truth": None if c.truth is None else T.code(c.truth),
                              "predicted": None if c.predicted is None else T.code(c.predicted),
                              "count": c.count} for c in r.worst_confusions(k_confusions)],
    }


def _f(x) -> str:
    return "   -  " if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:6.3f}"


def format_report(rep: Report, k_confusions: int = 10) -> str:
    r = rep.result
    out = [f"data: {rep.data_dir}  images: {r.n_images}  ground truth: {r.n_gt}  predictions: {r.n_pred}"
           + (f"  (dropped {rep.dropped} of kinds the set does not label)" if rep.dropped else ""),
           f"precision {_f(r.precision)}  recall {_f(r.recall)}  mAP50 {_f(r.map50)}  mAP50-95 {_f(r.map50_95)}"
           + ("" if rep.ms_per_image is None else f"  {rep.ms_per_image:.1f} ms/image"),
           f"any tile found at IoU 0.5 (class-agnostic recall) {_f(r.agnostic_recall)}  "
           f"flowers and seasons AP50 {_f(r.mean_ap50(T.FLOWERS))}",
           "",
           f"{'class':<10}{'gt':>6}{'pred':>6}{'P':>8}{'R':>7}{'AP50':>7}{'AP50-95':>8}"]
    for c, cr in r.per_class.items():
        label = f"{T.code(c)} {T.chinese(c)}"
        out.append(f"{label:<{10 - sum(ord(ch) > 0x2e80 for ch in label)}}{cr.n_gt:>6}{cr.n_pred:>6}"
                   f"  {_f(cr.precision)} {_f(cr.recall)} {_f(cr.ap50)} {_f(cr.ap50_95)}")
    conf = r.worst_confusions(k_confusions)
    out += ["", "worst confusions (IoU >= 0.5, any class):" if conf else "no confusions"]
    for c in conf:
        if c.truth is None:
            what = f"spurious {_name(c.predicted)} (nothing there)"
        elif c.predicted is None:
            what = f"missed {_name(c.truth)}"
        else:
            what = f"{_name(c.truth)} read as {_name(c.predicted)}"
        out.append(f"  {c.count:>5}  {what}")
    return "\n".join(out)


# ---------------------------------------------------------------- single-tile crops on cloth

CLOTH = (40, 110, 45)        # BGR green
FAMILIES = {"characters": range(0, 9), "dots": range(9, 18), "bamboo": range(18, 27), "honours": range(27, 34),
            "flowers": range(34, 42)}


def on_cloth(crop: np.ndarray, height: int = 64) -> tuple[np.ndarray, tuple[float, float, float, float]]:
    """The crop scaled to ``height`` px, pasted in the middle of a cloth three tiles wide; its box."""
    import cv2
    h, w = crop.shape[:2]
    tw = max(1, round(w * height / h))
    tile = cv2.resize(crop, (tw, height), interpolation=cv2.INTER_AREA)
    canvas = np.full((height * 3, tw * 3, 3), CLOTH, np.uint8)
    canvas[height:2 * height, tw:2 * tw] = tile
    return canvas, (tw, height, 2 * tw, 2 * height)


def crops_on_cloth(listed: list[tuple[Path, int]]) -> list[tuple[np.ndarray, tuple, int]]:
    """(picture, box, tile id) of each readable crop of (path, tile id) pairs, pasted on cloth (on_cloth)."""
    import cv2
    items = []
    for path, truth in listed:
        crop = cv2.imread(str(path))
        if crop is not None:
            items.append((*on_cloth(crop), truth))
    return items


def kind_probs(det, img: np.ndarray, box) -> np.ndarray:
    """The kind probabilities (43,) of one box, read as the runtime reads a located box of a photo of a hand: the
    classifier's first look on the box, then, when the detector takes them (DetectorConfig.looks), its more looks
    around the box as the detector's refiner (if any) moves it."""
    boxes = np.array([box], np.float32)
    return det.read_kinds(img, boxes, det.refine(img, boxes))[0][0]


def read_right(det, items: list[tuple[np.ndarray, tuple, int]]) -> dict[str, tuple[int, int]]:
    """{family or "all": (right, total)} of crops on cloth (crops_on_cloth) read by a TileDetector."""
    right = {k: [0, 0] for k in (*FAMILIES, "all")}
    for img, box, truth in items:
        got = int(np.argmax(kind_probs(det, img, box)))
        fam = next(k for k, r in FAMILIES.items() if truth in r)
        for k in (fam, "all"):
            right[k][0] += got == truth
            right[k][1] += 1
    return {k: (r, n) for k, (r, n) in right.items()}
