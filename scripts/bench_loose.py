"""Tiles lying loose beside a hand, at any angle: how many a phone photo's reading finds, today's models as the
baseline and candidate models beside them (--models), on rendered photos of a hand with 4-16 loose tiles each
(generate --kind phone --loose; seed 9200 by default, made once under DATA/bench_loose_SEED):

* loose tiles found (a detection at IoU >= 0.5, vision.compare.matched) and read as their kind;
* the hand's tiles (concealed, winning tile, melds, flowers) found and read right, which must not suffer;
* hands read exact by the command line's route (the loose tiles are no part of the hand), and by the same route
  from the true boxes (how well the layout parser leaves loose tiles out when every box is right);
* boxes on no tile, and the median ms a photo from the frame to the layout.

Each photo is read once, as the command line reads it (the view guessed), for its boxes and its hand.

With --real (the held-out real Chinese photos, prepared by prepare_real_chinese), the same route on real photos:
their labelled tiles found, and the loose tiles their labels leave out, checked by eye
(datasets/labels/added/chinese_mahjong_detection_heldout.csv, mjtable.datasets.unlabelled), found; a box on
neither is counted apart. Those loose tiles are the ones some model found and a person kept, so the figure says
how many of them are found, not how many loose tiles the photos hold.

    python -m scripts.bench_loose [--n 60] [--seed 9200] [--models DIR] [--data data] [--real [DIR]] [--json]
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from mjtable.datasets.benchsets import TRAINING_SEEDS, ensure_scenes
from mjtable.datasets.ground_truth import from_json
from mjtable.vision.compare import matched
from mjtable.vision.images import load_image

ROOT = Path(__file__).resolve().parent.parent


def read(img, detector):
    """(the detections, the layout's table or None when the frame could not be read) by the command line's route
    as far as the layout (vision.locate), timed in ms."""
    from mjtable.errors import MjtableError
    from mjtable.vision.locate import locate
    t0 = time.perf_counter()
    try:
        view = locate(img, detector, "auto")
        dets, table = list(view.detections), view.layout.table
    except MjtableError:                    # nothing read as a hand: the boxes still count
        dets, table = list(detector.detect(img, "auto")), None
    return dets, table, (time.perf_counter() - t0) * 1000


def hand_exact(table, gt) -> bool:
    """Is every hand of the scene read as it is (mjtable.vision.compare.hand_key)?"""
    from mjtable.vision.compare import hand_key
    return table is not None and all(hand_key(table.player(p.seat)) == hand_key(p) for p in gt.table.players)


def measure(detector, gts: list[Path]) -> dict:
    """Counts over the scenes: found and right for the loose tiles and the hand's, hands exact, boxes on no tile,
    ms."""
    c = {"loose": 0, "loose_found": 0, "loose_right": 0, "hand": 0, "hand_found": 0, "hand_right": 0,
         "extra": 0, "hands": 0, "hands_exact": 0}
    ms = []
    for g in gts:
        gt = from_json(g.read_text())
        dets, table, t = read(load_image(g.parent.parent / "images" / gt.image), detector)
        ms.append(t)
        c["hands"] += 1
        c["hands_exact"] += hand_exact(table, gt)
        m = matched([o.box for o in gt.objects], dets)
        for o, j in zip(gt.objects, m):
            key = "loose" if o.group == "loose" else "hand"
            c[key] += 1
            c[key + "_found"] += int(j >= 0)
            c[key + "_right"] += int(j >= 0 and dets[j].kind == o.kind)
        c["extra"] += len(dets) - int((m >= 0).sum())
    c["ms"] = round(statistics.median(ms), 1) if ms else 0.0
    return c


def measure_real(detector, folder: Path, added: dict[str, list[str]]) -> dict:
    """Counts over the real photos of a prepared folder: labelled tiles found and read right, the added loose
    tiles (binary rows by image name) found, boxes on neither."""
    import numpy as np

    from mjtable.vision.labels import read_yolo
    c = {"labelled": 0, "labelled_found": 0, "labelled_right": 0, "added": 0, "added_found": 0, "extra": 0}
    for img_path in sorted((folder / "images").glob("*.jpg")):
        img = load_image(img_path)
        h, w = img.shape[:2]
        labelled, kinds = read_yolo(folder / "labels" / (img_path.stem + ".txt"), w, h)
        extra = np.array([[float(v) for v in r.split()[1:5]] for r in added.get(img_path.name, [])]).reshape(-1, 4)
        extra = np.c_[extra[:, :2] - extra[:, 2:] / 2, extra[:, :2] + extra[:, 2:] / 2] * [w, h, w, h]
        n = len(labelled)
        dets = read(img, detector)[0]
        m = matched(np.r_[labelled, extra], dets)
        found = m >= 0
        c["labelled"] += n
        c["labelled_found"] += int(found[:n].sum())
        c["labelled_right"] += sum(int(j >= 0 and dets[j].kind == k) for j, k in zip(m[:n], kinds))
        c["added"] += len(extra)
        c["added_found"] += int(found[n:].sum())
        c["extra"] += len(dets) - int(found.sum())
    return c


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=60, help="photos")
    ap.add_argument("--seed", type=int, default=9200)
    ap.add_argument("--models", type=Path, metavar="DIR",
                    help="also read with the models DIR holds under the committed file names")
    ap.add_argument("--data", type=Path, default=ROOT / "data", help="where the generated photos are kept")
    ap.add_argument("--real", type=Path, nargs="?", const=ROOT / "data" / "cmd" / "heldout", default=None,
                    metavar="DIR", help="also read the held-out real Chinese photos (default data/cmd/heldout)")
    ap.add_argument("--json", action="store_true")
    return ap


def main(argv=None) -> int:
    a = build_parser().parse_args(argv)
    if a.seed in TRAINING_SEEDS:
        print(f"error: seed {a.seed} made {TRAINING_SEEDS[a.seed]}: its scenes are not unseen", file=sys.stderr)
        return 2
    if a.n <= 0:
        print("error: --n must be > 0", file=sys.stderr)
        return 2
    if a.models is not None and not a.models.is_dir():
        print(f"error: not a folder: {a.models}", file=sys.stderr)
        return 2
    if a.real is not None and not (a.real / "images").is_dir():
        print(f"error: no prepared real photos in {a.real} (python -m scripts.prepare_real_chinese)", file=sys.stderr)
        return 2
    from mjtable.pipeline import load_detector
    from mjtable.vision.detector import DetectorConfig
    from mjtable.vision.detector_config import models_in
    gts = ensure_scenes(a.data / f"bench_loose_{a.seed}", "phone", a.n, a.seed, loose=True)
    ways = {"today": load_detector(config=DetectorConfig())}
    if a.models is not None:
        ways[f"models in {a.models.name}"] = load_detector(config=DetectorConfig(**models_in(a.models)))
    res = {name: measure(det, gts) for name, det in ways.items()}
    from mjtable.vision.compare import FixedDetector
    from mjtable.vision.level import edge_angle
    from mjtable.vision.types import Detection
    exact = 0
    for g in gts:                     # the same route from the true boxes (each with its edges' direction, as the
        gt = from_json(g.read_text())         # detector gives it): the layout parser's part
        img = load_image(g.parent.parent / "images" / gt.image)
        boxes = FixedDetector([Detection(o.box, o.kind, o.orientation, 1.0, angle=edge_angle(img, o.box))
                               for o in gt.objects])
        exact += hand_exact(read(img, boxes)[1], gt)
    res["true boxes"] = {"hands": len(gts), "hands_exact": exact}
    if a.real is not None:
        from mjtable.datasets.unlabelled import load_added
        added = load_added("chinese_mahjong_detection_heldout")
        for name, det in ways.items():
            res[name]["real"] = measure_real(det, a.real, added)
    if a.json:
        print(json.dumps(res, indent=1))
        return 0
    print(f"Rendered phone photos with loose tiles at any angle beside the hand (seed {a.seed}, {len(gts)} photos)")
    width = max(22, *(len(n) + 2 for n in res))
    print(f"{'':34}" + "".join(f"{n:>{width}}" for n in res))

    def row(label, f):
        print(f"{label:34}" + "".join(f"{f(c):>{width}}" for c in res.values()))
    pct = lambda k, n: (lambda c: f"{c[k]}/{c[n]} {100 * c[k] / max(c[n], 1):5.1f}%" if k in c else "")  # noqa: E731
    row("loose tiles found", pct("loose_found", "loose"))
    row("loose tiles read right", pct("loose_right", "loose"))
    row("hand's tiles found", pct("hand_found", "hand"))
    row("hand's tiles read right", pct("hand_right", "hand"))
    row("hands read exact", pct("hands_exact", "hands"))
    row("boxes on no tile", lambda c: str(c["extra"]) if "extra" in c else "")
    row("ms per photo (median)", lambda c: f"{c['ms']:.0f}" if "ms" in c else "")
    if a.real is not None:
        real = {n: c["real"] for n, c in res.items() if "real" in c}
        print(f"\nReal held-out photos ({a.real})")
        for label, f in (("labelled tiles found", pct("labelled_found", "labelled")),
                         ("labelled tiles read right", pct("labelled_right", "labelled")),
                         ("unlabelled loose tiles found", pct("added_found", "added")),
                         ("boxes on neither", lambda c: str(c["extra"]))):
            print(f"{label:34}" + "".join(f"{f(c):>{width}}" for c in real.values()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
