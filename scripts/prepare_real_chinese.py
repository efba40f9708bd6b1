"""Real Chinese tile photos -> project-id YOLO folders under data/ (git-ignored), held out by photo.

The "Chinese Mahjong Detection" photos (shared/data/chinese_mahjong_detection beside the repository, CC BY 4.0;
photos/ originals and augmented/ with three augmented copies of other photos): class names mapped to tile ids
with mjtable.vision.names, and split into train / held-out BY SOURCE PHOTO (the file-name part before
``_jpg.rf.``, so the augmented copies of one photo stay on one side). Only originals are held out: an
augmented copy (flipped, turned, sheared) is not a photo a user takes. A names file in tile-id order
(names.yaml) lets scripts/evaluate_detector read the folders.

The Camerash single-tile crops (shared/data/chinese_tiles_camerash, MIT; about ten commercial sets, each shot in
one or a few set photos, raw-images/) -> two plain crop folders, data/camerash/train and data/camerash/heldout
(images/ of links to the crops and labels.csv: image,tile,name), held out BY TILE SET. The crops do not say
which set they show: each is matched to the set photo it was cut from (normalised cross-correlation at reduced
scale, datasets/labels/camerash/crop_sources.csv, made by --match), and a set is a photo or the photos sharing
a name before '-' (1-1 .. 1-6 are one set). Sets are drawn with the seed until ``--camerash-heldout`` of the
crops are held out.

    python -m scripts.prepare_real_chinese [--src DIR] [--out data/cmd] [--heldout 0.25] [--seed 0]
        [--camerash DIR] [--camerash-out data/camerash] [--camerash-heldout 0.2] [--match]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mjtable.datasets.camerash import SOURCES, match_sources, prepare_crops, read_sources, write_sources
from mjtable.datasets.realphotos import prepare_chinese

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT.parent / "shared" / "data" / "chinese_mahjong_detection"
CAMERASH = ROOT.parent / "shared" / "data" / "chinese_tiles_camerash"


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", type=Path, default=SRC)
    ap.add_argument("--out", type=Path, default=ROOT / "data" / "cmd")
    ap.add_argument("--heldout", type=float, default=0.25, help="share of the original photos held out")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--camerash", type=Path, default=CAMERASH)
    ap.add_argument("--camerash-out", type=Path, default=ROOT / "data" / "camerash")
    ap.add_argument("--camerash-heldout", type=float, default=0.2, help="share of the crops held out (by set)")
    ap.add_argument("--match", action="store_true",
                    help=f"match each crop to its set photo again and rewrite {SOURCES.name}")
    return ap


def main(argv=None) -> int:
    a = build_parser().parse_args(argv)
    if not (a.src / "data.yaml").exists():
        print(f"prepare_real_chinese: no data.yaml in {a.src}", file=sys.stderr)
        return 2
    for split, (n, photos) in prepare_chinese(a.src, a.out, a.heldout, a.seed).items():
        print(f"{split}: {n} images from {photos} source photos")
    if not (a.camerash / "tiles-data" / "data.csv").exists():
        print(f"prepare_real_chinese: no tiles-data/data.csv in {a.camerash}; Camerash crops skipped")
        return 0
    if a.match or not SOURCES.exists():
        matched = match_sources(a.camerash)
        write_sources(SOURCES, matched)
        weak = sum(v < 0.8 for _, v in matched.values())
        print(f"matched {len(matched)} crops to their set photos ({weak} with a score under 0.8) -> {SOURCES}")
    for split, (n, sets) in prepare_crops(a.camerash, a.camerash_out, read_sources(),
                                          a.camerash_heldout, a.seed).items():
        print(f"Camerash {split}: {n} crops from {len(sets)} tile sets ({', '.join(sets)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
