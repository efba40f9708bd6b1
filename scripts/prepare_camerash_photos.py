"""The Camerash set photos with their hand-checked boxes -> YOLO folders under data/ (git-ignored), held out by set.

The photos (shared/data/chinese_tiles_camerash, MIT: raw-images/ and untagged-images-raw/) stay outside the
repository; their labels are committed in datasets/labels/camerash/ (one YOLO file per photo, tile ids, boxes
checked by eye on a detector's first guess; see the README there). A photo of raw-images/ belongs to the tile set
of its name ('1-3.jpg' -> set 1, as for the crops); it is held out when prepare_real_chinese held out that set's
crops, so that a classifier trained on the crops of the other sets never saw it. An untagged photo is a shop
listing of its own set (two files of one listing, e.g. a .gif and a .jpg, are one set); the listings are held out
in a seeded order until ``heldout`` of them. A label file whose first line is ``# skip: ...`` is left out.

    python -m mjtable.scripts.prepare_camerash_photos [--out data/camerash_photos] [--heldout 0.5] [--seed 0]

Writes OUT/train and OUT/heldout (images/ and labels/), OUT/heldout_sets/SET (the held-out photos of each set,
for per-set figures) and OUT/names.yaml.
"""
from __future__ import annotations

import argparse
import csv
import random
import re
import shutil
import sys
from pathlib import Path

import cv2
import numpy as np

from mjtable.scripts.prepare_detector_data import _link
from mjtable.scripts.prepare_real_chinese import CAMERASH, ROOT, tile_set, write_names

LABELS = ROOT / "datasets" / "labels" / "camerash"
FOLDERS = ("raw-images", "untagged-images-raw")
IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".gif"}


ONE_SET = {"bams2": "bams-craks-dots", "craks2": "bams-craks-dots", "dots2": "bams-craks-dots",
           "winddragflow": "bams-craks-dots"}     # one set's suits and honours, a photo each


def listing(name: str) -> str:
    """An untagged photo's set: its shop listing ('TB2btNb..._!!2647131904.gif' and '.jpg' are one listing;
    'TB268V6..._425369108' and '_4253691089' show one set laid out twice), named by its first 24 characters."""
    stem = Path(name).stem
    return "u-" + ONE_SET.get(stem, re.split(r"___|_!!", stem)[0])[:24]


def label_file(folder: str, photo: Path) -> Path:
    """A photo's label file: '<stem>.txt', or '<name>.txt' where two photos share a stem."""
    full = LABELS / folder / f"{photo.name}.txt"
    return full if full.exists() else LABELS / folder / f"{photo.stem}.txt"


def out_name(folder: str, photo: Path) -> str:
    """The photo's name in the YOLO folders: its stem, with its extension where two photos share the stem."""
    shared = label_file(folder, photo).name == f"{photo.name}.txt"
    return f"{photo.stem}_{photo.suffix.lower().lstrip('.')}" if shared else photo.stem


def read_labels(path: Path) -> list[str] | None:
    """The YOLO rows of a label file; None for a missing file or one marked '# skip'."""
    if not path.exists():
        return None
    lines = path.read_text(encoding="utf-8").splitlines()
    if lines and lines[0].startswith("# skip"):
        return None
    rows = []
    for line in lines:
        v = line.split()
        if not v or v[0].startswith("#"):
            continue
        if len(v) != 5 or not 0 <= int(v[0]) <= 42 or not all(0.0 <= float(x) <= 1.0 for x in v[1:]):
            raise ValueError(f"{path.name}: bad row {line!r}")
        rows.append(" ".join(v))
    return rows


def read_photo(path: Path) -> np.ndarray | None:
    """A set photo in colour, BGR (a GIF's first frame through Pillow, since OpenCV does not read GIF)."""
    if path.suffix.lower() == ".gif":
        from PIL import Image
        with Image.open(path) as im:
            return np.ascontiguousarray(np.asarray(im.convert("RGB"))[:, :, ::-1])
    return cv2.imread(str(path))


def photos(src: Path) -> list[tuple[str, Path, str, list[str]]]:
    """(folder, photo, set, label rows) of every photo that has labels."""
    out = []
    for folder in FOLDERS:
        for p in sorted((src / folder).glob("*")):
            rows = read_labels(label_file(folder, p)) if p.suffix.lower() in IMAGE_SUFFIXES else None
            if rows is not None:
                out.append((folder, p, tile_set(p.name) if folder == "raw-images" else listing(p.name), rows))
    return out


def held_out_crop_sets(crops_heldout: Path) -> set[str]:
    """The tile sets whose crops prepare_real_chinese held out (read from its held-out crop folder)."""
    from mjtable.scripts.prepare_real_chinese import read_sources
    listed = crops_heldout / "labels.csv"
    if not listed.exists():
        return set()
    sources = read_sources()
    with open(listed, encoding="utf-8") as f:
        return {tile_set(sources[r["image"]]) for r in csv.DictReader(f) if sources.get(r["image"])}


def held_out_sets(src: Path, heldout: float, seed: int, crops_heldout: Path, require_crop_split: bool = True,
                  items: list | None = None) -> set[str]:
    """The tile sets held out: those whose crops prepare_real_chinese held out, and shop listings drawn in a
    seeded order until ``heldout`` of them."""
    items = photos(src) if items is None else items
    held = held_out_crop_sets(crops_heldout)
    if not held and require_crop_split:
        raise ValueError(f"no held-out crop sets in {crops_heldout}: run prepare_real_chinese first (or give "
                         f"--no-crop-split to hold out shop listings only)")
    untagged = sorted({s for f, _, s, _ in items if f != "raw-images"})
    random.Random(seed).shuffle(untagged)
    return held | set(untagged[:round(len(untagged) * heldout)])


def prepare(src: Path, out: Path, heldout: float, seed: int, crops_heldout: Path,
            require_crop_split: bool = True) -> dict[str, list]:
    """Write the folders; {split: [photos, sets]}."""
    items = photos(src)
    held = held_out_sets(src, heldout, seed, crops_heldout, require_crop_split, items)
    for sub in ("train", "heldout", "heldout_sets"):          # only what this script writes
        if (out / sub).exists():
            shutil.rmtree(out / sub)
    counts: dict[str, list] = {"train": [0, set()], "heldout": [0, set()]}
    for folder, photo, s, rows in items:
        split = "heldout" if s in held else "train"
        dests = [out / split] + ([out / "heldout_sets" / s] if split == "heldout" else [])
        name = out_name(folder, photo)
        for d in dests:
            (d / "images").mkdir(parents=True, exist_ok=True)
            (d / "labels").mkdir(parents=True, exist_ok=True)
            if photo.suffix.lower() == ".gif":           # the readers take JPEG and PNG: the first frame as PNG
                cv2.imwrite(str(d / "images" / f"{name}.png"), read_photo(photo))
            else:
                _link(photo, d / "images" / f"{name}{photo.suffix.lower()}")
            (d / "labels" / f"{name}.txt").write_text("\n".join(rows) + ("\n" if rows else ""))
        counts[split][0] += 1
        counts[split][1].add(s)
    for d in [out / "train", out / "heldout", *sorted((out / "heldout_sets").glob("*"))]:
        if d.exists():
            write_names(d)
    return {k: [n, sorted(s)] for k, (n, s) in counts.items()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", type=Path, default=CAMERASH)
    ap.add_argument("--out", type=Path, default=ROOT / "data" / "camerash_photos")
    ap.add_argument("--crops-heldout", type=Path, default=ROOT / "data" / "camerash" / "heldout",
                    help="the held-out crop folder of prepare_real_chinese (its sets are held out here too)")
    ap.add_argument("--heldout", type=float, default=0.5, help="share of the untagged listings held out")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-crop-split", action="store_true",
                    help="go on when prepare_real_chinese has not held out crop sets (only listings held out)")
    a = ap.parse_args(argv)
    if not any((a.src / f).is_dir() for f in FOLDERS):
        print(f"prepare_camerash_photos: no {' or '.join(FOLDERS)} in {a.src}", file=sys.stderr)
        return 2
    try:
        counts = prepare(a.src, a.out, a.heldout, a.seed, a.crops_heldout, not a.no_crop_split)
    except ValueError as e:
        print(f"prepare_camerash_photos: {e}", file=sys.stderr)
        return 2
    for split, (n, sets) in counts.items():
        print(f"Camerash photos {split}: {n} photos from {len(sets)} sets ({', '.join(sets)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
