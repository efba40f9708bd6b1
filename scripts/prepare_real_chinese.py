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
scale, camerash_sources.csv beside this script, made by --match), and a set is a photo or the photos sharing
a name before '-' (1-1 .. 1-6 are one set). Sets are drawn with the seed until ``--camerash-heldout`` of the
crops are held out.

    python -m mjtable.scripts.prepare_real_chinese [--src DIR] [--out data/cmd] [--heldout 0.25] [--seed 0]
        [--camerash DIR] [--camerash-out data/camerash] [--camerash-heldout 0.2] [--match]
"""
from __future__ import annotations

import argparse
import csv
import random
import sys
from pathlib import Path

import cv2

from mjtable.scoring import tiles as T
from mjtable.scripts.prepare_detector_data import _link, source_photo, split_sources
from mjtable.vision.names import load_names

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT.parent / "shared" / "data" / "chinese_mahjong_detection"
CAMERASH = ROOT.parent / "shared" / "data" / "chinese_tiles_camerash"
SOURCES = Path(__file__).resolve().parent / "camerash_sources.csv"


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
    write_names(out)
    return {k: (n, len(s)) for k, (n, s) in counts.items()}


def write_names(folder: Path) -> None:
    """folder/names.yaml: the class names in tile-id order, for scripts/evaluate_detector."""
    (folder / "names.yaml").write_text("names: [" + ", ".join(tile_names()) + "]\n")


def tile_set(photo: str) -> str:
    """A set photo's tile set: '1-3.jpg' -> '1' (photos 1-1 .. 1-6 show one set), '10.jpg' -> '10'."""
    return Path(photo).stem.split("-")[0]


def match_sources(src: Path, height: int = 24) -> dict[str, tuple[str, float]]:
    """{crop file: (set photo it was cut from, match score)}: each crop and each photo scaled so that the crop
    is ``height`` px high, the photo of the best normalised cross-correlation (TM_CCOEFF_NORMED) wins."""
    from mjtable.scripts.evaluate_crops import read_crops
    photos = {p.name: cv2.imread(str(p), cv2.IMREAD_GRAYSCALE) for p in sorted((src / "raw-images").iterdir())}
    photos = {k: v for k, v in photos.items() if v is not None}
    scaled: dict[tuple[str, float], object] = {}
    out = {}
    for path, _ in read_crops(src):
        crop = cv2.imread(str(path), cv2.IMREAD_GRAYSCALE)
        if crop is None:
            continue
        s = round(min(1.0, height / crop.shape[0]), 3)
        c = cv2.resize(crop, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
        best = (-2.0, "")
        for name, photo in photos.items():
            if photo.shape[0] < crop.shape[0] or photo.shape[1] < crop.shape[1]:
                continue
            if (name, s) not in scaled:
                scaled[name, s] = cv2.resize(photo, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
            p = scaled[name, s]
            if p.shape[0] >= c.shape[0] and p.shape[1] >= c.shape[1]:
                v = float(cv2.minMaxLoc(cv2.matchTemplate(p, c, cv2.TM_CCOEFF_NORMED))[1])
                best = max(best, (v, name))
        out[path.name] = (best[1], best[0])
    return out


def read_sources(path: Path = SOURCES) -> dict[str, str]:
    """{crop file: set photo} from a sources file (crop,photo,score)."""
    with open(path, encoding="utf-8") as f:
        return {r["crop"]: r["photo"] for r in csv.DictReader(f)}


def write_sources(path: Path, sources: dict[str, tuple[str, float]]) -> None:
    with open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["crop", "photo", "score"])
        for crop, (photo, score) in sorted(sources.items(), key=lambda kv: int(Path(kv[0]).stem)
                                           if Path(kv[0]).stem.isdigit() else 10 ** 9):
            w.writerow([crop, photo, f"{score:.3f}"])


def split_sets(sets: dict[str, int], heldout: float, seed: int) -> set[str]:
    """Tile sets to hold out ({set: crops}): drawn in a seeded order until at least ``heldout`` of the crops."""
    order = sorted(sets)
    random.Random(seed).shuffle(order)
    total, held, n = sum(sets.values()), set(), 0
    for s in order:
        if n >= heldout * total:
            break
        held.add(s)
        n += sets[s]
    return held


def prepare_camerash(src: Path, out: Path, sources: dict[str, str], heldout: float, seed: int) -> dict:
    """Write out/train and out/heldout (images/ + labels.csv: image,tile,name), held out by tile set;
    {split: (crops, sets)}. A crop with no source photo is its own set."""
    from mjtable.scripts.evaluate_crops import read_crops
    names = tile_names()
    crops = [(p, t, tile_set(sources.get(p.name) or f"crop {p.name}"))
             for p, t in dict(read_crops(src)).items() if p.exists()]      # a crop listed twice counts once
    sets: dict[str, int] = {}
    for _, _, s in crops:
        sets[s] = sets.get(s, 0) + 1
    held = split_sets(sets, heldout, seed)
    counts: dict[str, list] = {"train": [0, set()], "heldout": [0, set()]}
    rows: dict[str, list] = {"train": [], "heldout": []}
    for split in counts:
        (out / split / "images").mkdir(parents=True, exist_ok=True)
    for path, tile, s in crops:
        split = "heldout" if s in held else "train"
        _link(path, out / split / "images" / path.name)
        rows[split].append((path.name, tile, names[tile]))
        counts[split][0] += 1
        counts[split][1].add(s)
    for split, r in rows.items():
        write_crop_labels(out / split, r)
    return {k: (n, sorted(s, key=lambda x: (len(x), x))) for k, (n, s) in counts.items()}


def write_crop_labels(folder: Path, rows) -> None:
    """A plain crop folder's labels.csv: image (a file in folder/images), tile id, its name."""
    with open(folder / "labels.csv", "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["image", "tile", "name"])
        w.writerows(rows)


def read_crop_labels(folder: Path) -> list[tuple[Path, int]]:
    """(image path, tile id) of each row of a plain crop folder's labels.csv."""
    with open(folder / "labels.csv", encoding="utf-8") as f:
        return [(folder / "images" / r["image"], int(r["tile"])) for r in csv.DictReader(f)]


def main(argv=None) -> int:
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
    a = ap.parse_args(argv)
    if not (a.src / "data.yaml").exists():
        print(f"prepare_real_chinese: no data.yaml in {a.src}", file=sys.stderr)
        return 2
    for split, (n, photos) in prepare(a.src, a.out, a.heldout, a.seed).items():
        print(f"{split}: {n} images from {photos} source photos")
    if not (a.camerash / "tiles-data" / "data.csv").exists():
        print(f"prepare_real_chinese: no tiles-data/data.csv in {a.camerash}; Camerash crops skipped")
        return 0
    if a.match or not SOURCES.exists():
        matched = match_sources(a.camerash)
        write_sources(SOURCES, matched)
        weak = sum(v < 0.8 for _, v in matched.values())
        print(f"matched {len(matched)} crops to their set photos ({weak} with a score under 0.8) -> {SOURCES}")
    for split, (n, sets) in prepare_camerash(a.camerash, a.camerash_out, read_sources(),
                                             a.camerash_heldout, a.seed).items():
        print(f"Camerash {split}: {n} crops from {len(sets)} tile sets ({', '.join(sets)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
