"""Reading a frame in overlapping slices at full resolution (SAHI-style), for tiles too small for one pass.

The locator sees a frame letterboxed to its input (480 px): on a 1280 px frame a 20 px tile shrinks to 7 px.
Sliced, the frame is cut into overlapping windows of ``size`` px (each letterboxed on its own) and the whole frame
is read once more (large tiles that no window holds whole). A box that touches a window's edge inside the frame is
a cut tile and is dropped: the overlap (a quarter of a window) lets a whole copy of it lie in a neighbouring
window. The boxes of all passes are merged by non-maximum suppression.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

OVERLAP = 0.25
EDGE = 2.0            # px: a box this close to a window's inner edge was cut by it


def windows(h: int, w: int, size: int, overlap: float = OVERLAP) -> list[tuple[int, int, int, int]]:
    """Windows (x1, y1, x2, y2) of at most size x size covering an h x w frame, overlapping by ``overlap``."""
    step = max(1, int(size * (1 - overlap)))

    def starts(n: int) -> list[int]:
        if n <= size:
            return [0]
        s = list(range(0, n - size + 1, step))
        return s + [n - size] if s[-1] + size < n else s
    return [(x, y, min(x + size, w), min(y + size, h)) for y in starts(h) for x in starts(w)]


def locate_sliced(locate_one: Callable, img: np.ndarray, size: int, iou: float, nms: Callable):
    """locate_one(image) -> (boxes, scores, classes, class scores) run on the whole frame and on each window;
    the same four arrays for the frame, merged."""
    h, w = img.shape[:2]
    parts = [locate_one(img)]
    for x1, y1, x2, y2 in windows(h, w, size):
        b, s, c, cs = locate_one(img[y1:y2, x1:x2])
        if len(b) == 0:
            continue
        b = b + np.array([x1, y1, x1, y1], b.dtype)
        cut = (((b[:, 0] <= x1 + EDGE) & (x1 > 0)) | ((b[:, 1] <= y1 + EDGE) & (y1 > 0))
               | ((b[:, 2] >= x2 - EDGE) & (x2 < w)) | ((b[:, 3] >= y2 - EDGE) & (y2 < h)))
        parts.append((b[~cut], s[~cut], c[~cut], cs[~cut]))
    boxes, scores, cls, cls_scores = (np.concatenate([p[i] for p in parts]) for i in range(4))
    if len(boxes) == 0:
        return boxes, scores, cls, cls_scores
    keep = nms(boxes, scores, iou)
    return boxes[keep], scores[keep], cls[keep], cls_scores[keep]
