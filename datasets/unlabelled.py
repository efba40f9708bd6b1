"""Tiles the shared real photos show but do not label, found by the models and checked by eye, kept as data.

The Chinese photo set boxes the tiles of the hand, but of the loose tiles beside it only some: one held-out photo
boxes 5 of about 27. A locator trained on such photos learns that a loose tile is background. Here each training
photo is read by models that see a tile differently (the general locator on the photo turned by 0-75 degrees, so
that a turned tile is once upright, and the overhead locator, trained on rivers of tiles lying every way), and a
box is a candidate where it is a face-up tile the size of the photo's labelled tiles that meets no label. The
candidates are shown on contact sheets and checked by eye; those kept are written to
``datasets/labels/added/<dataset>.csv`` and given to the locator's binary labels (class 0, face up). Their kind is
not known, so the classifier never trains on them. The committed tables were found with the models of their time
(the general locator `locsq2`); run again, later models find other candidates.
"""
from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mjtable.vision.metrics import box_iou as iou

ADDED = Path(__file__).resolve().parent / "labels" / "added"
TURNS = (0, 15, 30, 45, 60, 75)   # degrees the photo is turned for the general locator: a tile lies within 7.5 of one
MIN_SCORE = {"general": 0.5, "overhead": 0.4}
SAME = 0.4                        # IoU at which two candidates are one tile
MEETS_LABEL = 0.2                 # IoU with a label at which a candidate is that labelled tile
SIZE = (0.6, 1.8)                 # a candidate's side (square root of its area) against the labels' median side


@dataclass(frozen=True)
class Added:
    image: str
    x: float                      # normalised centre and size, as in a YOLO row
    y: float
    w: float
    h: float
    found_by: str                 # "general@30" (the locator on the photo turned 30 degrees) or "overhead"
    score: float


def side(boxes: np.ndarray) -> np.ndarray:
    b = np.asarray(boxes, float).reshape(-1, 4)
    return np.sqrt(np.clip(b[:, 2] - b[:, 0], 0, None) * np.clip(b[:, 3] - b[:, 1], 0, None))


def unlabelled(found: list[tuple[float, str, np.ndarray]], labels: np.ndarray) -> list[tuple[float, str, np.ndarray]]:
    """Of the boxes found ((score, found_by, x1 y1 x2 y2 in pixels), by any model), one per tile (the surest of
    those overlapping at SAME), kept where it meets no label (IoU under MEETS_LABEL and its centre in no label's
    box) and its side is SIZE times the labels' median side. A photo with no label gives none: nothing tells a
    tile's size there."""
    labels = np.asarray(labels, float).reshape(-1, 4)
    if not len(labels):
        return []
    kept: list[tuple[float, str, np.ndarray]] = []
    for f in sorted(found, key=lambda f: -f[0]):
        if kept and iou(f[2], np.array([k[2] for k in kept])).max() >= SAME:
            continue
        kept.append(f)
    med = float(np.median(side(labels)))
    out = []
    for score, by, b in kept:
        cx, cy = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
        inside = ((labels[:, 0] <= cx) & (cx <= labels[:, 2]) & (labels[:, 1] <= cy) & (cy <= labels[:, 3])).any()
        if inside or iou(b, labels).max() >= MEETS_LABEL:
            continue
        if SIZE[0] <= side(b)[0] / med <= SIZE[1]:
            out.append((score, by, b))
    return out


def find_candidates(img: np.ndarray, labels: np.ndarray, detector) -> list[tuple[float, str, np.ndarray]]:
    """unlabelled() of the face-up boxes the detector's general locator finds on the photo turned by each of
    TURNS, and its overhead locator finds on the photo as it is."""
    from mjtable.vision.level import boxes_back, turn
    found = []
    for deg in TURNS:
        if deg:
            canvas, m = turn(img, deg)
            b, s, c, _ = detector.locate(canvas)
            b, inside = boxes_back(b, m, img.shape)
        else:
            b, s, c, _ = detector.locate(img)
            inside = np.ones(len(b), bool)
        keep = inside & (c == 0) & (s >= MIN_SCORE["general"])
        found += [(float(sc), f"general@{deg}", bb) for sc, bb in zip(s[keep], b[keep])]
    if detector.loc_over is not None:
        b, s, c, _ = detector.locate(img, overhead=True)
        keep = (c == 0) & (s >= MIN_SCORE["overhead"])
        found += [(float(sc), "overhead", bb) for sc, bb in zip(s[keep], b[keep])]
    return unlabelled(found, labels)


def write_added(rows: list[Added], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["image", "x", "y", "w", "h", "found_by", "score"])
        for r in sorted(rows, key=lambda r: (r.image, r.y, r.x)):
            w.writerow([r.image, f"{r.x:.5f}", f"{r.y:.5f}", f"{r.w:.5f}", f"{r.h:.5f}", r.found_by, f"{r.score:.2f}"])


def load_added(dataset: str, folder: Path = ADDED) -> dict[str, list[str]]:
    """The added tiles of one dataset as binary YOLO rows (class 0, face up) by image name ({} when none)."""
    path = folder / f"{dataset}.csv"
    out: dict[str, list[str]] = {}
    if not path.exists():
        return out
    with path.open(encoding="utf-8", newline="") as f:
        for r in csv.DictReader(f):
            out.setdefault(r["image"], []).append(f"0 {r['x']} {r['y']} {r['w']} {r['h']}")
    return out
