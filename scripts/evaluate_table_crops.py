"""How often classifiers read the tiles of generated whole tables from their ground-truth boxes, side by side.

Each face-up tile of each table (a folder of `mjtable.datasets.generate`: images/ and gt/) is cut from its
ground-truth box and read in one look, as the runtime reads a located box (TileDetector.classify), by each
classifier in the role asked (the seat, overhead or general classifier). The near hand (the self seat's hand,
melds, winning tile and flowers) is counted apart from the rest (other seats, every river), and the flowers and seasons
of every seat apart again: a rendered table holds few of them, each told from the others by a small number or
character, and a whole hand is wrong when one is. The boxes are perfect, so the figures are the classifier's alone:
compare candidates here, then measure the route with bench_tables.

    python -m scripts.evaluate_table_crops DIR [DIR ...] --classifier A.onnx [B.onnx ...] [--role seat] [--json]

Held-out tables to measure on are made with `generate --art real --split heldout` (tile faces of held-out sets
only) with a seed that neither training nor bench_tables (7707) uses.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from mjtable.datasets.ground_truth import from_json
from mjtable.scoring import tiles as T
from mjtable.vision.detector import DetectorConfig, TileDetector
from mjtable.vision.images import load_image

ROLES = {"seat": "seat_classifier", "overhead": "overhead_classifier", "general": "classifier"}
PARTS = ("near", "rest", "flowers")     # the near hand; other seats and every river; every seat's flowers and seasons


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folders", type=Path, nargs="+", help="generated tables (images/, gt/)")
    ap.add_argument("--classifier", type=Path, nargs="+", required=True, help="float ONNX classifiers")
    ap.add_argument("--role", choices=sorted(ROLES), default="seat", help="the classifier each one stands in for")
    ap.add_argument("--json", action="store_true")
    return ap


def table_crops(folder: Path):
    """(image, face-up ground-truth boxes (N,4), their kinds, near-hand mask) of each table of a folder."""
    for g in sorted((folder / "gt").glob("*.json")):
        gt = from_json(g.read_text())
        objs = [o for o in gt.objects if o.kind != T.BACK and o.orientation != "face_down" and o.group != "wall"]
        if objs:
            near = [o.seat == "self" and o.group != "discard" for o in objs]
            yield (load_image(folder / "images" / gt.image), np.array([o.box for o in objs], float),
                   np.array([o.kind for o in objs]), np.array(near))


def read_right(folders: list[Path], classifiers: list[Path], role: str) -> dict:
    """{folder name: {classifier: {near, rest, flowers: share read right; near_n, rest_n, flowers_n: tiles}}}."""
    dets = {c: TileDetector(DetectorConfig(threads=2, int8=False, overhead_wide=None, **{ROLES[role]: c}))
            for c in classifiers}                 # each classifier alone, no second overhead one averaged in
    out = {}
    for folder in folders:
        hits = {c: tuple([] for _ in PARTS) for c in classifiers}
        for img, boxes, kinds, near in table_crops(folder):
            masks = (near, ~near, np.isin(kinds, T.FLOWERS))        # one per part of PARTS
            for c, det in dets.items():
                probs, _ = det.classify(img, boxes, seat=role == "seat", overhead=role == "overhead")
                ok = probs.argmax(1) == kinds
                for part, mask in zip(hits[c], masks):
                    part.extend(ok[mask])
        out[folder.name] = {str(c): _shares(parts) for c, parts in hits.items()}
    return out


def _shares(parts: tuple[list, ...]) -> dict:
    """{part: share read right (None when it has no tile), part_n: its tiles} of each of PARTS."""
    out = {}
    for part, ok in zip(PARTS, parts):
        out[part] = float(np.mean(ok)) if ok else None
        out[f"{part}_n"] = len(ok)
    return out


def main(argv=None) -> int:
    a = build_parser().parse_args(argv)
    missing = [p for p in [*a.folders, *a.classifier] if not p.exists()]
    if missing:
        print(f"error: not found: {missing[0]}", file=sys.stderr)
        return 2
    res = read_right(a.folders, a.classifier, a.role)
    if a.json:
        print(json.dumps(res, indent=1))
        return 0
    print(f"Face-up tiles read right from their ground-truth boxes, one look, as the {a.role} classifier")
    for folder, by in res.items():
        print(folder)
        for c, f in by.items():
            near, rest, flowers = ("-" if f[k] is None else f"{100 * f[k]:5.1f} %" for k in PARTS)
            print(f"  {c:55s} near hand {near} (of {f['near_n']})   the rest {rest} (of {f['rest_n']})   "
                  f"flowers and seasons {flowers} (of {f['flowers_n']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
