"""Generate synthetic table photos with YOLO labels and ground-truth JSON.

    python -m mjtable.datasets.generate --out DIR --kind phone|overhead|seat|grid|mixed --n N --seed S
                                [--imgsz 640] [--workers 2]
                                [--boxes whole|visible] [--art packaged|fonts|all|real] [--split train|heldout]
                                [--clutter] [--racks] [--portrait]

Writes DIR/images/*.jpg, DIR/labels/*.txt (YOLO: class x y w h, class = tile id 0..41 or 42 = back),
DIR/angles/*.txt (one line per label row: image angle of the tile's up axis in degrees, 0 = up, 90 = left,
180 = down, 270 = right; used to train the orientation head) and DIR/gt/*.json (notes/contracts.md).
Boxes are each tile's whole outline, parts hidden under the tiles drawn over it too (--boxes whole, the
default: what the committed models were trained on), or what shows of it (--boxes visible, mjtable.datasets.render).
--clutter adds real-looking objects beside the tiles (score sheets, coins, dice, sticks, hands, phones) and a
camera's glare, shadows and colour (mjtable.datasets.clutter, albumentations): the same tiles at the same places
as without it. --racks (whole tables) draws a clear plastic rack before most seats' hands, over the tiles, from a
generator of its own too. --portrait makes seat views in a 9:16 frame, --imgsz its height, as a phone held upright takes
them (the tiles smaller). --art real paints whole tables (--kind seat or overhead) with real tile faces cut from
photos (mjtable.datasets.realfaces, mjtable.datasets.realtable: the near seat's won hand laid face up, real table
patches, a messaging app's JPEG), from the training sets' faces or, with --split heldout, only from the held-out
sets'. Every image depends only on (seed, kind, index, --art, --split, --clutter, --racks, --portrait) and, with --art
real, the face bank: the same command writes the same files.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import zlib
from multiprocessing import Pool
from pathlib import Path

import cv2

from .ground_truth import to_json
from .render import BOX_KINDS, DEFAULT_BOXES
from .scenes import grid_scene, overhead_scene, phone_scene
from .scenes import portrait as portrait_frame
from .tileart import FONT_SETS, PACKAGED, load_faces

_ARTS: dict[str, dict] = {}       # art name -> the tile sets' faces, loaded once per process
# written to DIR/generator.json with the box kind; a change to the images or labels the generator makes bumps
# it, so that caches of generated scenes (scripts/bench_e2e.py) know they are stale
LABELS_VERSION = 1      # 1: since the motion-blur fix (datasets.render.motion_kernel)


ART_CHOICES = ("packaged", "fonts", "all", "real")
SPLIT_CHOICES = ("train", "heldout")      # which sets' real faces --art real paints (datasets.realfaces)
_REAL: dict = {}
ART = "packaged"          # the tile sets scenes draw on unless told (--art); it keeps earlier data sets reproducible


def _real(split: str):
    """The real face bank of a split, loaded once (cut first from the shared data when missing)."""
    if split not in _REAL:
        from .realfaces import load_bank
        _REAL[split] = load_bank(split)
    return _REAL[split]


def real_scene(kind: str, seed: int, index: int, imgsz: int = 640, boxes: str = DEFAULT_BOXES,
               clutter: bool = False, portrait: bool = False, split: str = "train", racks: bool = False):
    """(image BGR, GroundTruth, angles) of a whole table painted with the split's real faces (--art real)."""
    from .realtable import messaging_copy, real_table
    rng = random.Random(scene_seed(seed, kind, index))
    clutter = random.Random(scene_seed(seed, kind + ":clutter", index)) if clutter else None
    racks = random.Random(scene_seed(seed, kind + ":racks", index)) if racks else None
    name = f"{kind}_{seed}_{index:06d}.jpg"
    bank = _real(split)
    if kind == "overhead":
        img, gt, angles = real_table(bank, rng, name, (imgsz, imgsz), boxes, clutter=clutter, racks=racks)
    elif kind == "seat":       # upright: the table fills the frame's width, the cloth goes on above and below it
        size = (imgsz * 9 // 16, imgsz) if portrait else (imgsz, imgsz * 9 // 16)
        img, gt, angles = real_table(bank, rng, name, size, boxes, seat_view=True, clutter=clutter, racks=racks)
    else:
        raise ValueError(f"--art real makes whole tables: kind seat or overhead, not {kind!r}")
    return messaging_copy(img, random.Random(scene_seed(seed, kind + ":app", index))), gt, angles


def _art(art: str = ART):
    """The faces of the tile sets ``art`` names (packaged, fonts, all), loaded once."""
    if art not in _ARTS:
        faces = load_faces()
        keep = {"packaged": PACKAGED, "fonts": FONT_SETS, "all": PACKAGED + FONT_SETS}[art]
        _ARTS[art] = {k: v for k, v in faces.items() if k in keep}
    return _ARTS[art]


def scene_seed(seed: int, kind: str, index: int) -> int:
    return zlib.crc32(f"{seed}:{kind}:{index}".encode())


def make_scene(kind: str, seed: int, index: int, imgsz: int = 640, boxes: str = DEFAULT_BOXES,
               clutter: bool = False, portrait: bool = False, art: str | None = None, split: str = "train",
               loose: bool = False, racks: bool = False):
    """(image BGR, GroundTruth, angles) for one scene; deterministic (the image does not depend on boxes).
    clutter: objects beside the tiles and a camera's light (--clutter). portrait: a seat view
    in a 9:16 frame (imgsz its height), as a phone held upright takes it. art: "real" for a table of real
    faces from the split's sets (real_scene); packaged, fonts or all: those drawn tile sets; None: ART's. loose:
    a phone photo shows tiles lying loose beyond the hand at any angle too (--loose). racks: a whole table shows
    clear racks before the seats' hands (--racks)."""
    art = art or ART
    if art == "real":
        return real_scene(kind, seed, index, imgsz, boxes, clutter, portrait, split, racks)
    rng = random.Random(scene_seed(seed, kind, index))
    # the clutter and the racks draw from generators of their own: the scene's tiles stay the same with them and
    # without them
    clutter = random.Random(scene_seed(seed, kind + ":clutter", index)) if clutter else None
    racks = random.Random(scene_seed(seed, kind + ":racks", index)) if racks else None
    name = f"{kind}_{seed}_{index:06d}.jpg"
    if kind == "phone":
        loose_rng = random.Random(scene_seed(seed, kind + ":loose", index)) if loose else None
        return phone_scene(_art(art), rng, name, (imgsz, imgsz * 3 // 4), boxes, clutter, loose_rng)
    if kind == "overhead":
        return overhead_scene(_art(art), rng, name, (imgsz, imgsz), boxes, clutter=clutter, racks=racks)
    if kind == "grid":
        return grid_scene(_art(art), rng, name, (imgsz, imgsz), boxes, clutter)
    if kind == "seat" and portrait:
        w = imgsz * 9 // 16
        img, gt, angles = overhead_scene(_art(art), rng, name, (w, w * 9 // 16), boxes, seat_view=True,
                                         clutter=clutter, racks=racks)
        return (*portrait_frame(img, gt, imgsz, random.Random(scene_seed(seed, "portrait", index))), angles)
    if kind == "seat":
        return overhead_scene(_art(art), rng, name, (imgsz, imgsz * 9 // 16), boxes, seat_view=True,
                              clutter=clutter, racks=racks)
    raise ValueError(f"unknown scene kind {kind!r} (phone, overhead, seat or grid)")


def yolo_lines(gt, w: int, h: int) -> list[str]:
    out = []
    for o in gt.objects:
        x1, y1, x2, y2 = o.box
        out.append(f"{o.kind} {(x1 + x2) / 2 / w:.6f} {(y1 + y2) / 2 / h:.6f} {(x2 - x1) / w:.6f} {(y2 - y1) / h:.6f}")
    return out


def write_scene(out: Path, kind: str, seed: int, index: int, imgsz: int, boxes: str = DEFAULT_BOXES,
                portrait: bool = False, clutter: bool = False, art: str | None = None, split: str = "train",
                loose: bool = False, racks: bool = False) -> int:
    img, gt, angles = make_scene(kind, seed, index, imgsz, boxes, clutter, portrait, art, split, loose, racks)
    stem = Path(gt.image).stem
    h, w = img.shape[:2]
    cv2.imwrite(str(out / "images" / gt.image), img, [cv2.IMWRITE_JPEG_QUALITY, 92])
    (out / "labels" / f"{stem}.txt").write_text("\n".join(yolo_lines(gt, w, h)) + "\n")
    (out / "angles" / f"{stem}.txt").write_text("\n".join(f"{a:.1f}" for a in angles) + "\n")
    (out / "gt" / f"{stem}.json").write_text(json.dumps(to_json(gt)))
    return len(gt.objects)


def _job(args):
    return write_scene(*args)


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m mjtable.datasets.generate", description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--kind", choices=("phone", "overhead", "seat", "grid", "mixed"), default="mixed",
                    help="seat = a whole table shot from the south seat (16:9 frame, far tiles small); grid = "
                         "close-up of tiles packed in rows (extra training kind, gt kind 'grid')")
    ap.add_argument("--n", type=int, required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--imgsz", type=int, default=640)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--start", type=int, default=0, help="first scene index (to extend a dataset)")
    ap.add_argument("--boxes", choices=BOX_KINDS, default=DEFAULT_BOXES,
                    help="label each tile's whole outline, hidden parts too (default), or what shows of it")
    ap.add_argument("--art", choices=ART_CHOICES, default="packaged",
                    help="tile sets: the packaged art (default), made-up sets drawn from CJK fonts "
                         "(mjtable.datasets.fontfaces, with packaged dots and bamboo), both, or real faces cut "
                         "from photos (whole tables only: --kind seat or overhead)")
    ap.add_argument("--split", choices=SPLIT_CHOICES, default="train",
                    help="with --art real: the training sets' faces, or only the held-out sets' (to measure)")
    ap.add_argument("--portrait", action="store_true",
                    help="seat views in a 9:16 frame, --imgsz its height (a phone held upright)")
    ap.add_argument("--clutter", action="store_true",
                    help="objects beside the tiles (score sheets, coins, dice, sticks, hands, phones) and a "
                         "camera's glare, shadows and colour (needs the training extra's albumentations)")
    ap.add_argument("--racks", action="store_true",
                    help="whole tables show a clear plastic rack before most seats' hands (see-through, bright "
                         "edges; drawn from a generator of its own: the same tiles as without)")
    ap.add_argument("--loose", action="store_true",
                    help="phone photos show 4-16 tiles lying loose beyond the hand at any angle (labelled, not "
                         "part of the hand)")
    return ap


def main(argv=None) -> int:
    a = build_parser().parse_args(argv)
    if a.portrait and a.kind != "seat":
        print("error: --portrait is for --kind seat", file=sys.stderr)
        return 2
    if a.loose and a.kind not in ("phone", "mixed"):
        print("error: --loose is for --kind phone or mixed", file=sys.stderr)
        return 2
    if a.racks and a.kind not in ("seat", "overhead"):
        print("error: --racks is for --kind seat or overhead", file=sys.stderr)
        return 2
    if a.art == "real" and a.kind not in ("seat", "overhead"):
        print("error: --art real is for --kind seat or overhead", file=sys.stderr)
        return 2
    if a.n <= 0 or a.imgsz < 96:
        print("error: --n must be > 0 and --imgsz >= 96", file=sys.stderr)
        return 2
    for sub in ("images", "labels", "angles", "gt"):
        (a.out / sub).mkdir(parents=True, exist_ok=True)
    made = {"labels": LABELS_VERSION, "boxes": a.boxes, "art": a.art, "clutter": a.clutter, "portrait": a.portrait}
    if a.loose:
        made["loose"] = True        # only when asked: the benchmarks' folders compare this file as it was
    if a.racks:
        made["racks"] = True
    if a.art == "real":
        from .realfaces import BANK_VERSION
        from .realtable import TABLES_VERSION
        made.update(split=a.split, bank=BANK_VERSION, tables=TABLES_VERSION)
        _real(a.split)  # load (or cut) the face bank once before forking
    else:
        _art(a.art)  # build the tile art cache once before forking
    (a.out / "generator.json").write_text(json.dumps(made) + "\n")
    jobs = []
    for i in range(a.start, a.start + a.n):
        kind = a.kind if a.kind != "mixed" else ("phone" if i % 2 == 0 else "overhead")
        jobs.append((a.out, kind, a.seed, i, a.imgsz, a.boxes, a.portrait, a.clutter, a.art, a.split, a.loose,
                     a.racks))
    from tqdm import tqdm
    n_obj = 0
    if a.workers > 1:
        with Pool(a.workers) as pool:
            for n in tqdm(pool.imap_unordered(_job, jobs, chunksize=4), total=len(jobs), desc="scenes", disable=None):
                n_obj += n
    else:
        for j in tqdm(jobs, desc="scenes", disable=None):
            n_obj += _job(j)
    print(f"wrote {len(jobs)} scenes with {n_obj} tiles to {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
