"""Where phone photos of a hand fail, measured on the held-out real photos, today's reading as the baseline:

* any angle: each held-out photo turned by 0, 20, 35 and 45 degrees (vision.level.turn: the canvas grown to
  hold it, the corners filled, the labelled boxes turned with it) and framed around its tiles with a margin of
  15 % (so that the canvas's growth does not shrink them; at 0 degrees too): tiles found (IoU >= 0.5 with the box around
  the turned box), tiles read right, photos with every tile right; read as it is (today's reading without the
  level turn, the baseline) and turned level first (DetectorConfig.level, vision.level);
* squeezed photos: each held-out photo resized to a share of its width (squeezed sideways) and, apart, of its
  height (--squeeze 0.5 0.67), read as the runtime reads it: tiles found, read right, photos with every tile right
  and the detector's mean ms a photo, beside the photo as it is; --models and --without read them again with
  candidate models and without parts of the runtime (DetectorConfig.squashed: --without squashed);
* one photo, one set: could the photo's other tiles name a misread? For each tile read wrong, whether its true
  kind is read surely (not doubtful: vision.types.is_doubtful) elsewhere in the same photo; and a rule that names
  a tile doubtful when its crop looks more like a surely read tile of another kind than like any other tile read
  as its own kind (the crops compared as mean-free grey images, either way up), counted on the silent misreads
  (wrong, not doubtful) and on the right tiles.

    python -m scripts.bench_phone_faults [--sets data/cmd/heldout ...] [--angles 0 20 35 45] [--squeeze 0.5 0.67]
        [--models DIR] [--without squashed ...] [--json]
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

from mjtable.datasets.benchsets import WITHOUT
from mjtable.scoring import tiles as T
from mjtable.vision.compare import matched
from mjtable.vision.crops import crop_tile
from mjtable.vision.evaluate import list_samples
from mjtable.vision.images import load_image, unstretch
from mjtable.vision.labels import read_yolo_rows
from mjtable.vision.level import turn, turn_boxes

ROOT = Path(__file__).resolve().parent.parent
SETS = ("data/cmd/heldout", "data/camerash_photos/heldout")


def framed(img: np.ndarray, m: np.ndarray, boxes: np.ndarray, margin: float = 0.15):
    """A turned photo framed as a photo of those tiles would be: cut to the box around the turned tiles, grown by
    ``margin`` of its size on each side (so that the canvas's growth does not shrink the tiles); their boxes."""
    b = turn_boxes(boxes, m)
    lo, hi = b[:, :2].min(0), b[:, 2:].max(0)
    pad = (hi - lo) * margin
    x1, y1 = np.maximum(0, lo - pad).astype(int)
    x2, y2 = np.minimum(img.shape[1::-1], hi + pad).astype(int)
    return img[y1:y2, x1:x2], b - [x1, y1, x1, y1]


def photos(folder: Path):
    """(image, boxes in its pixels, kinds) of each labelled photo, squeezed photos unstretched as the CLI does."""
    for s in list_samples(folder):
        img0 = load_image(s.image)
        boxes, kinds, _ = read_yolo_rows(s.label, None, img0.shape[1], img0.shape[0])
        img, sx, sy = unstretch(img0)
        yield img, np.asarray(boxes, np.float64).reshape(-1, 4) * [sx, sy, sx, sy], np.asarray(kinds)


def read(det, img: np.ndarray, boxes: np.ndarray, kinds: np.ndarray):
    """The detections, and for each face-up labelled tile the index of its detection (or -1)."""
    dets = det.detect(img)
    faces = kinds != T.BACK
    return dets, matched(boxes[faces], dets), kinds[faces]


def tally(det, img: np.ndarray, boxes: np.ndarray, kinds: np.ndarray, f: Counter) -> None:
    """Read one photo and add its tiles, tiles found, tiles read right, and whether every tile is right, to f."""
    dets, match, truth = read(det, img, boxes, kinds)
    right = [m >= 0 and dets[m].kind == k for m, k in zip(match, truth)]
    f.update(tiles=len(truth), found=int((match >= 0).sum()), right=sum(right), photos=1,
             every_tile_right=int(all(right)), ms=dets.ms)


def angle_figures(det, folder: Path, angles: list[float]) -> dict:
    out = {a: Counter() for a in angles}
    for img, boxes, kinds in photos(folder):
        for a in angles:
            tally(det, *framed(*turn(img, a), boxes), kinds, out[a])
    return {a: dict(f) for a, f in out.items()}


def squeeze_figures(det, folder: Path, shares: list[float]) -> dict:
    """Per way of squeezing ("as it is", "width x0.5", "height x0.5", ...): tiles, found, read right, photos and
    photos with every tile right."""
    ways = [("as it is", 1.0, 1.0)] + [(f"{side} x{f:g}", *((f, 1.0) if side == "width" else (1.0, f)))
                                       for f in shares for side in ("width", "height")]
    out = {w: Counter() for w, _, _ in ways}
    for img, boxes, kinds in photos(folder):
        for way, fx, fy in ways:
            size = (max(8, round(img.shape[1] * fx)), max(8, round(img.shape[0] * fy)))
            sq = cv2.resize(img, size, interpolation=cv2.INTER_AREA) if (fx, fy) != (1.0, 1.0) else img
            tally(det, sq, boxes * ([size[0] / img.shape[1], size[1] / img.shape[0]] * 2), kinds, out[way])
    return {w: dict(f) for w, f in out.items()}


def looks(crop: np.ndarray) -> np.ndarray:
    """A tile's face as a mean-free unit vector of grey levels, upright and turned a half (2, n)."""
    g = cv2.resize(cv2.cvtColor(crop[4:60, 6:58], cv2.COLOR_BGR2GRAY), (16, 20), interpolation=cv2.INTER_AREA)
    v = np.stack([g.ravel(), g[::-1, ::-1].ravel()]).astype(np.float64)
    v -= v.mean(1, keepdims=True)
    return v / (np.linalg.norm(v, axis=1, keepdims=True) + 1e-9)


def one_set_rows(img: np.ndarray, dets, match, truth) -> list[dict]:
    """Per matched face-up tile: right or not, p, whether the truth is surely read elsewhere, and the rule."""
    up = [i for i, d in enumerate(dets) if d.kind != T.BACK]
    if len(up) < 2:
        return []
    v = np.stack([looks(crop_tile(img, dets[i].box)[0]) for i in up])          # (n, 2, k)
    sim = np.einsum("ak,bjk->abj", v[:, 0], v).max(2)                          # either way up
    np.fill_diagonal(sim, -np.inf)
    kind = np.array([dets[i].kind for i in up])
    sure = np.array([not dets[i].doubtful for i in up])
    where = {i: a for a, i in enumerate(up)}
    rows = []
    for m, t in zip(match, truth):
        if m < 0 or m not in where:
            continue
        a, d = where[m], dets[m]
        own = sim[a][kind == d.kind].max(initial=-np.inf)
        other = sim[a][(kind != d.kind) & sure].max(initial=-np.inf)
        rows.append({"right": d.kind == t, "p": d.kind_p, "doubtful": d.doubtful, "named": other > own,
                     "truth_elsewhere": bool((sure & (kind == t))[np.arange(len(up)) != a].any())})
    return rows


def one_set_figures(det, folder: Path) -> dict:
    rows = []
    for img, boxes, kinds in photos(folder):
        dets, match, truth = read(det, img, boxes, kinds)
        rows += one_set_rows(img, dets, match, truth)
    wrong = [r for r in rows if not r["right"]]
    silent = [r for r in wrong if not r["doubtful"]]
    right = [r for r in rows if r["right"] and not r["doubtful"]]
    return {"misreads": len(wrong), "misreads_truth_elsewhere": sum(r["truth_elsewhere"] for r in wrong),
            "silent_misreads": len(silent), "silent_truth_elsewhere": sum(r["truth_elsewhere"] for r in silent),
            "silent_named_by_rule": sum(r["named"] for r in silent),
            "sure_right_tiles": len(right), "sure_right_named_by_rule": sum(r["named"] for r in right)}


def report(name: str, figures: dict) -> None:
    print(name)
    for way, label in (("angles", "today"), ("angles, turned level", "level")):
        for a, f in figures[way].items():
            print(f"  {label:<6} turned {a:>4g} deg   found {f['found']:>4}/{f['tiles']}  read right {f['right']:>4}"
                  f"  photos every tile right {f['every_tile_right']}/{f['photos']}")
    for key in (k for k in figures if k.startswith("squeezed")):
        who = key[len("squeezed"):].lstrip(", ")
        for way, f in figures[key].items():
            print(f"  squeezed: {way:<14}{' ' + who if who else ''} found {f['found']:>4}/{f['tiles']}"
                  f"  read right {f['right']:>4}  photos every tile right {f['every_tile_right']}/{f['photos']}"
                  f"  {f['ms'] / f['photos']:.1f} ms a photo (mean)")
    one = figures["one_set"]
    print(f"  one set: misreads {one['misreads']} (true kind surely read elsewhere in the photo:"
          f" {one['misreads_truth_elsewhere']}); silent misreads {one['silent_misreads']}"
          f" (true kind elsewhere: {one['silent_truth_elsewhere']}); the rule names"
          f" {one['silent_named_by_rule']} of them and {one['sure_right_named_by_rule']} of"
          f" {one['sure_right_tiles']} sure right tiles")


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", nargs="+", default=list(SETS), help="labelled YOLO folders (tile ids)")
    ap.add_argument("--angles", nargs="*", type=float, default=[0, 20, 35, 45])
    ap.add_argument("--squeeze", nargs="*", type=float, default=[0.5, 0.67],
                    help="shares of the width (then of the height) each photo is also read squeezed to")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--models", type=Path, metavar="DIR",
                    help="also read the squeezed photos with the models DIR holds under the committed file names "
                         "(candidates, vision.detector.models_in)")
    ap.add_argument("--without", nargs="+", choices=sorted(WITHOUT), default=[],
                    help="also read the squeezed photos without each of these parts of the runtime (baselines)")
    ap.add_argument("--json", action="store_true")
    return ap


def main(argv=None) -> int:
    a = build_parser().parse_args(argv)
    from mjtable.vision.detector import TileDetector, models_in
    from mjtable.vision.detector_config import DetectorConfig
    today = TileDetector(DetectorConfig(threads=a.threads, level=False))
    level = TileDetector(DetectorConfig(threads=a.threads))
    cand = TileDetector(DetectorConfig(threads=a.threads, **models_in(a.models))) if a.models else None
    without = {w: TileDetector(DetectorConfig(threads=a.threads, **{WITHOUT[w][0]: None})) for w in a.without}
    out = {}
    for s in a.sets:
        folder = ROOT / s
        if not folder.exists():
            print(f"{s}: missing (scripts/prepare_real_chinese.py, scripts/prepare_camerash_photos.py)",
                  file=sys.stderr)
            continue
        out[s] = {"angles": angle_figures(today, folder, a.angles), "one_set": one_set_figures(today, folder),
                  "angles, turned level": angle_figures(level, folder, a.angles),
                  "squeezed": squeeze_figures(level, folder, a.squeeze)}
        if cand is not None:
            out[s][f"squeezed, models in {a.models.name}"] = squeeze_figures(cand, folder, a.squeeze)
        for name, det in without.items():
            out[s][f"squeezed, without {name}"] = squeeze_figures(det, folder, a.squeeze)
        if not a.json:
            report(s, out[s])
    if a.json:
        print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
