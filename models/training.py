"""What the training scripts share (scripts/train_classifier.py, train_refiner.py, train_detector.py,
onnx_to_pt.py): the crop classifier's training crops, direction labels and kind weights, the box refiner's
targets and flips, the locator's data sources, offline ultralytics, and the torch building blocks of the crop
networks. Torch, ultralytics and matplotlib (the train extra) are imported only where they are used.

Classifier crops come from YOLO folders (boxes jittered like a detector's, turned to portrait exactly as the
runtime does, mjtable.vision.crops.crop_tile; a synthetic folder's angles/*.txt give the direction of each tile's
top) or from plain crop folders (labels.csv: each single-tile picture pasted at a random size on a random plain
background, a quarter of them lying sideways, and cut out with a jittered box; their direction is not known).
"""
from __future__ import annotations

import os
import random
import shutil
from multiprocessing import Pool
from pathlib import Path

import cv2
import numpy as np

from mjtable.scoring import tiles as T
from mjtable.vision.crops import REFINE_SCALE, crop_tile
from mjtable.vision.labels import read_crop_labels

# ---------------------------------------------------------------- the crop classifier

def direction_label(angle: float, rotated: bool) -> int:
    """Where the tile's top points in the crop after the runtime's portrait turn (90 deg clockwise when
    rotated): 0 up, 1 left, 2 down, 3 right. ``angle``: image angle of the tile's up axis (0 up, 90 left)."""
    a = (angle - 90.0) % 360 if rotated else angle % 360
    return int(round(a / 90.0)) % 4


def _crops_of(args):
    img_path, per_image, jitter, seed, repeats, side_repeat = args
    rng = random.Random(seed)
    img = cv2.imread(str(img_path))
    if img is None:
        return [], [], []
    h, w = img.shape[:2]
    lab = img_path.parent.parent / "labels" / (img_path.stem + ".txt")
    ang = img_path.parent.parent / "angles" / (img_path.stem + ".txt")
    rows = [ln.split() for ln in lab.read_text().splitlines() if ln.strip()] if lab.exists() else []
    angles = [float(x) for x in ang.read_text().split()] if ang.exists() else None
    idx = list(range(len(rows)))
    rng.shuffle(idx)
    crops, kinds, ud = [], [], []
    # tiles lying across the image (claimed tiles of melds, stacked added-kong tiles) are rarer and harder:
    # side_repeat crops of each of them
    todo = [i for _ in range(repeats) for i in idx[:per_image]]
    todo += [i for i in idx[:per_image] for _ in range(side_repeat - 1)
             if float(rows[i][3]) * w > float(rows[i][4]) * h]
    for i in todo:
        c, cx, cy, bw, bh = int(rows[i][0]), *map(float, rows[i][1:5])
        bw, bh = bw * w, bh * h
        j = [rng.uniform(-jitter, jitter) for _ in range(4)]
        box = (cx * w - bw / 2 + j[0] * bw, cy * h - bh / 2 + j[1] * bh,
               cx * w + bw / 2 + j[2] * bw, cy * h + bh / 2 + j[3] * bh)
        crop, rot = crop_tile(img, box)
        crops.append(crop)
        kinds.append(c)
        ud.append(-1 if (angles is None or c == T.BACK) else direction_label(angles[i], rot))
    return crops, kinds, ud


def on_background(tile: np.ndarray, rng: random.Random) -> tuple[np.ndarray, tuple[float, float, float, float]]:
    """A single-tile picture scaled to a random height, maybe turned sideways (a quarter of the time), pasted
    in the middle of a random plain background with a margin of about a tile; (image, the tile's box)."""
    if rng.random() < 0.25:
        tile = cv2.rotate(tile, rng.choice([cv2.ROTATE_90_CLOCKWISE, cv2.ROTATE_90_COUNTERCLOCKWISE]))
    h, w = tile.shape[:2]
    s = rng.uniform(36, 110) / max(h, w) if w > h else rng.uniform(36, 110) / h
    th, tw = max(2, round(h * s)), max(2, round(w * s))
    tile = cv2.resize(tile, (tw, th), interpolation=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR)
    mx, my = max(tw, th) // 2 + 2, max(tw, th) // 2 + 2
    colour = [rng.randint(0, 255) for _ in range(3)]
    canvas = np.empty((th + 2 * my, tw + 2 * mx, 3), np.uint8)
    canvas[:] = colour
    canvas[my:my + th, mx:mx + tw] = tile
    return canvas, (mx, my, mx + tw, my + th)


def _crops_of_picture(args):
    """Crops of one single-tile picture of a plain crop folder (see the module's description)."""
    img_path, kind, n, jitter, seed = args
    rng = random.Random(seed)
    tile = cv2.imread(str(img_path))
    if tile is None:
        return [], [], []
    crops = []
    for _ in range(n):
        img, (x1, y1, x2, y2) = on_background(tile, rng)
        bw, bh = x2 - x1, y2 - y1
        j = [rng.uniform(-jitter, jitter) for _ in range(4)]
        crops.append(crop_tile(img, (x1 + j[0] * bw, y1 + j[1] * bh, x2 + j[2] * bw, y2 + j[3] * bh))[0])
    return crops, [kind] * n, [-1] * n


def _job(args):
    return _crops_of_picture(args[1:]) if args[0] == "picture" else _crops_of(args[1:])


def classifier_crops(dirs: list[tuple[Path, int, int, str]], jitter: float, seed: int, workers: int = 2,
                     side_repeat: int = 1):
    """dirs: (YOLO dir or plain crop folder, crops per image, repeats, file glob). Returns uint8 crops
    (N,64,64,3), kinds, updown (-1 = unknown)."""
    jobs = []
    for d, per_image, repeats, pattern in dirs:
        if (d / "labels.csv").exists():
            for k, (p, kind) in enumerate(read_crop_labels(d)):
                if p.match(pattern + ".*"):
                    jobs.append(("picture", p, kind, per_image * repeats, jitter,
                                 seed * 1000003 + k + sum(map(ord, d.name))))
            continue
        for k, p in enumerate(sorted((d / "images").glob(pattern + ".jpg"))):
            jobs.append(("yolo", p, per_image, jitter, seed * 1000003 + k + hash(d.name) % 1000, repeats, side_repeat))
    crops, kinds, ud = [], [], []
    with Pool(workers) as pool:
        for c, k, u in pool.imap(_job, jobs, chunksize=16):
            crops += c
            kinds += k
            ud += u
    return np.stack(crops), np.array(kinds, np.int64), np.array(ud, np.int64)


def low_resolution(crops: np.ndarray, p, rng: np.random.Generator, short=(7, 24), quality=(30, 85)):
    """Some crops (each with probability p, one for all or one per crop) as a small, compressed face would give
    them: the 64x64 portrait crop shrunk to a tile of `short` px across (its height 4/3 of that), blurred a third
    of the time, JPEG-compressed more than half of the time at a random quality in `quality`, and enlarged back as
    the runtime enlarges a small box (vision.crops.crop_tile). Crops of large real tiles so teach the classifier
    the faces of a whole table photographed from a seat."""
    out = crops.copy()
    for i in np.flatnonzero(rng.random(len(crops)) < p):
        w = int(rng.integers(short[0], short[1] + 1))
        small = cv2.resize(crops[i], (w, round(w * 4 / 3)), interpolation=cv2.INTER_AREA)
        if rng.random() < 0.33:
            small = cv2.GaussianBlur(small, (0, 0), float(rng.uniform(0.4, 1.0)))
        if rng.random() < 0.6:
            ok, buf = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(*quality))])
            small = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else small
        out[i] = cv2.resize(small, crops.shape[2:0:-1], interpolation=cv2.INTER_LINEAR)
    return out


def kind_weights(spec: str):
    """'0-8:3,34-41:2' -> per-kind sampling weights (43,), others 1; '' -> None (plain shuffling)."""
    if not spec:
        return None
    w = np.ones(T.N_CLASSES, np.float64)
    for part in spec.split(","):
        kinds, _, value = part.partition(":")
        lo, _, hi = kinds.partition("-")
        w[int(lo):int(hi or lo) + 1] = float(value)
    return w


def conv_block(i: int, o: int, s: int = 1) -> list:
    """3x3 convolution (no bias, stride s), batch norm, ReLU: the layers of the crop networks (classifier and
    box refiner), as a list to unpack into nn.Sequential."""
    import torch.nn as nn
    return [nn.Conv2d(i, o, 3, s, 1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True)]


def resume(ckpt: Path, model, opt) -> dict:
    """Model and optimizer state from a checkpoint train_classifier.py or train_refiner.py saved; returns its
    training state (epoch, elapsed seconds ...)."""
    import torch
    c = torch.load(ckpt, weights_only=False, map_location="cpu")
    model.load_state_dict(c["model"])
    opt.load_state_dict(c["opt"])
    print(f"resumed at epoch {c['state']['epoch']} ({c['state']['elapsed'] / 60:.1f} min trained)")
    return c["state"]


# ---------------------------------------------------------------- the box refiner

JITTER = 0.02         # an edge's random move, as a fraction of the box's width or height (normal sigma; the
JITTER_WIDE = 0.06    # locators' boxes are off by ~2%) ... and for a quarter of the boxes


def jitter_boxes(boxes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Each edge moved at random (normal, JITTER of the box's size; a quarter of the boxes JITTER_WIDE), as a
    locator's boxes are off."""
    wh = boxes[:, 2:] - boxes[:, :2]
    sigma = np.where(rng.random(len(boxes)) < 0.25, JITTER_WIDE, JITTER)[:, None]
    move = np.clip(rng.normal(0, 1, (len(boxes), 4)), -3, 3) * sigma * np.concatenate([wh, wh], 1)
    return boxes + move


def refiner_targets(truth: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """The refiner's outputs that move boxes onto truth (the inverse of mjtable.vision.crops.move_edges)."""
    wh = boxes[:, 2:] - boxes[:, :2]
    return ((truth - boxes) / np.concatenate([wh, wh], 1) / REFINE_SCALE).astype(np.float32)


def refiner_augment(x, t, gen):
    """The refiner's training batch augmented: x uint8 NHWC tensor, t (N,4). Flips (targets follow), gain, colour
    cast, noise."""
    import torch
    n = x.shape[0]
    x = x.float()
    hf = torch.rand(n, generator=gen) < 0.5
    x = torch.where(hf[:, None, None, None], torch.flip(x, dims=(2,)), x)
    t = torch.where(hf[:, None], torch.stack([-t[:, 2], t[:, 1], -t[:, 0], t[:, 3]], 1), t)
    vf = torch.rand(n, generator=gen) < 0.5
    x = torch.where(vf[:, None, None, None], torch.flip(x, dims=(1,)), x)
    t = torch.where(vf[:, None], torch.stack([t[:, 0], -t[:, 3], t[:, 2], -t[:, 1]], 1), t)
    gain = 0.7 + 0.6 * torch.rand(n, 1, 1, 1, generator=gen)
    cast = 0.9 + 0.2 * torch.rand(n, 1, 1, 3, generator=gen)
    x = x * gain * cast + 4 * torch.rand(n, 1, 1, 1, generator=gen) * torch.randn(x.shape, generator=gen)
    return x.clamp(0, 255), t


# ---------------------------------------------------------------- the locator

def offline_ultralytics(cfg: Path):
    """Configure ultralytics so that it never downloads or phones home, its settings and font in ``cfg`` (a
    folder of the checkout, .yolo); returns the module."""
    cfg.mkdir(exist_ok=True)
    os.environ["YOLO_OFFLINE"] = "1"
    os.environ["YOLO_AUTOINSTALL"] = "0"
    os.environ["YOLO_CONFIG_DIR"] = str(cfg)
    font = cfg / "Arial.ttf"
    if not font.exists():
        import matplotlib
        src = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
        shutil.copy(src, font)
    import ultralytics
    from ultralytics import settings
    settings.update({"sync": False})
    return ultralytics


def resolve_sources(base: Path, specs: list[str], list_dir: Path, tag: str) -> list[str]:
    """'synth/train' -> its images dir; 'synth/train:phone_*' -> a txt list of the matching images;
    '@lists/x.txt' -> that list of image paths as it is (relative to the data dir)."""
    out = []
    for i, spec in enumerate(specs):
        if spec.startswith("@"):
            out.append(str(base.parent / spec[1:]))       # an absolute path stays as it is
            continue
        d, _, pattern = spec.partition(":")
        images = base / d / "images"
        if not pattern:
            out.append(str(images))
            continue
        files = sorted(str(images / p.name) for p in images.glob(pattern + ".jpg"))
        list_dir.mkdir(parents=True, exist_ok=True)
        lst = list_dir / f"{tag}_{i}.txt"
        lst.write_text("\n".join(files) + "\n")
        out.append(str(lst))
    return out
