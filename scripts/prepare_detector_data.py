"""Prepare detector training data under data/ (gitignored).

1. The real riichi photos (shared/data/real_riichi_train beside the repository, CC BY 4.0): class names mapped to our
   tile ids, polygon rows converted to boxes, split into train / held-out BY SOURCE PHOTO (the file-name prefix
   before ``_jpg.rf.``; Roboflow augmented copies of one photo stay together), ~20% of photos held out.
2. A "binary" copy of each YOLO dir for the two-stage design: class 0 = face-up tile, 1 = face-down tile. The
   binary copies of the real Chinese photos (cmd/...) also box the tiles their labels leave out, checked by eye
   (datasets/labels/added, mjtable.datasets.unlabelled).

    python -m scripts.prepare_detector_data [--real DIR] [--out data] [--heldout 0.2] [--seed 0] [--squeeze cmd/train]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mjtable.datasets.realphotos import (binary_copy, convert_label, link, read_names, source_photo, split_sources,
                                        squeezed_copy)
from mjtable.datasets.unlabelled import load_added

ROOT = Path(__file__).resolve().parent.parent

REAL = ROOT.parent / "shared" / "data" / "real_riichi_train"   # the shared folder beside the repository

def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--real", type=Path, default=REAL)
    ap.add_argument("--out", type=Path, default=ROOT / "data")
    ap.add_argument("--heldout", type=float, default=0.2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--synth", nargs="*", default=["synth/train", "synth/test"],
                    help="synthetic YOLO dirs under --out to make binary copies of")
    ap.add_argument("--squeeze", nargs="*", default=[],
                    help="YOLO dirs under --out whose binary copies also get a squeezed copy, bin/DIR_squeezed "
                         "(each photo squeezed sideways to 0.45-0.85 of its width)")
    return ap


def main(argv=None) -> int:
    a = build_parser().parse_args(argv)
    names = read_names(a.real / "data.yaml")
    added = load_added("chinese_mahjong_detection")
    files = sorted(p.name for p in (a.real / "images").glob("*.jpg"))
    held = split_sources(files, a.heldout, a.seed)
    counts = {"train": [0, set()], "heldout": [0, set()]}
    for split in counts:
        for sub in ("images", "labels"):
            (a.out / "real" / split / sub).mkdir(parents=True, exist_ok=True)
    for f in files:
        split = "heldout" if source_photo(f) in held else "train"
        stem = f[:-4]
        lab = a.real / "labels" / f"{stem}.txt"
        rows = convert_label(lab.read_text(), names) if lab.exists() else []
        link(a.real / "images" / f, a.out / "real" / split / "images" / f)
        (a.out / "real" / split / "labels" / f"{stem}.txt").write_text("\n".join(rows) + ("\n" if rows else ""))
        counts[split][0] += 1
        counts[split][1].add(source_photo(f))
    for split, (n, src) in counts.items():
        print(f"real {split}: {n} images from {len(src)} source photos")
    for d in dict.fromkeys(["real/train", "real/heldout"] + list(a.synth) + list(a.squeeze)):   # each once
        if (a.out / d / "labels").exists():
            binary_copy(a.out / d, a.out / "bin" / d, added if d.startswith("cmd/") else None)
            print(f"binary copy: {a.out / 'bin' / d}")
    for d in a.squeeze:
        n = squeezed_copy(a.out / "bin" / d, a.out / "bin" / f"{d}_squeezed", seed=a.seed)
        print(f"squeezed copy: {a.out / 'bin' / d}_squeezed ({n} photos)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
