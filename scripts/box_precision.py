"""Where the detector's box error lies, and what per-edge precision a mAP50-95 figure asks for.

    python -m scripts.box_precision [--synth data/synth/test] [--limit N] [--float] [--conf 0.01]
                                    [--refiner models/tile_refiner.onnx | --refiner none]

On a labelled split (YOLO dir[:glob], as in evaluate_detector_figures.py), for the committed detector (int8
unless --float), prints per view (phone, overhead) and over all frames:
- mAP50-95 as detected, and with every matched box replaced by its label (the ceiling the boxes leave);
- the edge error of matched boxes (detected minus label, px): mean |e| and rms, for free edges and for covered
  ones (an edge that another tile's label reaches over, where a tile's body runs under its neighbour);
- the labels moved by Gaussian noise of sigma px on each edge, with the kinds and confidences detected: the
  per-edge precision a figure asks for;
- every matched box at its label plus errors drawn from the free edges' errors: the figure if every edge were
  located as well as the free ones are now;
- the figure after three corrections: each frame's mean shift of each edge removed and every covered edge set
  to its label (both use the labels: bounds, not methods), and each row of touching tiles fitted to a line
  (the detections alone), and then each row's mean error on each edge removed (a bound on reading a row as a
  whole);
- with the scenes' ground truth (gt/*.json), each seat's group's (hand, wall, river, melds) median error on each
  edge removed, covered and free edges apart, where 4 or more tiles share it: what a group's tiles share;
- the same boxes with their confidences ranked by their IoU with the labels (a bound on what a confidence that
  told a box's precision would give).
A detection matches the label it overlaps most, at IoU > 0.5.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from mjtable.vision.box_precision import (SIGMAS, EDGES, Frame, covered_exact, edge_errors, group_bias_removed,
                                          label_groups, map50_95, noisy_labels, ranked_by_iou, row_fit,
                                          rows_fitted_and_centred, with_free_edge_errors, without_frame_shift)
from mjtable.vision.detector import REFINER, DetectorConfig, TileDetector
from mjtable.vision.evaluate import images_of
from mjtable.vision.images import load_image
from mjtable.vision.labels import read_yolo

ROOT = Path(__file__).resolve().parent.parent


def detect_split(det: TileDetector, spec: str, limit: int = 0) -> list[Frame]:
    frames = []
    for f in images_of(spec, limit):
        img = load_image(f)
        h, w = img.shape[:2]
        gb, gc = read_yolo(f.parent.parent / "labels" / (f.stem + ".txt"), w, h)
        dets = det.detect(img)
        frames.append(Frame(f.name, f.name.split("_")[0], gb, gc,
                            np.array([d.box for d in dets], float).reshape(-1, 4),
                            np.array([d.kind for d in dets], int), np.array([d.confidence for d in dets], float),
                            label_groups(f.parent.parent / "gt" / (f.stem + ".json"), gb)))
    return frames


def report(frames: list[Frame], seed: int = 0) -> list[str]:
    groups = {"all": frames}
    for v in sorted({f.view for f in frames}):
        groups[v] = [f for f in frames if f.view == v]
    lines = []
    for name, fr in groups.items():
        n = sum(len(f.labels) for f in fr)
        lines.append(f"== {name}: {len(fr)} frames, {n} labelled tiles")
        lines.append(f"  mAP50-95 as detected {map50_95(fr):.3f};  matched boxes replaced by their labels "
                     f"{map50_95(fr, lambda f: noisy_labels(f, 0.0, np.random.default_rng(0))):.3f}")
        errs = edge_errors(fr)
        for kind, (e, k) in errs.items():
            if len(e):
                lines.append(f"  {kind} edges: {len(e)}, mean |e| {np.abs(e).mean():.3f} px, rms "
                             f"{np.sqrt((e ** 2).mean()):.3f} px ("
                             + ", ".join(f"{EDGES[i]} {np.abs(e[k == i]).mean():.2f}" for i in range(4)
                                         if (k == i).any()) + ")")
        rng = np.random.default_rng(seed)
        lines.append("  labels moved by Gaussian noise of sigma px on each edge: "
                     + "  ".join(f"{s} -> {map50_95(fr, lambda f, s=s: noisy_labels(f, s, rng)):.3f}"
                                 for s in SIGMAS))
        lines.append(f"  every edge located as well as free ones are (their errors drawn at random) "
                     f"{map50_95(fr, with_free_edge_errors(fr, rng)):.3f}")
        lines.append(f"  each frame's mean edge shift removed (bound) {map50_95(fr, without_frame_shift):.3f};  "
                     f"covered edges exact (bound) {map50_95(fr, covered_exact):.3f};  "
                     f"rows fitted to lines {map50_95(fr, lambda f: row_fit(f.boxes)):.3f}, and each row's mean "
                     f"error removed (bound) {map50_95(fr, rows_fitted_and_centred):.3f}")
        lines.append(f"  the same boxes ranked by how well they fit their labels (bound) "
                     f"{map50_95(fr, confidences_of=ranked_by_iou):.3f}")
        if any(f.label_groups is not None for f in fr):
            lines.append(f"  each seat's group's median error on each edge removed (covered and free apart, 4+ "
                         f"tiles; bound) {map50_95(fr, group_bias_removed):.3f}")
    return lines


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--synth", default=str(ROOT / "data/synth/test"), help="YOLO dir[:glob]")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--conf", type=float, default=0.01)
    ap.add_argument("--float", action="store_true", help="the float models even where int8 ones exist")
    ap.add_argument("--seed", type=int, default=0, help="for the noise")
    ap.add_argument("--refiner", default=str(REFINER), help="box refiner (default: the committed one; 'none': off)")
    return ap


def main(argv=None) -> int:
    a = build_parser().parse_args(argv)
    spec_dir = Path(a.synth.partition(":")[0])
    if not (spec_dir / "images").is_dir() or not (spec_dir / "labels").is_dir():
        print(f"error: {spec_dir} has no images/ and labels/ folders", file=sys.stderr)
        return 2
    refiner = None if a.refiner == "none" else Path(a.refiner)
    if refiner is not None and not refiner.exists():
        print(f"error: no refiner at {refiner}", file=sys.stderr)
        return 2
    det = TileDetector(DetectorConfig(conf=a.conf, int8=not a.float, refiner=refiner))
    frames = detect_split(det, a.synth, a.limit)
    if not frames:
        print(f"error: no images in {a.synth}", file=sys.stderr)
        return 2
    for line in report(frames, a.seed):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
