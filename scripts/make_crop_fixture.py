"""Cut the small real-crop test fixture (tests/fixtures/real_crops) from the real riichi photos held out by
prepare_detector_data (data/real/heldout; CC BY 4.0, see the fixture's ATTRIBUTION.md).

Tiles are drawn with a seed, one per kind, from tiles wholly inside their photo; each is cut with a tenth of its
size around it, scaled to at most 64 px and written as PNG; labels.csv gives the file, the tile's box in it and
its kind. No tile is chosen for how the classifier reads it.

    python -m scripts.make_crop_fixture [--src data/real/heldout] [--out tests/fixtures/real_crops] [--n 18]
"""
from __future__ import annotations

import argparse
import csv
import random
import sys
from pathlib import Path

import cv2

from mjtable.vision.labels import tile_names

ROOT = Path(__file__).resolve().parent.parent
MAX_SIDE = 64
MARGIN = 0.1


def tiles_of(src: Path) -> list[tuple[Path, int, tuple[float, float, float, float]]]:
    out = []
    for lab in sorted((src / "labels").glob("*.txt")):
        img = src / "images" / f"{lab.stem}.jpg"
        for line in lab.read_text().splitlines():
            v = line.split()
            if len(v) == 5:
                out.append((img, int(v[0]), tuple(map(float, v[1:]))))
    return out


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", type=Path, default=ROOT / "data" / "real" / "heldout")
    ap.add_argument("--out", type=Path, default=ROOT / "tests" / "fixtures" / "real_crops")
    ap.add_argument("--n", type=int, default=18)
    ap.add_argument("--seed", type=int, default=0)
    return ap


def main(argv=None) -> int:
    a = build_parser().parse_args(argv)
    tiles = tiles_of(a.src)
    random.Random(a.seed).shuffle(tiles)
    names, rows, kinds = tile_names(), [], set()
    a.out.mkdir(parents=True, exist_ok=True)
    for img_path, kind, (cx, cy, w, h) in tiles:
        if kind in kinds or len(rows) == a.n:
            continue
        img = cv2.imread(str(img_path))
        H, W = img.shape[:2]
        x1, y1, x2, y2 = (cx - w / 2) * W, (cy - h / 2) * H, (cx + w / 2) * W, (cy + h / 2) * H
        mx, my = MARGIN * (x2 - x1), MARGIN * (y2 - y1)
        X1, Y1, X2, Y2 = round(x1 - mx), round(y1 - my), round(x2 + mx), round(y2 + my)
        if X1 < 0 or Y1 < 0 or X2 > W or Y2 > H:
            continue
        crop = img[Y1:Y2, X1:X2]
        s = min(1.0, MAX_SIDE / max(crop.shape[:2]))
        crop = cv2.resize(crop, (round(crop.shape[1] * s), round(crop.shape[0] * s)), interpolation=cv2.INTER_AREA)
        name = f"{len(rows):02d}_{names[kind]}.png"
        cv2.imwrite(str(a.out / name), crop)
        box = [(x1 - X1) * s, (y1 - Y1) * s, (x2 - X1) * s, (y2 - Y1) * s]
        rows.append([name, *(f"{v:.1f}" for v in box), kind, names[kind]])
        kinds.add(kind)
    with open(a.out / "labels.csv", "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["image", "x1", "y1", "x2", "y2", "tile", "name"])
        w.writerows(rows)
    print(f"{len(rows)} crops -> {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
