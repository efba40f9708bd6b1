"""A bank of real tile faces and empty table patches cut from labelled photos, held out by tile set.

Sources (in the shared folder beside the repository, ``../shared`` or $MJTABLE_SHARED; both CC BY 4.0, see
their ATTRIBUTION.md; the photos and the crops stay out of git, under data/realfaces):

* chinese_mahjong_detection (Hong Kong style sets with flowers): the 144 originals of photos/ only, their labels
  corrected where datasets/labels/fixes says (mjtable.datasets.label_fixes, as the detector's data is). Its
  augmented/ copies are left out: flips mirror the faces and turns and shears tilt them, and nothing in a file
  name says which copy had which, so they would put mirrored and tilted faces in the bank.
* real_riichi_train (one Japanese set, no flowers), the photos of its training split only
  (scripts/prepare_detector_data: held out by source photo, 0.2, seed 0); its unlabelled photos (desks,
  paper) give table patches. Training bank only.

Every photo was resized to 640x640 by stretching. A photo's stretch is read from its boxes (most tiles of a
photo stand upright: the median box is an upright face, 3:4, stretched) and undone on each crop (shrunk along
the stretched axis, so no crop claims more detail than the photo had). A box at the frame's edge (cut off), one
lying sideways once the stretch is undone (its up is left or right, unknown which) and one under MIN_FACE_H px
are not cut. An upside-down tile cannot be told from its box (about one in five lie so): the committed
classifier's orientation vote turns those it reads upside down with a clear vote (its kind is the label's).

Held out by set: the photos held out by scripts/prepare_real_chinese (by source photo, 0.25, seed 0: the
photos the detector never trained on) feed the held-out bank; the training bank takes no photo of a set that
holds one of them. A set is what a file name says of it: the photos of one upload (Facebook names whose first
number is within UPLOAD_GAP of the previous one), of one day (phone names with a date, screenshots) or a photo
alone.

    python -m mjtable.datasets.realfaces [--out data/realfaces] [--heldout 0.25] [--seed 0] [--no-riichi]
        [--keep-upside-down]
"""
from __future__ import annotations

import argparse
import json
import random
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from mjtable.scoring import tiles as T
from mjtable.vision.labels import row_to_box

from .label_fixes import apply_fixes, load_fixes, refuse_unmet
from .realphotos import convert, source_photo, split_sources

ROOT = Path(__file__).resolve().parent.parent
BANK = ROOT / "data" / "realfaces"
BANK_VERSION = 2          # bumped when the crops change: generated real tables record it (datasets.generate); 2: the
                          # labels corrected by datasets/labels/fixes
CMD, RIICHI = "chinese_mahjong_detection", "real_riichi_train"
FACE_ASPECT = 0.75        # an upright tile's face: width / height
MIN_FACE_H = 14           # px: a smaller box is not cut
EDGE = 2                  # px: a box this close to the frame's edge is cut off
INSET = 0.03              # of the box's size, trimmed off each side of a crop (a neighbour's edge)
UPLOAD_GAP = 1000         # Facebook photo ids this close are one upload
PATCH = 112               # px: the side of an empty table patch
SPLITS = ("train", "heldout")
TILE_IDS = {t: t for t in range(T.N_CLASSES)}   # photo_boxes' mapping of rows already in tile ids


def shared_dir() -> Path:
    """The shared folder (../shared beside the repository, or $MJTABLE_SHARED); it need not exist."""
    import os
    return Path(os.environ.get("MJTABLE_SHARED") or ROOT.parent / "shared")


def photo_boxes(label_text: str, mapping: dict[int, int], size: tuple[int, int]) -> list[tuple]:
    """(tile id, x1, y1, x2, y2) in pixels of a (w, h) image from YOLO rows (boxes or polygons); rows of
    unknown classes are dropped."""
    w, h = size
    out = []
    for line in label_text.splitlines():
        v = line.split()
        if len(v) < 5 or int(v[0]) not in mapping:
            continue
        cx, cy, bw, bh = row_to_box([float(x) for x in v[1:]])
        out.append((mapping[int(v[0])], (cx - bw / 2) * w, (cy - bh / 2) * h, (cx + bw / 2) * w, (cy + bh / 2) * h))
    return out


def photo_stretch(boxes: list[tuple]) -> float:
    """How many times wider than true the photo's content is: the median box's width / height over an upright
    face's (most tiles of a photo stand upright); 1 for a photo without boxes."""
    r = [(x2 - x1) / (y2 - y1) for _, x1, y1, x2, y2 in boxes if x2 > x1 and y2 > y1]
    return float(np.median(r)) / FACE_ASPECT if r else 1.0


def unstretched(crop: np.ndarray, s: float) -> np.ndarray:
    """A crop of a photo stretched s times wide, shrunk back along the stretched axis."""
    h, w = crop.shape[:2]
    size = (max(1, round(w / s)), h) if s > 1 else (w, max(1, round(h * s)))
    return cv2.resize(crop, size, interpolation=cv2.INTER_AREA) if size != (w, h) else crop


def cut_faces(img: np.ndarray, boxes: list[tuple], min_h: int = MIN_FACE_H,
              turned=frozenset()) -> list[tuple[int, np.ndarray]]:
    """(tile id, face crop, stretch undone) of each box of a photo that shows a whole upright face; the boxes
    whose indices are in ``turned`` (upside down) turned the right way up."""
    H, W = img.shape[:2]
    s = photo_stretch(boxes)
    out = []
    for i, (tid, x1, y1, x2, y2) in enumerate(boxes):
        if x1 < EDGE or y1 < EDGE or x2 > W - EDGE or y2 > H - EDGE or x2 <= x1 or y2 <= y1:
            continue
        if (x2 - x1) / (y2 - y1) / s > 1.0:          # lying sideways once the stretch is undone
            continue
        dx, dy = INSET * (x2 - x1), INSET * (y2 - y1)
        crop = img[int(round(y1 + dy)):int(round(y2 - dy)), int(round(x1 + dx)):int(round(x2 - dx))]
        crop = unstretched(crop, s)
        if i in turned:
            crop = cv2.rotate(crop, cv2.ROTATE_180)
        if crop.shape[0] >= min_h and crop.shape[1] >= min_h * FACE_ASPECT * 0.6:
            out.append((tid, np.ascontiguousarray(crop)))
    return out


def empty_patches(img: np.ndarray, boxes: list[tuple], rng: random.Random, n: int = 3,
                  side: int = PATCH, tries: int = 60) -> list[np.ndarray]:
    """Up to n square patches of the photo that touch no box (widened by a quarter of its size): the table."""
    H, W = img.shape[:2]
    if H < side or W < side:
        return []
    keep = []
    for _, x1, y1, x2, y2 in boxes:
        mx, my = (x2 - x1) / 4, (y2 - y1) / 4
        keep.append((x1 - mx, y1 - my, x2 + mx, y2 + my))
    out: list[tuple[int, int]] = []
    for _ in range(tries):
        if len(out) >= n:
            break
        x, y = rng.randrange(W - side + 1), rng.randrange(H - side + 1)
        if any(x < bx2 and x + side > bx1 and y < by2 and y + side > by1 for bx1, by1, bx2, by2 in keep):
            continue
        if any(abs(x - ox) < side and abs(y - oy) < side for ox, oy in out):
            continue
        out.append((x, y))
    return [np.ascontiguousarray(img[y:y + side, x:x + side]) for x, y in out]


def flat_patch(patch: np.ndarray) -> bool:
    """A patch of table, not of a picture: little detail (a cloth, a desk, wood), no black border."""
    g = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY)
    return float(g.std()) < 28 and float(g.mean()) > 30


def upload_sets(names: list[str]) -> dict[str, str]:
    """{photo source name: its set}: Facebook names (digits_digits_digits_n) whose first numbers lie within
    UPLOAD_GAP of each other are one upload; names with a date (20231119_003551, IMG_20231030_204854,
    Screenshot-2023-10-24-...) one day's; any other name a set of its own."""
    out, fb = {}, []
    for n in names:
        m = re.match(r"^(\d{6,})_\d+_\d+_n$", n)
        d = re.search(r"(20\d\d)-?(\d\d)-?(\d\d)", n)
        if m:
            fb.append((int(m.group(1)), n))
        elif d:
            out[n] = ("shot-" if n.startswith("Screenshot") else "day-") + "".join(d.groups())
        else:
            out[n] = n
    prev, key = None, ""
    for num, n in sorted(fb):
        if prev is None or num - prev > UPLOAD_GAP:
            key = f"upload-{num}"
        out[n], prev = key, num
    return out


# ------------------------------------------------------------------------------------------ the split


@dataclass
class Split:
    """Which photos of the Chinese sets feed which bank, and why."""
    sets: dict[str, str]                   # source photo -> its set
    heldout_photos: set[str]               # prepare_real_chinese's held-out originals: the held-out bank
    heldout_sets: set[str]                 # their sets: no photo of them feeds the training bank

    def side(self, source: str) -> str | None:
        """"heldout", "train", or None for a photo of a held-out set that the detector trained on."""
        if source in self.heldout_photos:
            return "heldout"
        return None if self.sets.get(source, source) in self.heldout_sets else "train"


def split_chinese(originals: list[str], heldout: float = 0.25, seed: int = 0) -> Split:
    """The split of the Chinese originals (file names of photos/images): scripts/prepare_real_chinese's by source
    photo (the same call, so the held-out photos are those no detector trained on), widened to their sets."""
    held = split_sources(originals, heldout, seed)
    sets = upload_sets(sorted({source_photo(f) for f in originals}))
    return Split(sets, held, {sets[n] for n in held})


def riichi_train(files: list[str], heldout: float = 0.2, seed: int = 0) -> list[str]:
    """The riichi photos of scripts/prepare_detector_data's training split (held out by source photo)."""
    held = split_sources(files, heldout, seed)
    return [f for f in files if source_photo(f) not in held]


# ------------------------------------------------------------------------------------------ the bank on disk


def _write(out: Path, rel: str, img: np.ndarray) -> str:
    (out / rel).parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(out / rel), img)
    return rel


def upside_down(img: np.ndarray, boxes: list[tuple], det) -> set[int]:
    """Indices of the boxes that the detector's classifier reads upside down with a clear vote
    (vision.detector.UPSIDE_DOWN_MIN); none without a detector. Only the way up is taken from it, never the
    kind: the label says that."""
    if det is None or not boxes:
        return set()
    from mjtable.vision.detector import UPSIDE_DOWN_MIN
    _, orient = det.classify(img, np.array([b[1:] for b in boxes], np.float32))
    return {i for i, o in enumerate(orient) if o[2] >= UPSIDE_DOWN_MIN}


def bank_photo(out: Path, index: dict, img: np.ndarray, boxes: list[tuple], split: str, tset: str, stem: str,
               rng: random.Random, det=None) -> None:
    """Cut one photo's faces and empty patches into the bank folder and its index (faces that ``det``'s
    classifier reads upside down turned the right way up)."""
    safe = re.sub(r"[^A-Za-z0-9_-]", "_", tset)
    for k, (tid, crop) in enumerate(cut_faces(img, boxes, turned=upside_down(img, boxes, det))):
        index["faces"].append([split, tset, tid, _write(out, f"faces/{split}/{safe}/{stem}_{k}_{tid}.png", crop)])
    s = photo_stretch(boxes)
    for k, p in enumerate(q for q in empty_patches(img, boxes, rng) if flat_patch(q)):
        index["patches"].append([split, tset, _write(out, f"tables/{split}/{safe}/{stem}_{k}.png",
                                                     unstretched(p, s))])


def add_chinese(src: Path, out: Path, index: dict, heldout: float, seed: int, det=None,
                fixes: dict | None = None) -> Split:
    """The Chinese originals into the bank, split by set (module doc), their labels corrected by the label fixes
    (``fixes`` by photo name; None: the committed ones, datasets/labels/fixes); a fix whose photo or row is
    missing is refused (label_fixes.StaleFix)."""
    from mjtable.vision.names import load_names
    mapping = load_names(src / "data.yaml")
    fixes = dict(load_fixes(CMD) if fixes is None else fixes)
    files = sorted(p.name for p in (src / "photos" / "images").glob("*.jpg"))
    sp = split_chinese(files, heldout, seed)
    rng = random.Random(seed)
    for f in files:
        side = sp.side(source_photo(f))
        img = cv2.imread(str(src / "photos" / "images" / f))
        lab = src / "photos" / "labels" / f"{Path(f).stem}.txt"
        rows = apply_fixes(convert(lab.read_text() if lab.exists() else "", mapping), fixes.pop(f, []))
        if side is None or img is None:
            index["skipped"] += 1
            continue
        boxes = photo_boxes("\n".join(rows), TILE_IDS, (img.shape[1], img.shape[0]))
        bank_photo(out, index, img, boxes, side, sp.sets[source_photo(f)], Path(f).stem[:40], rng, det)
        index["photos"][side] += 1
    refuse_unmet(fixes, src)
    return sp


def add_riichi(src: Path, out: Path, index: dict, seed: int, det=None) -> None:
    """The riichi training photos into the training bank, as one set."""
    from mjtable.vision.names import load_names
    mapping = load_names(src / "data.yaml")
    rng = random.Random(seed)
    for f in riichi_train(sorted(p.name for p in (src / "images").glob("*.jpg"))):
        img = cv2.imread(str(src / "images" / f))
        if img is None:
            continue
        lab = src / "labels" / f"{Path(f).stem}.txt"
        boxes = photo_boxes(lab.read_text() if lab.exists() else "", mapping, (img.shape[1], img.shape[0]))
        bank_photo(out, index, img, boxes, "train", "riichi", Path(f).stem[:40], rng, det)
        index["photos"]["train"] += 1


def orienting_detector():
    """The committed detector, whose classifier says which faces lie upside down; None when it cannot load."""
    try:
        from mjtable.vision.locate import load_detector
        return load_detector()
    except Exception as e:              # no model files: the faces stay as they lie
        print(f"realfaces: no detector ({e}); upside-down faces are kept as they lie", file=sys.stderr)
        return None


def build_bank(out: Path = BANK, shared: Path | None = None, heldout: float = 0.25, seed: int = 0,
               riichi: bool = True, det=None, fixes: dict | None = None) -> dict:
    """Cut the bank into ``out`` (replacing it) and write out/index.json; the index. det: a TileDetector whose
    classifier turns the faces it reads upside down the right way up (orienting_detector), or None. fixes: the
    Chinese photos' label fixes by photo name (add_chinese; None: the committed ones)."""
    import shutil
    base = shared or shared_dir()
    src = base / "data" / CMD
    if not (src / "data.yaml").exists():
        raise FileNotFoundError(f"no {CMD}/data.yaml under {base / 'data'}: the real tables need the shared data")
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    index = {"version": BANK_VERSION, "heldout": heldout, "seed": seed, "riichi": riichi, "turned": det is not None,
             "skipped": 0,
             "photos": {s: 0 for s in SPLITS}, "faces": [], "patches": []}
    sp = add_chinese(src, out, index, heldout, seed, det, fixes)
    if riichi and (base / "data" / RIICHI / "data.yaml").exists():
        add_riichi(base / "data" / RIICHI, out, index, seed, det)
    index["heldout_sets"] = sorted(sp.heldout_sets)
    index["heldout_photos"] = sorted(sp.heldout_photos)
    (out / "index.json").write_text(json.dumps(index, indent=0) + "\n")
    return index


def bank_index(out: Path = BANK) -> dict | None:
    """The bank's index, None when there is none or it was cut by an older BANK_VERSION."""
    try:
        index = json.loads((out / "index.json").read_text())
    except (OSError, ValueError):
        return None
    return index if index.get("version") == BANK_VERSION else None


# ------------------------------------------------------------------------------------------ the bank in memory


@dataclass
class RealBank:
    """One split's faces and table patches, by set."""
    split: str
    faces: dict[str, dict[int, list[np.ndarray]]] = field(default_factory=dict)    # set -> tile id -> crops
    patches: dict[str, list[np.ndarray]] = field(default_factory=dict)             # set -> table patches

    def kinds(self) -> set[int]:
        return {t for f in self.faces.values() for t in f}


def load_bank(split: str, out: Path = BANK, build: bool = True) -> RealBank:
    """The split's bank, cut first (from the shared data) when missing or stale and ``build``."""
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, not {split!r}")
    index = bank_index(out)
    if index is None:
        if not build:
            raise FileNotFoundError(f"no real face bank in {out} (python -m mjtable.datasets.realfaces)")
        print(f"cutting the real face bank into {out} ...", file=sys.stderr)
        index = build_bank(out, det=orienting_detector())
    bank = RealBank(split)
    for sp, tset, tid, rel in index["faces"]:
        img = cv2.imread(str(out / rel)) if sp == split else None
        if img is not None:
            bank.faces.setdefault(tset, {}).setdefault(int(tid), []).append(img)
    for sp, tset, rel in index["patches"]:
        img = cv2.imread(str(out / rel)) if sp == split else None
        if img is not None:
            bank.patches.setdefault(tset, []).append(img)
    if not bank.faces:
        raise FileNotFoundError(f"the real face bank in {out} holds no {split} faces")
    return bank


def summary(index: dict) -> list[str]:
    """Lines saying what the bank holds."""
    lines = []
    for split in SPLITS:
        faces = [f for f in index["faces"] if f[0] == split]
        kinds = {f[2] for f in faces}
        sets = {f[1] for f in faces}
        patches = sum(p[0] == split for p in index["patches"])
        lines.append(f"{split}: {len(faces)} faces of {len(kinds)} kinds from {index['photos'][split]} photos, "
                     f"{len(sets)} sets; {patches} table patches")
    lines.append(f"held-out sets ({len(index['heldout_sets'])}): {', '.join(index['heldout_sets'])}")
    lines.append(f"photos of held-out sets the detector trained on, in neither bank: {index['skipped']}")
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m mjtable.datasets.realfaces", description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=BANK)
    ap.add_argument("--heldout", type=float, default=0.25, help="share of the Chinese originals held out (as "
                    "scripts/prepare_real_chinese)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-riichi", action="store_true", help="leave the riichi set out of the training bank")
    ap.add_argument("--keep-upside-down", action="store_true",
                    help="keep faces as they lie (else those the classifier reads upside down are turned)")
    a = ap.parse_args(argv)
    try:
        index = build_bank(a.out, None, a.heldout, a.seed, not a.no_riichi,
                           None if a.keep_upside_down else orienting_detector())
    except FileNotFoundError as e:
        print(f"realfaces: {e}", file=sys.stderr)
        return 2
    print("\n".join(summary(index)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
