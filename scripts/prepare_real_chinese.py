"""Real Chinese tile photos -> project-id YOLO folders under data/ (git-ignored), held out by photo.

The "Chinese Mahjong Detection" photos (shared/data/chinese_mahjong_detection beside the repository, CC BY 4.0;
photos/ originals and augmented/ with three augmented copies of other photos): class names mapped to tile ids
with mjtable.vision.names, and split into train / held-out BY SOURCE PHOTO (the file-name part before
``_jpg.rf.``, so the augmented copies of one photo stay on one side). Only originals are held out: an
augmented copy (flipped, turned, sheared) is not a photo a user takes. A names file in tile-id order
(names.yaml) lets scripts/evaluate_detector read the folders.

    python -m mjtable.scripts.prepare_real_chinese [--src DIR] [--out data/cmd] [--heldout 0.25] [--seed 0]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mjtable.scoring import tiles as T
from mjtable.scripts.prepare_detector_data import _link, source_photo, split_sources
from mjtable.vision.names import load_names

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT.parent / "shared" / "data" / "chinese_mahjong_detection"


def tile_names() -> list[str]:
    """Class names in tile-id order, in the scheme the names reader knows (m1 .. z7, f1 .. f8)."""
    letter = {T.MAN: "m", T.PIN: "p", T.SOU: "s", T.HONOR: "z", T.FLOWER: "f"}
    return [f"{letter[T.suit(t)]}{T.rank(t)}" for t in range(T.N_KINDS + 8)]


def convert(text: str, mapping: dict[int, int]) -> list[str]:
    """YOLO rows with the set's class index -> rows with tile ids (rows of unknown classes are dropped)."""
    out = []
    for line in text.splitlines():
        v = line.split()
        if len(v) == 5 and int(v[0]) in mapping:
            out.append(" ".join([str(mapping[int(v[0])])] + v[1:]))
    return out


def prepare(src: Path, out: Path, heldout: float, seed: int) -> dict[str, tuple[int, int]]:
    """Write out/train, out/heldout and out/names.yaml; {split: (images, source photos)}."""
    mapping = load_names(src / "data.yaml")
    originals = sorted(p.name for p in (src / "photos" / "images").glob("*.jpg"))
    held = split_sources(originals, heldout, seed)
    counts: dict[str, list] = {"train": [0, set()], "heldout": [0, set()]}
    for split in counts:
        for sub in ("images", "labels"):
            (out / split / sub).mkdir(parents=True, exist_ok=True)
    for part in ("photos", "augmented"):
        for img in sorted((src / part / "images").glob("*.jpg")):
            split = "heldout" if part == "photos" and source_photo(img.name) in held else "train"
            if part == "augmented" and source_photo(img.name) in held:
                continue                      # never train on a copy of a held-out photo
            lab = src / part / "labels" / f"{img.stem}.txt"
            rows = convert(lab.read_text(), mapping) if lab.exists() else []
            _link(img, out / split / "images" / img.name)
            (out / split / "labels" / f"{img.stem}.txt").write_text("\n".join(rows) + ("\n" if rows else ""))
            counts[split][0] += 1
            counts[split][1].add(source_photo(img.name))
    (out / "names.yaml").write_text("names: [" + ", ".join(tile_names()) + "]\n")
    return {k: (n, len(s)) for k, (n, s) in counts.items()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", type=Path, default=SRC)
    ap.add_argument("--out", type=Path, default=ROOT / "data" / "cmd")
    ap.add_argument("--heldout", type=float, default=0.25, help="share of the original photos held out")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    if not (a.src / "data.yaml").exists():
        print(f"prepare_real_chinese: no data.yaml in {a.src}", file=sys.stderr)
        return 2
    for split, (n, photos) in prepare(a.src, a.out, a.heldout, a.seed).items():
        print(f"{split}: {n} images from {photos} source photos")
    return 0


if __name__ == "__main__":
    sys.exit(main())
