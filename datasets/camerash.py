"""The Camerash/mahjong-dataset (MIT; shared/data/chinese_tiles_camerash beside the repository): its labelled crops
of single tiles, the set photos they were cut from, and pseudo-labels for its unlabelled crops; the data
preparation scripts (scripts/prepare_real_chinese.py, prepare_camerash_photos.py, pseudo_label_crops.py) write
plain crop folders and YOLO folders from them, held out BY TILE SET.

* Crops (raw-tiles/ with tiles-data/data.csv, Camerash's own labels): the crops do not say which set they show;
  each was matched to the set photo it was cut from (normalised cross-correlation at reduced scale,
  datasets/labels/camerash/crop_sources.csv, made by prepare_real_chinese --match), and a set is a photo or the
  photos sharing a name before '-' (1-1 .. 1-6 are one set). Sets are drawn with the seed until a share of the
  crops is held out.
* Set photos (raw-images/, untagged-images-raw/): their boxes were checked by eye for this project
  (datasets/labels/camerash/, see the README there). A photo of raw-images/ belongs to the set of its name and is
  held out when that set's crops are; an untagged photo is a shop listing of its own set, and listings are held
  out in a seeded order.
* Unlabelled crops (untagged-tiles/): labelled where two checks agree, the box of a set photo it matches best
  (correlation in colour) and the shipped classifier's reading of it on cloth; the table of both readings is
  committed (datasets/labels/camerash/untagged_tiles.csv).
"""
from __future__ import annotations

import csv
import random
import re
import shutil
from pathlib import Path

import cv2
import numpy as np

from mjtable.scoring import tiles as T
from mjtable.vision.labels import tile_names, write_crop_labels, write_names

from .realphotos import link

LABELS = Path(__file__).resolve().parent / "labels" / "camerash"
SOURCES = LABELS / "crop_sources.csv"        # crop -> the set photo it was cut from
TABLE = LABELS / "untagged_tiles.csv"        # the unlabelled crops' pseudo-labels
FOLDERS = ("raw-images", "untagged-images-raw")
IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".gif"}
THUMB = (24, 32)                       # the crops are 240x320: matched at a tenth of that
SHIFTS = (-0.05, 0.0, 0.05)            # of the box's width / height, each edge
TABLE_FIELDS = ["crop", "photo", "set", "match", "box_kind", "classifier_kind", "classifier_p", "tile", "label"]


# ---------------------------------------------------------------- crops

def camerash_tile(label: int) -> int:
    """Camerash class (1-9 dots, 10-18 bamboo, 19-27 characters, 28-31 E S W N, 32 red, 33 green, 34 white,
    35-38 seasons, 39-42 plum orchid chrysanthemum bamboo) -> tile id."""
    if 1 <= label <= 9:
        return 9 + label - 1
    if 10 <= label <= 18:
        return 18 + label - 10
    if 19 <= label <= 27:
        return label - 19
    if 28 <= label <= 31:
        return 27 + label - 28
    if 32 <= label <= 34:
        return {32: T.RED, 33: T.GREEN, 34: T.WHITE}[label]
    if 35 <= label <= 42:
        return 34 + label - 35
    raise ValueError(f"unknown Camerash label {label}")


# Upstream labels found wrong by eye: crop -> (its label in data.csv, the right Camerash label). Applied only where
# data.csv still gives the wrong label.
CORRECTED = {"350.jpg": (8, 9)}      # labelled dots-8; the tile shows nine dots and a red 9


def crop_label(name: str, label: int) -> int:
    """Tile id of a labelled crop (data.csv's image name and Camerash label), with CORRECTED applied."""
    wrong, right = CORRECTED.get(name, (None, None))
    return camerash_tile(right if label == wrong else label)


def read_crops(folder: Path) -> list[tuple[Path, int]]:
    """(crop path, tile id) of each row of a Camerash folder's tiles-data/data.csv (a crop may be listed twice)."""
    with open(folder / "tiles-data" / "data.csv", encoding="utf-8") as f:
        return [(folder / "raw-tiles" / r["image-name"], crop_label(r["image-name"], int(r["label"])))
                for r in csv.DictReader(f)]


def tile_set(photo: str) -> str:
    """A set photo's tile set: '1-3.jpg' -> '1' (photos 1-1 .. 1-6 show one set), '10.jpg' -> '10'."""
    return Path(photo).stem.split("-")[0]


def match_sources(src: Path, height: int = 24) -> dict[str, tuple[str, float]]:
    """{crop file: (set photo it was cut from, match score)}: each crop and each photo scaled so that the crop
    is ``height`` px high, the photo of the best normalised cross-correlation (TM_CCOEFF_NORMED) wins."""
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
    """A sources file (crop,photo,score) from match_sources' result, in crop-number order."""
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


def prepare_crops(src: Path, out: Path, sources: dict[str, str], heldout: float, seed: int) -> dict:
    """Write out/train and out/heldout (images/ + labels.csv: image,tile,name), held out by tile set;
    {split: (crops, sets)}. A crop with no source photo is its own set."""
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
        link(path, out / split / "images" / path.name)
        rows[split].append((path.name, tile, names[tile]))
        counts[split][0] += 1
        counts[split][1].add(s)
    for split, r in rows.items():
        write_crop_labels(out / split, r)
    return {k: (n, sorted(s, key=lambda x: (len(x), x))) for k, (n, s) in counts.items()}


# ---------------------------------------------------------------- set photos

ONE_SET = {"bams2": "bams-craks-dots", "craks2": "bams-craks-dots", "dots2": "bams-craks-dots",
           "winddragflow": "bams-craks-dots"}     # one set's suits and honours, a photo each


def listing(name: str) -> str:
    """An untagged photo's set: its shop listing ('TB2btNb..._!!2647131904.gif' and '.jpg' are one listing;
    'TB268V6..._425369108' and '_4253691089' show one set laid out twice), named by its first 24 characters."""
    stem = Path(name).stem
    return "u-" + ONE_SET.get(stem, re.split(r"___|_!!", stem)[0])[:24]


def label_file(folder: str, photo: Path, labels: Path | None = None) -> Path:
    """A photo's label file: '<stem>.txt', or '<name>.txt' where two photos share a stem (under ``labels``, by
    default the committed LABELS)."""
    base = (labels or LABELS) / folder
    full = base / f"{photo.name}.txt"
    return full if full.exists() else base / f"{photo.stem}.txt"


def out_name(folder: str, photo: Path, labels: Path | None = None) -> str:
    """The photo's name in the YOLO folders: its stem, with its extension where two photos share the stem."""
    shared = label_file(folder, photo, labels).name == f"{photo.name}.txt"
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


def photos(src: Path, labels: Path | None = None) -> list[tuple[str, Path, str, list[str]]]:
    """(folder, photo, set, label rows) of every photo that has labels."""
    out = []
    for folder in FOLDERS:
        for p in sorted((src / folder).glob("*")):
            rows = read_labels(label_file(folder, p, labels)) if p.suffix.lower() in IMAGE_SUFFIXES else None
            if rows is not None:
                out.append((folder, p, tile_set(p.name) if folder == "raw-images" else listing(p.name), rows))
    return out


def held_out_crop_sets(crops_heldout: Path) -> set[str]:
    """The tile sets whose crops prepare_real_chinese held out (read from its held-out crop folder)."""
    listed = crops_heldout / "labels.csv"
    if not listed.exists():
        return set()
    sources = read_sources()
    with open(listed, encoding="utf-8") as f:
        return {tile_set(sources[r["image"]]) for r in csv.DictReader(f) if sources.get(r["image"])}


def held_out_sets(src: Path, heldout: float, seed: int, crops_heldout: Path, require_crop_split: bool = True,
                  items: list | None = None) -> set[str]:
    """The tile sets held out: those whose crops prepare_real_chinese held out, and shop listings drawn in a
    seeded order until ``heldout`` of them (``items``: photos(src), when already read)."""
    items = photos(src) if items is None else items
    held = held_out_crop_sets(crops_heldout)
    if not held and require_crop_split:
        raise ValueError(f"no held-out crop sets in {crops_heldout}: run prepare_real_chinese first (or give "
                         f"--no-crop-split to hold out shop listings only)")
    untagged = sorted({s for f, _, s, _ in items if f != "raw-images"})
    random.Random(seed).shuffle(untagged)
    return held | set(untagged[:round(len(untagged) * heldout)])


def prepare_photos(src: Path, out: Path, heldout: float, seed: int, crops_heldout: Path,
                   require_crop_split: bool = True, labels: Path | None = None) -> dict[str, list]:
    """Write out/train, out/heldout (images/, labels/, names.yaml) and out/heldout_sets/SET (the held-out photos of
    each set); {split: [photos, sets]}. ``labels``: the photos' label folders (default: the committed LABELS)."""
    items = photos(src, labels)
    held = held_out_sets(src, heldout, seed, crops_heldout, require_crop_split, items)
    for sub in ("train", "heldout", "heldout_sets"):          # only what this writes
        if (out / sub).exists():
            shutil.rmtree(out / sub)
    counts: dict[str, list] = {"train": [0, set()], "heldout": [0, set()]}
    for folder, photo, s, rows in items:
        split = "heldout" if s in held else "train"
        dests = [out / split] + ([out / "heldout_sets" / s] if split == "heldout" else [])
        name = out_name(folder, photo, labels)
        for d in dests:
            (d / "images").mkdir(parents=True, exist_ok=True)
            (d / "labels").mkdir(parents=True, exist_ok=True)
            if photo.suffix.lower() == ".gif":           # the readers take JPEG and PNG: the first frame as PNG
                cv2.imwrite(str(d / "images" / f"{name}.png"), read_photo(photo))
            else:
                link(photo, d / "images" / f"{name}{photo.suffix.lower()}")
            (d / "labels" / f"{name}.txt").write_text("\n".join(rows) + ("\n" if rows else ""))
        counts[split][0] += 1
        counts[split][1].add(s)
    for d in [out / "train", out / "heldout", *sorted((out / "heldout_sets").glob("*"))]:
        if d.exists():
            write_names(d)
    return {k: [n, sorted(s)] for k, (n, s) in counts.items()}


# ---------------------------------------------------------------- pseudo-labels of the unlabelled crops

def _unit(v: np.ndarray) -> np.ndarray:
    v = v.reshape(len(v), -1).astype(np.float32)
    v -= v.mean(axis=1, keepdims=True)
    return v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-6)


def box_thumbs(img: np.ndarray, rows: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """(unit thumbnails of every box under every shift of its edges, the kind of each)."""
    h, w = img.shape[:2]
    thumbs, kinds = [], []
    for row in rows:
        k, cx, cy, bw, bh = int(row.split()[0]), *map(float, row.split()[1:])
        x0, y0, x1, y1 = (cx - bw / 2) * w, (cy - bh / 2) * h, (cx + bw / 2) * w, (cy + bh / 2) * h
        for dx0 in SHIFTS:
            for dy0 in SHIFTS:
                for grow in SHIFTS:
                    a = (x0 + (dx0 - grow) * bw * w, y0 + (dy0 - grow) * bh * h,
                         x1 + (dx0 + grow) * bw * w, y1 + (dy0 + grow) * bh * h)
                    xa, ya, xb, yb = (int(round(v)) for v in a)
                    xa, ya, xb, yb = max(xa, 0), max(ya, 0), min(xb, w), min(yb, h)
                    if xb - xa < 4 or yb - ya < 4:
                        continue
                    thumbs.append(cv2.resize(img[ya:yb, xa:xb], THUMB, interpolation=cv2.INTER_AREA))
                    kinds.append(k)
    if not thumbs:
        return np.zeros((0, THUMB[0] * THUMB[1] * 3), np.float32), np.zeros(0, int)
    return _unit(np.stack(thumbs)), np.array(kinds)


def match_crops(src: Path, crops: list[Path]) -> list[tuple[str, str, float, int]]:
    """For each crop: (photo file, its tile set, best correlation, that box's kind)."""
    c = _unit(np.stack([cv2.resize(cv2.imread(str(p)), THUMB, interpolation=cv2.INTER_AREA) for p in crops]))
    best = np.full(len(crops), -2.0, np.float32)
    where = [("", "", -1)] * len(crops)
    for folder, photo, tile_set, rows in photos(src):
        img = read_photo(photo)
        if img is None:
            continue
        t, kinds = box_thumbs(img, rows)
        if not len(t):
            continue
        corr = c @ t.T
        arg = corr.argmax(axis=1)
        val = corr[np.arange(len(crops)), arg]
        for i in np.flatnonzero(val > best):
            best[i] = val[i]
            where[i] = (f"{folder}/{photo.name}", tile_set, int(kinds[arg[i]]))
    return [(p, s, float(b), k) for (p, s, k), b in zip(where, best)]


def classify_crops(crops: list[Path], classifier: Path | None) -> list[tuple[int, float]]:
    """The classifier's (kind, probability) for each crop, pasted on cloth (mjtable.vision.evaluate.on_cloth)."""
    from mjtable.vision.detector import CLASSIFIER, DetectorConfig, TileDetector
    from mjtable.vision.evaluate import on_cloth
    det = TileDetector(DetectorConfig(classifier=classifier or CLASSIFIER, refiner=None))
    out = []
    for p in crops:
        img, box = on_cloth(cv2.imread(str(p)))
        kinds, _ = det.classify(img, np.array([box], np.float32))
        out.append((int(kinds[0].argmax()), float(kinds[0].max())))
    return out


def label_table(src: Path, classifier: Path | None, min_match: float, min_p: float) -> list[dict]:
    """A row per unlabelled crop (TABLE_FIELDS): its best match among the set photos' boxes, the classifier's
    reading, and a label where both agree (match >= min_match, probability >= min_p, the same kind)."""
    crops = sorted((src / "untagged-tiles").glob("*.jpg"), key=lambda p: (len(p.stem), p.stem))
    matched = match_crops(src, crops)
    read = classify_crops(crops, classifier)
    rows = []
    for p, (photo, tile_set, score, box_kind), (kind, prob) in zip(crops, matched, read):
        agree = score >= min_match and prob >= min_p and kind == box_kind
        rows.append({"crop": p.name, "photo": photo, "set": tile_set, "match": f"{score:.3f}",
                     "box_kind": T.code(box_kind) if box_kind >= 0 else "",
                     "classifier_kind": T.code(kind), "classifier_p": f"{prob:.3f}",
                     "tile": kind if agree else "", "label": T.code(kind) if agree else ""})
    return rows


def write_table(path: Path, rows: list[dict]) -> None:
    """The pseudo-label table (TABLE_FIELDS) as CSV."""
    with open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, TABLE_FIELDS, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)


def read_table(path: Path = TABLE) -> list[dict]:
    """The pseudo-label table's rows (the committed one by default)."""
    with open(path, encoding="utf-8") as f:
        return list(csv.DictReader(f))


def write_folders(src: Path, out: Path, rows: list[dict], held: set[str]) -> dict[str, int]:
    """The labelled crops into OUT/train and OUT/heldout by their photo's tile set; {split: crops}."""
    counts = {"train": 0, "heldout": 0}
    split_rows: dict[str, list] = {"train": [], "heldout": []}
    for r in rows:
        if not r["label"]:
            continue
        split = "heldout" if r["set"] in held else "train"
        split_rows[split].append([r["crop"], int(r["tile"]), r["label"]])
    for split, items in split_rows.items():
        d = out / split
        if d.exists():
            shutil.rmtree(d)
        (d / "images").mkdir(parents=True)
        for name, _, _ in items:
            link(src / "untagged-tiles" / name, d / "images" / name)
        write_crop_labels(d, items)
        counts[split] = len(items)
    return counts
