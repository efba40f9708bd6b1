"""Tile crops for the detector's small models: the classifier's 64x64 crop turned to portrait, the box refiner's
crop resampled with no rounding, and the boxes of further looks at a tile. numpy and OpenCV only."""
from __future__ import annotations

import cv2
import numpy as np

CROP = 64
CROP_PAD = 0.04
REFINE_SIZE = 24          # the box refiner's crop (its model's input size): the box and REFINE_MARGIN of its ...
REFINE_MARGIN = 0.25      # ... size on each side, resampled to a square (scripts/train_refiner.py)
REFINE_SCALE = 0.1        # the refiner's outputs are edge moves in units of this fraction of the box's size


def crop_tile(img: np.ndarray, box, pad: float = CROP_PAD) -> tuple[np.ndarray, bool]:
    """The tile under box as a CROP x CROP BGR image, turned to portrait (rotated 90 deg clockwise if the
    box is wider than tall). Returns (crop, rotated)."""
    h, w = img.shape[:2]
    x1, y1, x2, y2 = [float(v) for v in box]
    bw, bh = x2 - x1, y2 - y1
    # at least one pixel inside the image, however thin or far out the box (a box on the image's edge)
    x1, x2 = min(max(0, int(round(x1 - pad * bw))), w - 1), min(w, int(round(x2 + pad * bw)))
    y1, y2 = min(max(0, int(round(y1 - pad * bh))), h - 1), min(h, int(round(y2 + pad * bh)))
    c = img[y1:max(y2, y1 + 1), x1:max(x2, x1 + 1)]
    rotated = bw > bh
    if rotated:
        c = cv2.rotate(c, cv2.ROTATE_90_CLOCKWISE)
    interp = cv2.INTER_AREA if c.shape[0] > CROP else cv2.INTER_LINEAR
    return cv2.resize(c, (CROP, CROP), interpolation=interp), rotated


def refine_crops(img: np.ndarray, boxes: np.ndarray, size: int = REFINE_SIZE,
                 margin: float = REFINE_MARGIN) -> np.ndarray:
    """The box refiner's input: for each box, the box widened by margin of its width (height) on each side,
    resampled bilinearly to size x size with no rounding of the box (its position to a fraction of a pixel is
    what the refiner reads). Box coordinates are taken as OpenCV's (a pixel's centre at its integer index), as
    the scene generator writes them. Returns BGR uint8 (N, size, size, 3)."""
    b = np.asarray(boxes, np.float32).reshape(-1, 4)
    if len(b) == 0:
        return np.zeros((0, size, size, 3), np.uint8)
    wh = b[:, 2:] - b[:, :2]
    lo = b[:, :2] - margin * wh                          # (N, 2) the crop's top-left corner
    step = wh * (1 + 2 * margin) / size                  # (N, 2) image pixels per crop pixel
    t = np.arange(size, dtype=np.float32) + 0.5          # crop pixel centres
    xs = lo[:, 0:1] + t[None] * step[:, 0:1]             # (N, size)
    ys = lo[:, 1:2] + t[None] * step[:, 1:2]
    map_x = np.broadcast_to(xs[:, None, :], (len(b), size, size)).reshape(-1, size)
    map_y = np.broadcast_to(ys[:, :, None], (len(b), size, size)).reshape(-1, size)
    out = cv2.remap(img, np.ascontiguousarray(map_x), np.ascontiguousarray(map_y), cv2.INTER_LINEAR,
                    borderMode=cv2.BORDER_REPLICATE)
    return out.reshape(len(b), size, size, 3)


def move_edges(boxes: np.ndarray, moves: np.ndarray) -> np.ndarray:
    """Boxes (N,4) with their edges moved by the refiner's outputs (N,4: x1, y1, x2, y2 moves in REFINE_SCALE
    units of the box's width / height)."""
    wh = boxes[:, 2:] - boxes[:, :2]
    return boxes + moves.astype(boxes.dtype) * REFINE_SCALE * np.concatenate([wh, wh], 1)


def look_boxes(boxes: np.ndarray, looks) -> np.ndarray:
    """(len(looks), N, 4): the boxes (N,4) grown by g of their width / height on each side and moved by dx, dy
    of it, for each (g, dx, dy) of looks."""
    wh = np.concatenate([boxes[:, 2:] - boxes[:, :2]] * 2, 1)
    return np.stack([boxes + wh * np.array([dx - g, dy - g, dx + g, dy + g], np.float32) for g, dx, dy in looks])


def crops_to_tensor(crops: list[np.ndarray]) -> np.ndarray:
    """BGR uint8 crops (or images) of one size -> float32 NCHW RGB in 0..1 (the classifier's input)."""
    x = cv2.dnn.blobFromImages(crops, 1.0, swapRB=True)   # exact integers; dividing after (not scaling by
    x /= 255.0                                             # 1/255) gives the values training used, bit for bit
    return x


def image_orientation_probs(crop_dir: np.ndarray, rotated: np.ndarray) -> np.ndarray:
    """Crop direction probabilities (N,4: top points up, left, down, right in the crop; or N,2: up, down)
    -> image orientation probabilities (N,3: upright, sideways, upside down). A rotated crop was turned
    90 deg clockwise, so its 'up' is the image's 'left'."""
    if crop_dir.shape[1] == 2:
        crop_dir = np.stack([crop_dir[:, 0], 0 * crop_dir[:, 0], crop_dir[:, 1], 0 * crop_dir[:, 0]], 1)
    img_dir = np.where(rotated[:, None], np.roll(crop_dir, 1, axis=1), crop_dir)   # up->left, left->down ...
    return np.stack([img_dir[:, 0], img_dir[:, 1] + img_dir[:, 3], img_dir[:, 2]], 1)
