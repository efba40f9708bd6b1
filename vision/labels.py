"""Label files: YOLO rows read into pixel boxes (one reader for every data set), the names file in tile-id order,
rows cut to a window, and the labels.csv of a plain crop folder.

A YOLO label file has one row per tile: ``class cx cy w h`` (normalised 0..1) or a polygon
``class x1 y1 x2 y2 x3 y3 ...`` (read as its bounding box); a prediction file may add a confidence as 6th number
(``class cx cy w h conf``, the ultralytics ``save_conf`` form). An image without a label file has no tiles.

A plain crop folder holds single-tile pictures (``images/``) and ``labels.csv`` (``image,tile,name``: the file in
images/, its tile id, the tile's name); the real data sets' tools write them (mjtable.datasets.camerash).
"""
from __future__ import annotations

import csv
import math
from pathlib import Path

import numpy as np

from mjtable.errors import shown
from mjtable.scoring import tiles as T


class DatasetError(ValueError):
    """The data folder or one of its label files cannot be used; the message names it."""


MAX_LABEL_BYTES = 16 << 20          # a label file (a frame holds a few hundred tiles: a few KB)


def read_text_file(path: Path, limit: int, error: type[Exception], what: str = "file") -> str:
    """A small text file's content: ``error`` (one line naming ``what`` and the path) for one that is no regular
    file (a FIFO would block the reader for ever, /dev/zero never end), larger than ``limit`` bytes, or not
    UTF-8."""
    from .images import not_a_file
    why = not_a_file(path)
    if why:
        raise error(f"cannot read {what} {shown(path)}: it {why}")
    try:
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    except OSError as e:
        raise error(f"cannot read {what} {shown(path)}: {e.strerror or e}") from None
    if len(data) > limit:
        raise error(f"cannot read {what} {shown(path)}: larger than {limit >> 20} MB")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise error(f"cannot read {what} {shown(path)}: not UTF-8 text ({e.reason} at byte {e.start})") from None


def row_to_box(values: list[float]) -> tuple[float, float, float, float]:
    """YOLO row values after the class: 4 numbers = box (cx cy w h), more = polygon x y pairs -> its box."""
    if len(values) == 4:
        return tuple(values)
    if len(values) < 6 or len(values) % 2:
        raise ValueError(f"cannot read label row with {len(values)} numbers")
    xs, ys = values[0::2], values[1::2]
    x1, x2, y1, y2 = min(xs), max(xs), min(ys), max(ys)
    return ((x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1)


def _row(parts: list[str], mapping: dict[int, int] | None, where: str, with_conf: bool):
    """(tile id, normalised x1 y1 x2 y2, confidence) of one row's words; DatasetError naming ``where``."""
    try:
        cls_f = float(parts[0])
        nums = [float(x) for x in parts[1:]]
    except ValueError:
        raise DatasetError(f"{where}: not numbers: {' '.join(parts)!r}") from None
    whole = math.isfinite(cls_f) and cls_f == int(cls_f)
    known = whole and (cls_f >= 0 if mapping is None else int(cls_f) in mapping)
    if not known:
        raise DatasetError(f"{where}: class {parts[0]} is not in the names file "
                           f"(it has {min(mapping)}..{max(mapping)})" if mapping else
                           f"{where}: class {parts[0]} is not a class index")
    conf = 1.0
    if len(nums) == 4 or (len(nums) == 5 and with_conf):
        if len(nums) == 5:
            conf = nums[4]
        cx, cy, w, h = nums[:4]
    elif len(nums) >= 6 and len(nums) % 2 == 0:
        cx, cy, w, h = row_to_box(nums)
    else:
        raise DatasetError(f"{where}: want 'class cx cy w h'{' [conf]' if with_conf else ''} "
                           f"or a polygon 'class x1 y1 x2 y2 x3 y3 ...', got {len(parts)} numbers")
    box = [cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2]
    if not all(math.isfinite(v) for v in box) or min(box) < -0.5 or max(box) > 1.5:
        raise DatasetError(f"{where}: coordinates must be normalised to 0..1")
    if not (w > 0 and h > 0):
        raise DatasetError(f"{where}: a box's width and height must be over 0, got {w:g} x {h:g}")
    if not 0.0 <= conf <= 1.0:
        raise DatasetError(f"{where}: a confidence must be from 0 to 1, got {conf:g}")
    return (int(cls_f) if mapping is None else mapping[int(cls_f)]), box, conf


def read_yolo_rows(path: Path, mapping: dict[int, int] | None, width: int, height: int,
                   with_conf: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Boxes (N,4) in pixels, tile ids (N,), confidences (N,) from one YOLO txt file (missing file: empty).
    ``mapping``: {the set's class index: tile id} (a class it lacks is an error); None: the classes are tile ids."""
    boxes, kinds, confs = [], [], []
    path = Path(path)
    if path.exists():
        lines = read_text_file(path, MAX_LABEL_BYTES, DatasetError, "label file").splitlines()
        for n, line in enumerate(lines, 1):
            parts = line.split()
            if not parts:
                continue
            kind, box, conf = _row(parts, mapping, f"{path}:{n}", with_conf)
            boxes.append([box[0] * width, box[1] * height, box[2] * width, box[3] * height])
            kinds.append(kind)
            confs.append(conf)
    return (np.array(boxes, dtype=np.float64).reshape(-1, 4), np.array(kinds, dtype=np.int64),
            np.array(confs, dtype=np.float64))


def read_yolo(path: Path, width: int, height: int) -> tuple[np.ndarray, np.ndarray]:
    """Boxes (N,4) in pixels and tile ids (N,) of a label file written in tile ids (the project's own folders)."""
    boxes, kinds, _ = read_yolo_rows(path, None, width, height)
    return boxes, kinds


def window_rows(rows: list[list[float]], w: int, h: int, win: tuple[int, int, int, int],
                min_visible: float) -> list[str]:
    """YOLO rows (class, cx, cy, bw, bh normalised to a w x h frame) -> rows normalised to the window
    (x1, y1, x2, y2 in px): the boxes at least ``min_visible`` inside it, cut to it."""
    x1, y1, x2, y2 = win
    ww, wh = x2 - x1, y2 - y1
    out = []
    for c, cx, cy, bw, bh in rows:
        a = np.array([(cx - bw / 2) * w, (cy - bh / 2) * h, (cx + bw / 2) * w, (cy + bh / 2) * h])
        cut = np.array([max(a[0], x1), max(a[1], y1), min(a[2], x2), min(a[3], y2)])
        area = (a[2] - a[0]) * (a[3] - a[1])
        inside = max(0.0, cut[2] - cut[0]) * max(0.0, cut[3] - cut[1])
        if area <= 0 or inside / area < min_visible:
            continue
        out.append(f"{int(c)} {((cut[0] + cut[2]) / 2 - x1) / ww:.6f} {((cut[1] + cut[3]) / 2 - y1) / wh:.6f} "
                   f"{(cut[2] - cut[0]) / ww:.6f} {(cut[3] - cut[1]) / wh:.6f}")
    return out


def tile_names() -> list[str]:
    """Class names in tile-id order, in the scheme the names reader knows (m1 .. z7, f1 .. f8)."""
    letter = {T.MAN: "m", T.PIN: "p", T.SOU: "s", T.HONOR: "z", T.FLOWER: "f"}
    return [f"{letter[T.suit(t)]}{T.rank(t)}" for t in range(T.N_KINDS + 8)]


def write_names(folder: Path) -> None:
    """folder/names.yaml: the class names in tile-id order (for scripts/evaluate_detector.py)."""
    (Path(folder) / "names.yaml").write_text("names: [" + ", ".join(tile_names()) + "]\n")


def write_crop_labels(folder: Path, rows) -> None:
    """A plain crop folder's labels.csv from (image, tile id, name) rows."""
    with open(Path(folder) / "labels.csv", "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["image", "tile", "name"])
        w.writerows(rows)


def read_crop_labels(folder: Path) -> list[tuple[Path, int]]:
    """(image path, tile id) of each row of a plain crop folder's labels.csv."""
    folder = Path(folder)
    with open(folder / "labels.csv", encoding="utf-8") as f:
        return [(folder / "images" / r["image"], int(r["tile"])) for r in csv.DictReader(f)]
