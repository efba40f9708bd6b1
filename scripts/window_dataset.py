"""Cut a YOLO folder's frames into the windows a sliced reading sees (vision.slicing), for training a locator on
small tiles at full resolution.

Each frame larger than SIZE gives ``--per-frame`` of its overlapping SIZE px windows (drawn with a seed), each
with the boxes that lie at least ``--min-visible`` inside it, cut to the window; a box cut by the window's edge
is labelled as far as it shows, as the locator sees it there (the sliced reading drops such boxes and keeps the
whole copy in a neighbouring window).

    python -m scripts.window_dataset data/synth/seat300 data/synth/seat300w [--size 640] [--per-frame 2]
"""
from __future__ import annotations

import argparse
import random
import shutil
import sys
from pathlib import Path

import cv2

from mjtable.vision.labels import window_rows
from mjtable.vision.slicing import windows


def cut(src: Path, out: Path, size: int, per_frame: int, min_visible: float, seed: int) -> int:
    rng = random.Random(seed)
    for sub in ("images", "labels"):
        if (out / sub).exists():
            shutil.rmtree(out / sub)
        (out / sub).mkdir(parents=True)
    n = 0
    for img_path in sorted((src / "images").iterdir()):
        img = cv2.imread(str(img_path))
        lab = src / "labels" / f"{img_path.stem}.txt"
        if img is None or not lab.exists():
            continue
        h, w = img.shape[:2]
        rows = [[float(v) for v in line.split()] for line in lab.read_text().splitlines() if line.strip()]
        wins = windows(h, w, size)
        if len(wins) < 2:
            continue
        for k, win in enumerate(rng.sample(wins, min(per_frame, len(wins)))):
            x1, y1, x2, y2 = win
            name = f"{img_path.stem}_w{k}"
            cv2.imwrite(str(out / "images" / f"{name}.jpg"), img[y1:y2, x1:x2], [cv2.IMWRITE_JPEG_QUALITY, 95])
            (out / "labels" / f"{name}.txt").write_text("\n".join(window_rows(rows, w, h, win, min_visible)) + "\n")
            n += 1
    return n


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("src", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--size", type=int, default=640)
    ap.add_argument("--per-frame", type=int, default=2)
    ap.add_argument("--min-visible", type=float, default=0.5)
    ap.add_argument("--seed", type=int, default=0)
    return ap


def main(argv=None) -> int:
    a = build_parser().parse_args(argv)
    if not (a.src / "images").is_dir():
        print(f"window_dataset: no images/ in {a.src}", file=sys.stderr)
        return 2
    if a.size < 64 or a.per_frame < 1 or not 0 < a.min_visible <= 1:
        print("window_dataset: --size >= 64, --per-frame >= 1 and 0 < --min-visible <= 1", file=sys.stderr)
        return 2
    n = cut(a.src, a.out, a.size, a.per_frame, a.min_visible, a.seed)
    print(f"wrote {n} windows of {a.size} px to {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
