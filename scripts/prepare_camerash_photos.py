"""The Camerash set photos with their hand-checked boxes -> YOLO folders under data/ (git-ignored), held out by set.

The photos (shared/data/chinese_tiles_camerash, MIT: raw-images/ and untagged-images-raw/) stay outside the
repository; their labels are committed in datasets/labels/camerash/ (one YOLO file per photo, tile ids, boxes
checked by eye on a detector's first guess; see the README there). A photo of raw-images/ belongs to the tile set
of its name ('1-3.jpg' -> set 1, as for the crops); it is held out when prepare_real_chinese held out that set's
crops, so that a classifier trained on the crops of the other sets never saw it. An untagged photo is a shop
listing of its own set (two files of one listing, e.g. a .gif and a .jpg, are one set); the listings are held out
in a seeded order until ``heldout`` of them. A label file whose first line is ``# skip: ...`` is left out.

    python -m scripts.prepare_camerash_photos [--out data/camerash_photos] [--heldout 0.5] [--seed 0]
        [--labels datasets/labels/camerash] [--no-crop-split]

Writes OUT/train and OUT/heldout (images/ and labels/), OUT/heldout_sets/SET (the held-out photos of each set,
for per-set figures) and OUT/names.yaml (mjtable.datasets.camerash.prepare_photos).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mjtable.datasets.camerash import FOLDERS, LABELS, prepare_photos

ROOT = Path(__file__).resolve().parent.parent
CAMERASH = ROOT.parent / "shared" / "data" / "chinese_tiles_camerash"


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", type=Path, default=CAMERASH)
    ap.add_argument("--out", type=Path, default=ROOT / "data" / "camerash_photos")
    ap.add_argument("--crops-heldout", type=Path, default=ROOT / "data" / "camerash" / "heldout",
                    help="the held-out crop folder of prepare_real_chinese (its sets are held out here too)")
    ap.add_argument("--heldout", type=float, default=0.5, help="share of the untagged listings held out")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--labels", type=Path, default=LABELS,
                    help="the photos' label folders (raw-images/, untagged-images-raw/; default: the committed ones)")
    ap.add_argument("--no-crop-split", action="store_true",
                    help="go on when prepare_real_chinese has not held out crop sets (only listings held out)")
    return ap


def main(argv=None) -> int:
    a = build_parser().parse_args(argv)
    if not any((a.src / f).is_dir() for f in FOLDERS):
        print(f"prepare_camerash_photos: no {' or '.join(FOLDERS)} in {a.src}", file=sys.stderr)
        return 2
    try:
        counts = prepare_photos(a.src, a.out, a.heldout, a.seed, a.crops_heldout, not a.no_crop_split, a.labels)
    except ValueError as e:
        print(f"prepare_camerash_photos: {e}", file=sys.stderr)
        return 2
    for split, (n, sets) in counts.items():
        print(f"Camerash photos {split}: {n} photos from {len(sets)} sets ({', '.join(sets)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
