"""A whole table read region by region: its rows of face-up tiles found at full resolution, each row rectified by
its own perspective into an upright strip of close-up-sized tiles, and read there by the close-up reader (the
general locator and classifier, which have seen real tile sets close up); the boxes go back to the frame.

A row is a chain of face-up boxes side by side (across the frame: the near hand, the rivers' rows, the far
seat's tiles; or up it: a side seat's tiles, for a box that has no neighbour across). Its homography sends the
trapezoid between the lines fitted through its boxes' near and far edges (left and right edges for a row up the
frame), lengthened by ALONG_MARGIN of a tile at each end and widened by CROSS_MARGIN of one on each side, to a
strip whose tiles measure TILE_PX across the row; the depth's squash is undone by stretching the strip across
the row until the median tile is ASPECT wide for its height (never squashed further). The strip is read in
windows of the general locator's input (vision.slicing), its face-up boxes classified on the strip by the general
classifier, and the row's own boxes that the strip's locator did not find again are read there too. Boxes go
back through the inverse homography (the box around the mapped corners). Tiles in no row of two or more are
read by the general classifier where they lie; face-down boxes keep the view's reading.

    TileDetector(DetectorConfig(regions=True)).detect(frame)      # whole tables (seat and overhead views) read so
"""
from __future__ import annotations

import cv2
import numpy as np
from mjtable.scoring import tiles as T

from .inference import input_px
from .perspective import apply_homography
from .yolo_decode import nms

TILE_PX = 40          # a tile's size across its row in the strip (the general locator likes 22-60 px at its input)
ASPECT = 0.75         # a tile's width over its height, lying flat and seen from above
ALONG_MARGIN = 0.6    # the strip runs this many tiles past the row's first and last box (a tile missed there)
CROSS_MARGIN = 0.3    # and this share of a tile beyond its sides
NEAR_ACROSS = 1.6     # boxes are neighbours in a row when their centres lie at most this many tiles apart along it
NEAR_CROSS = 0.5      # ... and this share of the smaller tile apart across it
SIZE_RATIO = 1.6      # ... and their sizes across the row differ by less than this factor
MIN_ROW = 2           # rows of fewer tiles are read where they lie
NEW_IOU = 0.3         # a strip's box overlapping none of its row's boxes by this IoU is a tile the view missed
CUT_EDGE = 1.0        # px: a strip box this close to the strip's sides is a cut tile of the next row
MAX_STRIP = 4096      # px: the longest strip made


def _union(n: int, pairs) -> np.ndarray:
    """Component labels (n,) of the graph on n nodes with edges ``pairs``."""
    parent = list(range(n))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i
    for i, j in pairs:
        parent[root(i)] = root(j)
    return np.array([root(i) for i in range(n)])


def _links(boxes: np.ndarray, across: bool) -> list[tuple[int, int]]:
    """Pairs of boxes that are neighbours in a row across the frame (or up it)."""
    b = boxes if across else boxes[:, [1, 0, 3, 2]]
    c = (b[:, :2] + b[:, 2:]) / 2
    along, cross = b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]
    du, dv = np.abs(c[:, None, 0] - c[None, :, 0]), np.abs(c[:, None, 1] - c[None, :, 1])
    big = np.maximum(cross[:, None], cross[None])
    small = np.maximum(np.minimum(cross[:, None], cross[None]), 1e-6)
    ok = (du <= NEAR_ACROSS * np.maximum(along[:, None], along[None])) & (dv <= NEAR_CROSS * small) \
        & (big / small < SIZE_RATIO)
    i, j = np.nonzero(np.triu(ok, 1))
    return list(zip(i.tolist(), j.tolist()))


def rows(boxes: np.ndarray) -> list[tuple[np.ndarray, bool]]:
    """The rows of boxes (N,4): (indices in order along the row, across) for each row, across = running across the
    frame. Rows across first; the boxes left alone by them are chained up the frame."""
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    out = []
    lab = _union(len(boxes), _links(boxes, True))
    alone = []
    for k in np.unique(lab):
        idx = np.flatnonzero(lab == k)
        (out.append((idx, True)) if len(idx) > 1 else alone.append(int(idx[0])))
    alone = np.array(alone, int)
    if len(alone):
        lab = _union(len(alone), _links(boxes[alone], False))
        out += [(alone[lab == k], False) for k in np.unique(lab)]
    return [(idx[np.argsort((boxes[idx, 0] + boxes[idx, 2]) if a else (boxes[idx, 1] + boxes[idx, 3]))], a)
            for idx, a in out]


def _swap() -> np.ndarray:
    return np.array([[0, 1, 0], [1, 0, 0], [0, 0, 1.0]])


def row_homography(boxes: np.ndarray, across: bool = True, tile_px: float = TILE_PX):
    """(H, (width, height)): the 3x3 map from the frame to an upright strip of the row's boxes (N,4, in order
    along the row) and the strip's size; for a row up the frame the strip stands upright (its tiles keep the
    frame's orientation)."""
    b = np.asarray(boxes, np.float64).reshape(-1, 4)
    if not across:
        H, (w, h) = row_homography(b[:, [1, 0, 3, 2]], True, tile_px)
        return _swap() @ H @ _swap(), (h, w)
    cx = (b[:, 0] + b[:, 2]) / 2
    along, cross = float(np.median(b[:, 2] - b[:, 0])), float(np.median(b[:, 3] - b[:, 1]))
    x0, x1 = b[:, 0].min() - ALONG_MARGIN * along, b[:, 2].max() + ALONG_MARGIN * along
    lines = [np.polyfit(cx, y, 1) if len(b) > 1 and np.ptp(cx) > 0 else np.array([0.0, y.mean()])
             for y in (b[:, 1], b[:, 3])]
    (top0, top1), (bot0, bot1) = [np.polyval(p, [x0, x1]) for p in lines]
    grow = CROSS_MARGIN * np.array([bot0 - top0, bot1 - top1])
    quad = np.array([[x0, top0 - grow[0]], [x1, top1 - grow[1]], [x1, bot1 + grow[1]], [x0, bot0 + grow[0]]])
    k_cross = tile_px / max(cross, 1e-6)
    k_along = tile_px * ASPECT / max(along, 1e-6) if along > ASPECT * cross else k_cross
    w = int(min(MAX_STRIP, max(2, round((x1 - x0) * k_along))))
    h = int(max(2, round(tile_px * (1 + 2 * CROSS_MARGIN))))
    dst = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
    return cv2.getPerspectiveTransform(quad.astype(np.float32), dst.astype(np.float32)).astype(np.float64), (w, h)


def map_boxes_by(H: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """Boxes (N,4) mapped by the homography H: the box around each box's four mapped corners."""
    b = np.asarray(boxes, np.float64).reshape(-1, 4)
    corners = b[:, [0, 1, 2, 1, 2, 3, 0, 3]].reshape(-1, 2)
    m = apply_homography(H, corners).reshape(-1, 4, 2)
    return np.column_stack([m[:, :, 0].min(1), m[:, :, 1].min(1), m[:, :, 0].max(1), m[:, :, 1].max(1)])


def rectify(img: np.ndarray, H: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """The strip of size (width, height) that H maps the frame to."""
    return cv2.warpPerspective(img, H, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def _cut(b: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """Which strip boxes touch the strip's sides or ends (a tile of the next row, or one cut by an end)."""
    w, h = size
    return (b[:, 0] <= CUT_EDGE) | (b[:, 1] <= CUT_EDGE) | (b[:, 2] >= w - CUT_EDGE) | (b[:, 3] >= h - CUT_EDGE)


def strip_boxes(det, strip: np.ndarray):
    """The general locator's whole face-up boxes in a strip, read in windows of its input: (boxes, scores,
    class scores)."""
    b, s, c, cs = det.locate(strip, slice_px=input_px(det.loc))
    keep = (c == 0) & ~_cut(b, (strip.shape[1], strip.shape[0]))
    return b[keep], s[keep], cs[keep]


def read_kinds_on(det, img: np.ndarray, boxes: np.ndarray):
    """Kind and orientation probabilities of face-up boxes in an image (a strip, or the frame) read as a close-up:
    the general classifier, in more looks when the detector takes them."""
    if not len(boxes):
        return np.zeros((0, T.N_CLASSES), np.float32), np.zeros((0, 3), np.float32)
    probs, orient = det.classify(img, boxes)
    if det.config.looks:
        probs = det.more_looks(img, boxes, probs)
    return probs, orient


def read_region(det, img: np.ndarray, boxes: np.ndarray, scores: np.ndarray, loc_scores: np.ndarray,
                across: bool, find: bool = True):
    """One row read in its strip: (frame boxes, scores, locator class scores, kind probabilities, orientation
    probabilities) of the row's own boxes (their frame boxes kept) and, when ``find``, of the tiles the general
    locator finds in the strip that no box of the row holds (NEW_IOU), their boxes mapped back to the frame."""
    H, size = row_homography(boxes, across)
    strip = rectify(img, H, size)
    own = map_boxes_by(H, boxes)
    sb, ss, scs = strip_boxes(det, strip) if find else (np.zeros((0, 4)), np.zeros(0), np.zeros((0, 2)))
    if len(sb):
        from .metrics import box_iou
        new = box_iou(sb, own).max(1) < NEW_IOU
        sb, ss, scs = sb[new], ss[new], scs[new]
    probs, orient = read_kinds_on(det, strip, np.concatenate([own, sb]))
    h, w = img.shape[:2]
    found = np.clip(map_boxes_by(np.linalg.inv(H), sb), 0, [w, h, w, h])
    return (np.concatenate([boxes, found]), np.concatenate([scores, ss]),
            np.concatenate([loc_scores, scs.astype(loc_scores.dtype)]), probs, orient)


def read_regions(det, img: np.ndarray, found, strips: bool = True, find: bool = True):
    """A whole table's locate() output read region by region: (boxes, scores, locator classes, locator class
    scores, kind probabilities, orientation probabilities) of every tile, after non-maximum suppression. Face-down
    boxes are backs as located; face-up boxes in rows of MIN_ROW or more are read in their rows' strips
    (read_region), the others by the general classifier where they lie (all of them so without ``strips``).
    find: the general locator looks for tiles the view missed in the strips."""
    boxes, scores, cls, cls_scores = found
    up = np.flatnonzero(cls != 1)
    parts, alone = [], []
    for row, across in rows(boxes[up]):
        ids = up[row]
        if not strips or len(ids) < MIN_ROW:
            alone += ids.tolist()
            continue
        parts.append(read_region(det, img, boxes[ids], scores[ids], cls_scores[ids], across, find))
    alone = np.array(alone, int)
    parts.append((boxes[alone], scores[alone], cls_scores[alone], *read_kinds_on(det, img, boxes[alone])))
    n_up = sum(len(p[0]) for p in parts)
    bk = np.flatnonzero(cls == 1)
    back_p = np.zeros((len(bk), T.N_CLASSES), np.float32)
    back_p[:, T.BACK] = 1.0
    parts.append((boxes[bk], scores[bk], cls_scores[bk], back_p, np.zeros((len(bk), 3), np.float32)))
    b, s, cs, p, o = (np.concatenate([q[i] for q in parts]) for i in range(5))
    c = np.r_[np.zeros(n_up, int), np.ones(len(bk), int)]
    keep = nms(b, s, det.config.iou) if len(b) else np.zeros(0, int)
    return b[keep], s[keep], c[keep], cs[keep], p[keep], o[keep]
