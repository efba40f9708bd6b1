"""Whole tables shot from a seat: how many tiles each way of reading the frame finds, seat by seat, side by side.

Scenes: rendered tables seen from the south seat (`mjtable.datasets.generate --kind seat`: the overhead table
under a strong perspective, far edge 0.35-0.6 of the near one, depth shortened to 0.35-0.6, a 16:9 frame), made
in memory from a seed no model was trained on. No labelled photo of a real table shot from a seat is at hand, so
these figures say what the reading strategies do with small, foreshortened tiles, not how real tables read.

Ways of reading, each on the same frames in one run:
* runtime: the detector as the pipeline runs it (`detect`, view guessed; a whole table whose boxes show a seat's
  perspective is read again by the seat locator and classifier, in slices, `DetectorConfig.seat_view`); "no seat
  models": the same with the overhead models in their place; "no second reading": without that reading; "one
  look": each tile classified once (`DetectorConfig(looks=None)`); "regions": each row of face-up tiles rectified into
  a strip and read by the general locator and classifier (`DetectorConfig(regions=True)`, vision.regions); "view's
  classifier alone": no second reading of large faces by the general classifier (`DetectorConfig.general_px`);
* general 480: the general locator on the whole frame (480 px input);
* overhead 640: the overhead locator on the whole frame (a higher input size, 640 px);
* general, slices of 640: the general locator on overlapping 640 px windows at full resolution and the whole
  frame (`vision.slicing`, SAHI-style);
* overhead, slices of 640: the same with the overhead locator.

Printed per way: tiles found at IoU 0.5 whatever their kind (class-agnostic recall), per seat (self = the near
seat of the camera, across = the far one), the share of found tiles read as the right kind, boxes that match no tile,
mAP50 and the median ms per frame.

    python -m scripts.bench_seat_view [--seed 4242] [--n 40] [--imgsz 1280] [--portrait] [--clutter]
        [--models DIR ...] [--jpeg] [--json]

--portrait: the tables photographed with the phone upright (9:16, --imgsz the height, the tiles smaller);
--clutter: with objects beside the tiles and a camera's light (generate --clutter).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from mjtable.scoring import tiles as T
from mjtable.datasets.benchsets import TRAINING_SEEDS
from mjtable.vision.compare import agnostic_matches, as_arrays
from mjtable.vision.detector import DetectorConfig, TileDetector, models_in
from mjtable.vision.metrics import DetectionEvaluator

SEATS = ("self", "right", "across", "left")       # the camera sits at "self": "across" is the far seat
WAYS = {"runtime": dict(kind="auto"), "runtime, no seat models": dict(kind="auto", seat_models=False),
        "runtime, no second reading": dict(kind="auto", seat_view=False),
        "runtime, one look": dict(kind="auto", looks=False),
        "runtime, regions": dict(kind="auto", regions=True),
        "runtime, view's classifier alone": dict(kind="auto", general_px=None),
        "general 480": dict(kind="phone"), "overhead 640": dict(kind="overhead", seat_view=False),
        "general, slices of 640": dict(kind="phone", slice_px=640),
        "overhead, slices of 640": dict(kind="overhead", slice_px=640)}


def scenes(seed: int, n: int, imgsz: int, portrait: bool = False, clutter: bool = False):
    from mjtable.datasets.generate import make_scene
    return [make_scene("seat", seed, i, imgsz, clutter=clutter, portrait=portrait)[:2] for i in range(n)]


def detector(way: dict, models: Path | None) -> TileDetector:
    """The committed detector for a way of reading, with the models found in ``models`` (when there) instead of
    the committed ones."""
    kw = models_in(models)
    if not way.get("seat_models", True):
        kw.update(seat_locator=None, seat_classifier=None)
    if not way.get("looks", True):
        kw.update(looks=None)
    if "general_px" in way:
        kw.update(general_px=way["general_px"])
    return TileDetector(DetectorConfig(slice_px=way.get("slice_px"), seat_view=way.get("seat_view", True),
                                       regions=way.get("regions", False), **kw))


def measure(frames, way: dict, models: Path | None = None, jpeg: bool = False) -> dict:
    """The figures of one way of reading the frames; ``jpeg``: each frame handed over as the bytes of a JPEG and
    decoded as the runtime decodes a file (vision.locate.load_image: a large one at a reduced scale), the time
    counted from the bytes."""
    from mjtable.vision.locate import load_image
    det = detector(way, models)
    found = {s: [0, 0] for s in SEATS}
    right = [0, 0]
    stray = 0
    ms = []
    ev = DetectionEvaluator(num_classes=T.N_CLASSES)
    for img, gt in frames:
        data = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes() if jpeg else None
        t0 = time.perf_counter()
        seen = load_image(data) if jpeg else img
        dets = det.detect(seen, kind=way["kind"])
        ms.append(1000 * (time.perf_counter() - t0))
        boxes, kinds, conf, gt_boxes, gt_kinds = as_arrays(dets, gt)
        gt_boxes = gt_boxes * (seen.shape[1] / img.shape[1])
        m = agnostic_matches(gt_boxes, boxes, conf)
        for o, p in zip(gt.objects, m):
            found[o.seat][1] += 1
            found[o.seat][0] += p >= 0
            if p >= 0:
                right[1] += 1
                right[0] += kinds[p] == o.kind
        stray += len(boxes) - int((m >= 0).sum())
        ev.add(gt_boxes, gt_kinds, boxes, kinds, conf)
    n_found, n_gt = sum(f for f, _ in found.values()), sum(n for _, n in found.values())
    return {"recall50": n_found / max(n_gt, 1), "per_seat": {s: f / max(n, 1) for s, (f, n) in found.items()},
            "right_kind": right[0] / max(right[1], 1), "unmatched_boxes": stray, "map50": ev.result().map50,
            "ms_median": float(np.median(ms)), "tiles": n_gt}


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=4242)
    ap.add_argument("--n", type=int, default=40)
    ap.add_argument("--imgsz", type=int, default=1280, help="frame width (16:9), or height with --portrait")
    ap.add_argument("--portrait", action="store_true", help="upright frames (9:16)")
    ap.add_argument("--clutter", action="store_true", help="objects beside the tiles, a camera's light")
    ap.add_argument("--ways", nargs="+", choices=list(WAYS), default=list(WAYS))
    ap.add_argument("--models", type=Path, nargs="+", default=None,
                    help="folders holding other models under the committed models' file names (e.g. "
                         "tile_locator_seat.onnx, tile_classifier_seat.onnx, int8 beside them), each measured beside "
                         "the committed ones")
    ap.add_argument("--jpeg", action="store_true",
                    help="hand each frame over as a JPEG file's bytes, decoded as the runtime decodes a file (a large "
                         "one at a reduced scale), and time it from the bytes")
    ap.add_argument("--json", action="store_true")
    return ap


def main(argv=None) -> int:
    a = build_parser().parse_args(argv)
    if a.n <= 0 or a.imgsz < 320:
        print("bench_seat_view: --n must be > 0 and --imgsz >= 320", file=sys.stderr)
        return 2
    if a.seed in TRAINING_SEEDS:
        print(f"bench_seat_view: seed {a.seed} made the training set {TRAINING_SEEDS[a.seed]}", file=sys.stderr)
        return 2
    frames = scenes(a.seed, a.n, a.imgsz, a.portrait, a.clutter)
    sets = [None] + list(a.models or [])
    out = {(w if m is None else f"{w} [{m.name}]"): measure(frames, WAYS[w], m, a.jpeg) for m in sets for w in a.ways}
    if a.json:
        print(json.dumps(out))
        return 0
    h = frames[0][0].shape
    print(f"{a.n} tables seen from the south seat, seed {a.seed}, {h[1]}x{h[0]}{', clutter' if a.clutter else ''}, "
          f"{next(iter(out.values()))['tiles']} tiles; [folder]: its models instead of the committed ones")
    wide = max(26, *(len(k) for k in out))
    print(f"{'way':{wide}s} {'found':>6s} " + " ".join(f"{s:>6s}" for s in SEATS)
          + f" {'kind':>6s} {'stray':>6s} {'mAP50':>6s} {'ms':>6s}")
    for w, r in out.items():
        print(f"{w:{wide}s} {r['recall50']:6.3f} " + " ".join(f"{r['per_seat'][s]:6.3f}" for s in SEATS)
              + f" {r['right_kind']:6.3f} {r['unmatched_boxes']:6d} {r['map50']:6.3f} {r['ms_median']:6.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
