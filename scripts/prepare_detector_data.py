"""Prepare detector training data under data/ (gitignored).

1. The real riichi photos (shared/data/real_riichi_train beside the repository, CC BY 4.0): class names mapped to our
   tile ids, polygon rows converted to boxes, split into train / held-out BY SOURCE PHOTO (the file-name prefix
   before ``_jpg.rf.``; Roboflow augmented copies of one photo stay together), ~20% of photos held out.
2. A "binary" copy of each YOLO dir for the two-stage design: class 0 = face-up tile, 1 = face-down tile.

    python -m mjtable.scripts.prepare_detector_data [--real DIR] [--out data] [--heldout 0.2] [--seed 0]
"""
from __future__ import annotations

import argparse
import os
import random
import sys
from pathlib import Path

from mjtable.scoring import tiles as T

ROOT = Path(__file__).resolve().parent.parent

REAL = ROOT.parent / "shared" / "data" / "real_riichi_train"   # the shared folder beside the repository
_HONOURS = {"east": 27, "south": 28, "west": 29, "north": 30, "haku": 31, "hatsu": 32, "chun": 33}
_SUITS = {"man": 0, "pin": 9, "sou": 18}


def riichi_name_to_id(name: str) -> int:
    """'1man' -> 0, '5pin' -> 13, '9sou' -> 26, 'east' -> 27, 'haku' -> 31, 'chun' -> 33."""
    if name in _HONOURS:
        return _HONOURS[name]
    n, suit = name[:1], name[1:]
    if not n.isdigit() or suit not in _SUITS or n == "0":
        raise ValueError(f"unknown riichi tile name {name!r}")
    return _SUITS[suit] + int(n) - 1


def read_names(data_yaml: Path) -> list[str]:
    for line in data_yaml.read_text().splitlines():
        if line.startswith("names:"):
            body = line.split(":", 1)[1].strip().strip("[]")
            return [s.strip().strip("'\"") for s in body.split(",")]
    raise ValueError(f"no names: line in {data_yaml}")


def row_to_box(values: list[float]) -> tuple[float, float, float, float]:
    """YOLO row values after the class: 4 numbers = box (cx cy w h), more = polygon x y pairs -> its box."""
    if len(values) == 4:
        return tuple(values)
    if len(values) < 6 or len(values) % 2:
        raise ValueError(f"cannot read label row with {len(values)} numbers")
    xs, ys = values[0::2], values[1::2]
    x1, x2, y1, y2 = min(xs), max(xs), min(ys), max(ys)
    return ((x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1)


def convert_label(text: str, names: list[str]) -> list[str]:
    out = []
    for line in text.splitlines():
        v = line.split()
        if not v:
            continue
        tid = riichi_name_to_id(names[int(v[0])])
        cx, cy, w, h = row_to_box([float(x) for x in v[1:]])
        out.append(f"{tid} {cx:.6f} {cy:.6f} {w:.6f} {h:.6f}")
    return out


def source_photo(filename: str) -> str:
    return filename.split("_jpg.rf.")[0]


def split_sources(files: list[str], heldout: float, seed: int) -> set[str]:
    sources = sorted({source_photo(f) for f in files})
    rng = random.Random(seed)
    rng.shuffle(sources)
    return set(sources[:round(len(sources) * heldout)])


def _link(src: Path, dst: Path) -> None:
    if dst.exists() or dst.is_symlink():
        dst.unlink()
    os.symlink(src.resolve(), dst)


def binary_copy(src_dir: Path, dst_dir: Path) -> None:
    """dst_dir/images/* -> src images (file symlinks: ultralytics resolves a symlinked directory and would
    then read the source labels), dst_dir/labels with class 0 face-up / 1 back."""
    (dst_dir / "labels").mkdir(parents=True, exist_ok=True)
    img_dir = dst_dir / "images"
    if img_dir.is_symlink():
        img_dir.unlink()
    img_dir.mkdir(exist_ok=True)
    for img in (src_dir / "images").glob("*.jpg"):
        _link(img, img_dir / img.name)
    for lab in (src_dir / "labels").glob("*.txt"):
        rows = []
        for line in lab.read_text().splitlines():
            v = line.split()
            if v:
                rows.append(" ".join(["1" if int(v[0]) == T.BACK else "0"] + v[1:]))
        (dst_dir / "labels" / lab.name).write_text("\n".join(rows) + ("\n" if rows else ""))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--real", type=Path, default=REAL)
    ap.add_argument("--out", type=Path, default=ROOT / "data")
    ap.add_argument("--heldout", type=float, default=0.2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--synth", nargs="*", default=["synth/train", "synth/test"],
                    help="synthetic YOLO dirs under --out to make binary copies of")
    a = ap.parse_args(argv)
    names = read_names(a.real / "data.yaml")
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
        _link(a.real / "images" / f, a.out / "real" / split / "images" / f)
        (a.out / "real" / split / "labels" / f"{stem}.txt").write_text("\n".join(rows) + ("\n" if rows else ""))
        counts[split][0] += 1
        counts[split][1].add(source_photo(f))
    for split, (n, src) in counts.items():
        print(f"real {split}: {n} images from {len(src)} source photos")
    for d in ["real/train", "real/heldout"] + list(a.synth):
        if (a.out / d / "labels").exists():
            binary_copy(a.out / d, a.out / "bin" / d)
            print(f"binary copy: {a.out / 'bin' / d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
