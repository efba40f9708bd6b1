"""Pseudo-labels for Camerash's 1,050 unlabelled crops, kept only where two independent checks agree.

1. Where it was cut from: every hand-checked box of the Camerash set photos (datasets/labels/camerash/, boxes
   checked by eye) is cut, with small shifts and scalings, and shrunk to the crops' 3:4 shape; the crop takes the
   kind of the box of best normalised correlation in colour (in grey, 6- and 9-bamboo of one set look alike),
   when that correlation is at least --min-match.
2. What the shipped classifier reads: the crop pasted on cloth and classified as the runtime classifies a located
   box (as evaluate_crops does), when its probability is at least --min-p.

A crop is labelled where both give the same kind. The table of every crop (both readings, the match, the photo
and its tile set) is written to datasets/labels/camerash/untagged_tiles.csv, which is committed. With --out, the
labelled crops go into plain crop folders (OUT/train, OUT/heldout: images/ linked, labels.csv) split as the set
photos are split (prepare_camerash_photos, same --heldout and --seed): a crop of a held-out set is never
trained on.

    python -m mjtable.scripts.pseudo_label_crops [--out data/camerash_untagged] [--min-match 0.8] [--min-p 0.5]
    python -m mjtable.scripts.pseudo_label_crops --from-table --out data/camerash_untagged   # no model run
"""
from __future__ import annotations

import argparse
import csv
import shutil
import sys
from pathlib import Path

import cv2
import numpy as np

from mjtable.scoring import tiles as T
from mjtable.scripts.prepare_camerash_photos import held_out_sets, photos, read_photo
from mjtable.scripts.prepare_detector_data import _link
from mjtable.scripts.prepare_real_chinese import CAMERASH, ROOT, write_crop_labels

TABLE = ROOT / "datasets" / "labels" / "camerash" / "untagged_tiles.csv"
THUMB = (24, 32)                       # the crops are 240x320: matched at a tenth of that
SHIFTS = (-0.05, 0.0, 0.05)            # of the box's width / height, each edge
FIELDS = ["crop", "photo", "set", "match", "box_kind", "classifier_kind", "classifier_p", "tile", "label"]


def _unit(v: np.ndarray) -> np.ndarray:
    v = v.reshape(len(v), -1).astype(np.float32)
    v -= v.mean(axis=1, keepdims=True)
    return v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-6)


def box_thumbs(img: np.ndarray, rows: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """(unit thumbnails of every box under every shift of its edges, the kind of each)."""
    h, w = img.shape[:2]
    thumbs, kinds = [], []
    for row in rows:
        k, cx, cy, bw, bh = int(row.split()[0]), *map(float, row.split()[1:])
        x0, y0, x1, y1 = (cx - bw / 2) * w, (cy - bh / 2) * h, (cx + bw / 2) * w, (cy + bh / 2) * h
        for dx0 in SHIFTS:
            for dy0 in SHIFTS:
                for grow in SHIFTS:
                    a = (x0 + (dx0 - grow) * bw * w, y0 + (dy0 - grow) * bh * h,
                         x1 + (dx0 + grow) * bw * w, y1 + (dy0 + grow) * bh * h)
                    xa, ya, xb, yb = (int(round(v)) for v in a)
                    xa, ya, xb, yb = max(xa, 0), max(ya, 0), min(xb, w), min(yb, h)
                    if xb - xa < 4 or yb - ya < 4:
                        continue
                    thumbs.append(cv2.resize(img[ya:yb, xa:xb], THUMB, interpolation=cv2.INTER_AREA))
                    kinds.append(k)
    if not thumbs:
        return np.zeros((0, THUMB[0] * THUMB[1] * 3), np.float32), np.zeros(0, int)
    return _unit(np.stack(thumbs)), np.array(kinds)


def match_crops(src: Path, crops: list[Path]) -> list[tuple[str, str, float, int]]:
    """For each crop: (photo file, its tile set, best correlation, that box's kind)."""
    c = _unit(np.stack([cv2.resize(cv2.imread(str(p)), THUMB, interpolation=cv2.INTER_AREA) for p in crops]))
    best = np.full(len(crops), -2.0, np.float32)
    where = [("", "", -1)] * len(crops)
    for folder, photo, tile_set, rows in photos(src):
        img = read_photo(photo)
        if img is None:
            continue
        t, kinds = box_thumbs(img, rows)
        if not len(t):
            continue
        corr = c @ t.T
        arg = corr.argmax(axis=1)
        val = corr[np.arange(len(crops)), arg]
        for i in np.flatnonzero(val > best):
            best[i] = val[i]
            where[i] = (f"{folder}/{photo.name}", tile_set, int(kinds[arg[i]]))
    return [(p, s, float(b), k) for (p, s, k), b in zip(where, best)]


def classify_crops(crops: list[Path], classifier: Path | None) -> list[tuple[int, float]]:
    """The classifier's (kind, probability) for each crop, pasted on cloth as evaluate_crops pastes them."""
    from mjtable.scripts.evaluate_crops import on_cloth
    from mjtable.vision.detector import CLASSIFIER, TileDetector
    det = TileDetector(classifier=classifier or CLASSIFIER, refiner=None)
    out = []
    for p in crops:
        img, box = on_cloth(cv2.imread(str(p)))
        kinds, _ = det.classify(img, np.array([box], np.float32))
        out.append((int(kinds[0].argmax()), float(kinds[0].max())))
    return out


def label_table(src: Path, classifier: Path | None, min_match: float, min_p: float) -> list[dict]:
    crops = sorted((src / "untagged-tiles").glob("*.jpg"), key=lambda p: (len(p.stem), p.stem))
    matched = match_crops(src, crops)
    read = classify_crops(crops, classifier)
    rows = []
    for p, (photo, tile_set, score, box_kind), (kind, prob) in zip(crops, matched, read):
        agree = score >= min_match and prob >= min_p and kind == box_kind
        rows.append({"crop": p.name, "photo": photo, "set": tile_set, "match": f"{score:.3f}",
                     "box_kind": T.code(box_kind) if box_kind >= 0 else "",
                     "classifier_kind": T.code(kind), "classifier_p": f"{prob:.3f}",
                     "tile": kind if agree else "", "label": T.code(kind) if agree else ""})
    return rows


def write_table(path: Path, rows: list[dict]) -> None:
    with open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, FIELDS, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)


def read_table(path: Path = TABLE) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return list(csv.DictReader(f))


def write_folders(src: Path, out: Path, rows: list[dict], held: set[str]) -> dict[str, int]:
    """The labelled crops into OUT/train and OUT/heldout by their photo's tile set; {split: crops}."""
    counts = {"train": 0, "heldout": 0}
    split_rows: dict[str, list] = {"train": [], "heldout": []}
    for r in rows:
        if not r["label"]:
            continue
        split = "heldout" if r["set"] in held else "train"
        split_rows[split].append([r["crop"], int(r["tile"]), r["label"]])
    for split, items in split_rows.items():
        d = out / split
        if d.exists():
            shutil.rmtree(d)
        (d / "images").mkdir(parents=True)
        for name, _, _ in items:
            _link(src / "untagged-tiles" / name, d / "images" / name)
        write_crop_labels(d, items)
        counts[split] = len(items)
    return counts


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", type=Path, default=CAMERASH)
    ap.add_argument("--table", type=Path, default=TABLE)
    ap.add_argument("--from-table", action="store_true", help="read the table instead of making it")
    ap.add_argument("--classifier", type=Path, default=None, help="ONNX classifier (default: the shipped one)")
    ap.add_argument("--min-match", type=float, default=0.8)
    ap.add_argument("--min-p", type=float, default=0.5)
    ap.add_argument("--out", type=Path, default=None, help="write labelled crop folders here (train / heldout)")
    ap.add_argument("--heldout", type=float, default=0.5, help="as prepare_camerash_photos --heldout")
    ap.add_argument("--seed", type=int, default=0, help="as prepare_camerash_photos --seed")
    ap.add_argument("--crops-heldout", type=Path, default=ROOT / "data" / "camerash" / "heldout",
                    help="the held-out crop folder of prepare_real_chinese (its sets are held out here too)")
    a = ap.parse_args(argv)
    if a.from_table:
        if not a.table.exists():
            print(f"pseudo_label_crops: no table {a.table}", file=sys.stderr)
            return 2
        rows = read_table(a.table)
    else:
        if not (a.src / "untagged-tiles").is_dir():
            print(f"pseudo_label_crops: no untagged-tiles/ in {a.src}", file=sys.stderr)
            return 2
        rows = label_table(a.src, a.classifier, a.min_match, a.min_p)
        write_table(a.table, rows)
    labelled = [r for r in rows if r["label"]]
    matched = sum(float(r["match"]) >= a.min_match for r in rows)
    print(f"{len(rows)} crops: {matched} found in a labelled photo (match >= {a.min_match}), "
          f"{len(labelled)} labelled where the classifier agrees (p >= {a.min_p})")
    if a.out:
        try:
            held = held_out_sets(a.src, a.heldout, a.seed, a.crops_heldout)
        except ValueError as e:
            print(f"pseudo_label_crops: {e}", file=sys.stderr)
            return 2
        counts = write_folders(a.src, a.out, rows, held)
        print(f"written to {a.out}: train {counts['train']}, heldout {counts['heldout']} (sets held out: "
              f"{', '.join(sorted(held))})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
