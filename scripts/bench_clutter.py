"""Objects beside the tiles: what score sheets, coins, dice, sticks, hands, phones and a camera's glare and
shadows cost each locator, side by side.

The same rendered scenes twice, from a seed no model was trained on: plain, and with the clutter and light of
``generate --clutter`` (mjtable.datasets.clutter; the tiles are the same and at the same places). Each locator is
run as the runtime runs it (its classifier, refiner and the view guessed). Printed per locator and per version:
tiles found at IoU 0.5 whatever their kind, found tiles read as the right kind, boxes that match no tile (per
frame), and mAP50. The clutter's cost is the difference between the two versions.

    python -m scripts.bench_clutter [--seed 9301] [--n 100] [--kind phone|overhead|seat]
        [--locator A.onnx B.onnx ...] [--json]
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from mjtable.datasets.benchsets import TRAINING_SEEDS
from mjtable.scoring import tiles as T
from mjtable.vision.compare import agnostic_matches, as_arrays
from mjtable.vision.detector import LOCATOR, DetectorConfig, TileDetector
from mjtable.vision.metrics import DetectionEvaluator

SIZES = {"phone": 640, "overhead": 640, "seat": 1280}


def scenes(kind: str, seed: int, n: int, clutter: bool):
    from mjtable.datasets.generate import make_scene
    return [make_scene(kind, seed, i, SIZES[kind], clutter=clutter)[:2] for i in range(n)]


def measure(det: TileDetector, frames) -> dict:
    found = right = n_gt = stray = 0
    ev = DetectionEvaluator(num_classes=T.N_CLASSES)
    for img, gt in frames:
        dets = det.detect(img)
        boxes, kinds, conf, gt_boxes, gt_kinds = as_arrays(dets, gt)
        m = agnostic_matches(gt_boxes, boxes, conf)
        n_gt += len(gt_boxes)
        found += int((m >= 0).sum())
        right += int(sum(kinds[p] == k for p, k in zip(m, gt_kinds) if p >= 0))
        stray += len(boxes) - int((m >= 0).sum())
        ev.add(gt_boxes, gt_kinds, boxes, kinds, conf)
    return {"found": found / max(n_gt, 1), "right_kind": right / max(found, 1),
            "stray_per_frame": stray / max(len(frames), 1), "map50": ev.result().map50, "tiles": n_gt}


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=9301)
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--kind", choices=tuple(SIZES), default="phone")
    ap.add_argument("--locator", type=Path, nargs="+", default=[LOCATOR],
                    help="general locators (float ONNX; the int8 one beside each is used when there is one)")
    ap.add_argument("--json", action="store_true")
    return ap


def main(argv=None) -> int:
    a = build_parser().parse_args(argv)
    if a.n <= 0:
        print("bench_clutter: --n must be > 0", file=sys.stderr)
        return 2
    if a.seed in TRAINING_SEEDS:
        print(f"bench_clutter: seed {a.seed} made the training set {TRAINING_SEEDS[a.seed]}", file=sys.stderr)
        return 2
    frames = {"plain": scenes(a.kind, a.seed, a.n, False), "clutter": scenes(a.kind, a.seed, a.n, True)}
    out = {}
    for loc in a.locator:
        det = TileDetector(DetectorConfig(locator=loc))
        out[str(loc)] = {v: measure(det, f) for v, f in frames.items()}
    if a.json:
        print(json.dumps(out))
        return 0
    print(f"{a.n} {a.kind} scenes, seed {a.seed}, {out[str(a.locator[0])]['plain']['tiles']} tiles; the same "
          f"scenes plain and with objects beside the tiles and a camera's light")
    print(f"{'locator':40s} {'version':8s} {'found':>6s} {'kind':>6s} {'stray/frame':>11s} {'mAP50':>6s}")
    for loc, r in out.items():
        for v, m in r.items():
            print(f"{str(loc)[-40:]:40s} {v:8s} {m['found']:6.3f} {m['right_kind']:6.3f} "
                  f"{m['stray_per_frame']:11.2f} {m['map50']:6.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
