"""Pack binary YOLO folders for a training machine reached only by a small upload (a lent GPU): each image at
most --max-side px, WebP at --quality, labels as they are (mjtable.datasets.realphotos.packed_copy).

    python -m scripts.pack_detector_data --out data/packed/bin synth/over105 "synth/mix900:overhead_*" ...

DIR[:file glob] names a folder under data/bin (scripts/prepare_detector_data.py makes them); the packed copy keeps
the same relative path under --out, so `train_detector --data` can point at the folder above it.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mjtable.datasets.realphotos import packed_copy

ROOT = Path(__file__).resolve().parent.parent


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dirs", nargs="+", help="DIR[:file glob] under --src")
    ap.add_argument("--src", type=Path, default=ROOT / "data" / "bin")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--max-side", type=int, default=640)
    ap.add_argument("--quality", type=int, default=80)
    return ap


def main(argv=None) -> int:
    a = build_parser().parse_args(argv)
    for spec in a.dirs:
        d, _, pattern = spec.partition(":")
        if not (a.src / d / "images").is_dir():
            print(f"pack_detector_data: no folder {a.src / d}/images", file=sys.stderr)
            return 2
        n = packed_copy(a.src / d, a.out / d, pattern or "*", a.max_side, a.quality)
        print(f"{d}: {n} images")
    return 0


if __name__ == "__main__":
    sys.exit(main())
