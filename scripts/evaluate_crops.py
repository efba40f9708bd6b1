"""How often the crop classifier reads single real tile crops right, side by side for several classifiers.

Each labelled crop (Camerash/mahjong-dataset's raw-tiles with tiles-data/data.csv, in shared/data beside the
repository) is pasted at 64 px high on green cloth and its box classified as the runtime classifies a located
box of a photo of a hand (TileDetector.classify, then TileDetector.more_looks). None of these sets was trained
on, so every crop is held out. Prints the share read right overall and per family, for each classifier, in one run.

    python -m mjtable.scripts.evaluate_crops [--crops DIR] [--classifier A.onnx B.onnx ...] [--json]
"""
from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

import cv2
import numpy as np

from mjtable.scoring import tiles as T
from mjtable.vision.detector import CLASSIFIER, TileDetector

ROOT = Path(__file__).resolve().parent.parent
CROPS = ROOT.parent / "shared" / "data" / "chinese_tiles_camerash"
CLOTH = (40, 110, 45)        # BGR green
FAMILIES = {"characters": range(0, 9), "dots": range(9, 18), "bamboo": range(18, 27), "honours": range(27, 34),
            "flowers": range(34, 42)}


def camerash_tile(label: int) -> int:
    """Camerash class (1-9 dots, 10-18 bamboo, 19-27 characters, 28-31 E S W N, 32 red, 33 green, 34 white,
    35-38 seasons, 39-42 plum orchid chrysanthemum bamboo) -> tile id."""
    if 1 <= label <= 9:
        return 9 + label - 1
    if 10 <= label <= 18:
        return 18 + label - 10
    if 19 <= label <= 27:
        return label - 19
    if 28 <= label <= 31:
        return 27 + label - 28
    if 32 <= label <= 34:
        return {32: T.RED, 33: T.GREEN, 34: T.WHITE}[label]
    if 35 <= label <= 42:
        return 34 + label - 35
    raise ValueError(f"unknown Camerash label {label}")


# Upstream labels found wrong by eye: crop -> (its label in data.csv, the right Camerash label). Applied only where
# data.csv still gives the wrong label.
CORRECTED = {"350.jpg": (8, 9)}      # labelled dots-8; the tile shows nine dots and a red 9


def crop_label(name: str, label: int) -> int:
    """Tile id of a labelled crop (data.csv's image name and Camerash label), with CORRECTED applied."""
    wrong, right = CORRECTED.get(name, (None, None))
    return camerash_tile(right if label == wrong else label)


def read_crops(folder: Path) -> list[tuple[Path, int]]:
    with open(folder / "tiles-data" / "data.csv", encoding="utf-8") as f:
        return [(folder / "raw-tiles" / r["image-name"], crop_label(r["image-name"], int(r["label"])))
                for r in csv.DictReader(f)]


def on_cloth(crop: np.ndarray, height: int = 64) -> tuple[np.ndarray, tuple[float, float, float, float]]:
    """The crop scaled to ``height`` px, pasted in the middle of a cloth three tiles wide; its box."""
    h, w = crop.shape[:2]
    tw = max(1, round(w * height / h))
    tile = cv2.resize(crop, (tw, height), interpolation=cv2.INTER_AREA)
    canvas = np.full((height * 3, tw * 3, 3), CLOTH, np.uint8)
    canvas[height:2 * height, tw:2 * tw] = tile
    return canvas, (tw, height, 2 * tw, 2 * height)


def crops_on_cloth(listed: list[tuple[Path, int]]) -> list[tuple[np.ndarray, tuple, int]]:
    """(picture, box, tile id) of each readable crop of (path, tile id) pairs, pasted on cloth (on_cloth)."""
    items = []
    for path, truth in listed:
        crop = cv2.imread(str(path))
        if crop is not None:
            items.append((*on_cloth(crop), truth))
    return items


def kind_probs(det: TileDetector, img: np.ndarray, box) -> np.ndarray:
    """The kind probabilities (43,) of one box, read as the runtime reads a located box of a photo of a hand: the
    classifier's first look on the box, then, when the detector takes them (TileDetector.looks), its more looks
    around the box as the detector's refiner (if any) moves it."""
    boxes = np.array([box], np.float32)
    return det.read_kinds(img, boxes, det.refine(img, boxes))[0][0]


def read_right(det: TileDetector, items: list[tuple[np.ndarray, tuple, int]]) -> dict[str, tuple[int, int]]:
    """{family or "all": (right, total)}."""
    right = {k: [0, 0] for k in (*FAMILIES, "all")}
    for img, box, truth in items:
        got = int(np.argmax(kind_probs(det, img, box)))
        fam = next(k for k, r in FAMILIES.items() if truth in r)
        for k in (fam, "all"):
            right[k][0] += got == truth
            right[k][1] += 1
    return {k: (r, n) for k, (r, n) in right.items()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--crops", type=Path, default=CROPS)
    ap.add_argument("--classifier", type=Path, nargs="+", default=[CLASSIFIER],
                    help="ONNX classifiers (float; the int8 one beside each is used when there is one)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    if not (a.crops / "tiles-data" / "data.csv").exists():
        print(f"evaluate_crops: no tiles-data/data.csv in {a.crops}", file=sys.stderr)
        return 2
    items = crops_on_cloth(read_crops(a.crops))
    out = {}
    for c in a.classifier:
        det = TileDetector(classifier=c, refiner=None)
        out[str(c)] = read_right(det, items)
    if a.json:
        print(json.dumps({c: {k: {"right": r, "total": n} for k, (r, n) in v.items()} for c, v in out.items()}))
        return 0
    print(f"{len(items)} crops; share read right (right / total)")
    print(f"{'classifier':48s} " + " ".join(f"{k:>16s}" for k in (*FAMILIES, "all")))
    for c, v in out.items():
        print(f"{Path(c).name[-48:]:48s} " + " ".join(f"{r / max(n, 1):6.3f} ({r:3d}/{n:3d})" for r, n in
                                           (v[k] for k in (*FAMILIES, "all"))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
