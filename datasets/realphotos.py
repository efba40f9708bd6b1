"""The real photo sets made into YOLO folders in tile ids, held out by source photo (the data preparation scripts:
scripts/prepare_detector_data.py, scripts/prepare_real_chinese.py).

* real_riichi_train (one Japanese set; riichi class names): class names mapped to tile ids, polygon rows turned
  into boxes, split into train / held-out BY SOURCE PHOTO (the file-name part before ``_jpg.rf.``: Roboflow's
  augmented copies of one photo stay together); a "binary" copy of a YOLO folder (class 0 face-up tile, 1 back)
  for the two-stage locator.
* chinese_mahjong_detection (photos/ originals, augmented/ copies of other photos): class names mapped with
  mjtable.vision.names; only originals are held out (an augmented copy, flipped, turned or sheared, is not a photo
  a user takes), and no copy of a held-out photo is trained on. The labels that the tiles' printed index and face
  contradict are corrected from datasets/labels/fixes (mjtable.datasets.label_fixes).

The photos stay outside the repository (the shared folder beside it); the folders written link to them.
"""
from __future__ import annotations

import os
import random
from pathlib import Path

from mjtable.datasets.label_fixes import apply_fixes, load_fixes, refuse_unmet
from mjtable.scoring import tiles as T
from mjtable.vision.labels import row_to_box, write_names
from mjtable.vision.names import load_names

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
    """The class names of a Roboflow data.yaml (its ``names: [...]`` line), in class order."""
    for line in data_yaml.read_text().splitlines():
        if line.startswith("names:"):
            body = line.split(":", 1)[1].strip().strip("[]")
            return [s.strip().strip("'\"") for s in body.split(",")]
    raise ValueError(f"no names: line in {data_yaml}")


def convert_label(text: str, names: list[str]) -> list[str]:
    """A riichi label file's rows (riichi class index, box or polygon) -> box rows in tile ids."""
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
    """The photo a Roboflow file was made from: 'p3_jpg.rf.abc.jpg' -> 'p3' (its augmented copies share it)."""
    return filename.split("_jpg.rf.")[0]


def split_sources(files: list[str], heldout: float, seed: int) -> set[str]:
    """The source photos held out: ``heldout`` of them, drawn with the seed."""
    sources = sorted({source_photo(f) for f in files})
    rng = random.Random(seed)
    rng.shuffle(sources)
    return set(sources[:round(len(sources) * heldout)])


def link(src: Path, dst: Path) -> None:
    """dst: a symbolic link to src (resolved), replacing what was there."""
    if dst.exists() or dst.is_symlink():
        dst.unlink()
    os.symlink(src.resolve(), dst)


def binary_copy(src_dir: Path, dst_dir: Path, added: dict[str, list[str]] | None = None) -> None:
    """dst_dir/images/* -> src images (file symlinks: ultralytics resolves a symlinked directory and would
    then read the source labels), dst_dir/labels with class 0 face-up / 1 back. ``added``: binary rows by image
    name appended to its labels (tiles the source does not label, mjtable.datasets.unlabelled)."""
    added = added or {}
    (dst_dir / "labels").mkdir(parents=True, exist_ok=True)
    img_dir = dst_dir / "images"
    if img_dir.is_symlink():
        img_dir.unlink()
    img_dir.mkdir(exist_ok=True)
    for img in (src_dir / "images").glob("*.jpg"):
        link(img, img_dir / img.name)
    for lab in (src_dir / "labels").glob("*.txt"):
        rows = []
        for line in lab.read_text().splitlines():
            v = line.split()
            if v:
                rows.append(" ".join(["1" if int(v[0]) == T.BACK else "0"] + v[1:]))
        rows += added.get(lab.stem + ".jpg", [])
        (dst_dir / "labels" / lab.name).write_text("\n".join(rows) + ("\n" if rows else ""))


def _labelled_photos(src_dir: Path, dst_dir: Path, pattern: str = "*"):
    """Each photo of a YOLO folder that matches ``pattern``, reads and has a label, in name order: (path, image),
    its label copied into dst_dir/labels (YOLO rows are fractions of the image, so a resized copy keeps them)."""
    import cv2
    for sub in ("images", "labels"):
        (dst_dir / sub).mkdir(parents=True, exist_ok=True)
    for img_path in sorted((src_dir / "images").glob(pattern + ".jpg")):
        lab = src_dir / "labels" / (img_path.stem + ".txt")
        img = cv2.imread(str(img_path))
        if img is None or not lab.exists():
            continue
        (dst_dir / "labels" / lab.name).write_text(lab.read_text())
        yield img_path, img


def squeezed_copy(src_dir: Path, dst_dir: Path, seed: int, lo: float = 0.45, hi: float = 0.85) -> int:
    """dst_dir: a copy of each photo of a binary YOLO folder squeezed sideways to lo..hi of its width (drawn), as a
    messaging app or an editor squeezes an export; YOLO rows are fractions of the image, so the labels are the
    source's. Only narrower: a photo squeezed in height has wider tiles, like two tiles side by side, and a locator
    trained on them merged pairs of rendered phone tiles (docs/experiments.md). Returns the number of photos."""
    import cv2
    rng = random.Random(seed)
    n = 0
    for img_path, img in _labelled_photos(src_dir, dst_dir):
        h, w = img.shape[:2]
        size = (max(1, round(w * rng.uniform(lo, hi))), h)
        cv2.imwrite(str(dst_dir / "images" / img_path.name), cv2.resize(img, size, interpolation=cv2.INTER_AREA),
                    [cv2.IMWRITE_JPEG_QUALITY, rng.randrange(70, 96)])
        n += 1
    return n


def packed_copy(src_dir: Path, dst_dir: Path, pattern: str = "*", max_side: int = 640, quality: int = 80) -> int:
    """dst_dir: the images of a YOLO folder that match ``pattern`` shrunk to at most ``max_side`` px (a locator
    trained at that input loses nothing) and written as WebP at ``quality``, with their labels: about a quarter of
    the JPEGs' bytes, for a training machine that only a small upload reaches. Returns the number of images."""
    import cv2
    n = 0
    for img_path, img in _labelled_photos(src_dir, dst_dir, pattern):
        s = max_side / max(img.shape[:2])
        if s < 1:
            img = cv2.resize(img, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
        cv2.imwrite(str(dst_dir / "images" / (img_path.stem + ".webp")), img, [cv2.IMWRITE_WEBP_QUALITY, quality])
        n += 1
    return n


def convert(text: str, mapping: dict[int, int]) -> list[str]:
    """YOLO rows with the set's class index, boxes or polygons -> box rows with tile ids (rows of unknown classes
    are dropped). A polygon row becomes the box around it: some exports label a tile by its outline."""
    out = []
    for line in text.splitlines():
        v = line.split()
        if len(v) < 5 or int(v[0]) not in mapping:
            continue
        if len(v) == 5:
            out.append(" ".join([str(mapping[int(v[0])])] + v[1:]))
        else:
            cx, cy, w, h = row_to_box([float(x) for x in v[1:]])
            out.append(f"{mapping[int(v[0])]} {cx:.6f} {cy:.6f} {w:.6f} {h:.6f}")
    return out


def prepare_chinese(src: Path, out: Path, heldout: float, seed: int,
                    fixes: dict | None = None) -> dict[str, tuple[int, int]]:
    """Write out/train, out/heldout and out/names.yaml; {split: (images, source photos)}. ``fixes``: the label
    fixes by photo name (None: the committed ones, datasets/labels/fixes); a fix whose photo or row is missing
    is refused (StaleFix)."""
    mapping = load_names(src / "data.yaml")
    fixes = dict(load_fixes("chinese_mahjong_detection") if fixes is None else fixes)
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
            if part == "photos":
                rows = apply_fixes(rows, fixes.pop(img.name, []))
            link(img, out / split / "images" / img.name)
            (out / split / "labels" / f"{img.stem}.txt").write_text("\n".join(rows) + ("\n" if rows else ""))
            counts[split][0] += 1
            counts[split][1].add(source_photo(img.name))
    refuse_unmet(fixes, src)
    write_names(out)
    return {k: (n, len(s)) for k, (n, s) in counts.items()}
