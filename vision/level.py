"""Photos whose tiles lie at an angle: how far the tiles' edges are turned from the image's axes, and the photo
turned back so that the locator sees them level.

The locator draws boxes along the image's axes. A row of tiles turned 30-45 degrees gives boxes that overlap
their neighbours' so much that non-maximum suppression drops them, and the crops hold parts of two tiles: on the
held-out set photos turned 35 degrees a third of the tiles were found (scripts/bench_phone_faults.py). Tiles are
rectangles, so the edges of a hand laid in rows agree on one direction modulo 90 degrees; ``tilt`` finds it from
the image's gradients, ``turn`` turns the photo by it and ``boxes_back`` maps the boxes found there back.
numpy and OpenCV only.
"""
from __future__ import annotations

from typing import Optional

import cv2
import numpy as np

TILT_SIDE = 320             # the gradients are measured on the image scaled to this longer side
TILT_MIN = 10.0             # degrees: a smaller tilt is left as it is (the locator reads it)
TILT_AGREE = 2.0            # the direction's weight over the mean of all directions: the edges agree on it
EDGE_SHARE = 0.10           # the strongest this share of the gradients vote
LEVEL_MARGIN = 2.0          # a photo turned level is read in the box around its tiles grown by this many tiles
TILE_EDGE_SHARE = 0.20      # edge_angle: the strongest this share of a tile box's gradients vote
EDGE_AGREE = 0.25           # edge_angle: their vectors (angle x 4) must sum to this share of their length
DOMINANT_MIN = 5            # densest_direction(dominant=): the fewest directions a dominant window holds
TURNED_MIN = 5              # off_densest: the fewest known edge directions that can show tiles turned apart
HAND_DOMINANT = 1.5         # a photo of a hand: the fullest window is its direction with this many times the weight
                            # of any window apart from it (densest_direction(dominant=); the layout and the view guess)


def tilt(img: np.ndarray) -> float:
    """The angle in degrees, in [-45, 45), by which to turn the image (counter-clockwise, as
    cv2.getRotationMatrix2D turns) so that its strongest edges lie along its axes; 0.0 when the edges agree on
    no direction or lie within TILT_MIN of the axes."""
    h, w = img.shape[:2]
    s = min(1.0, TILT_SIDE / max(h, w))
    small = cv2.resize(img, (max(1, int(w * s)), max(1, int(h * s))), interpolation=cv2.INTER_AREA) if s < 1 else img
    g = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY).astype(np.float32)
    gx, gy = cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3)
    mag = np.hypot(gx, gy)
    strong = mag > np.quantile(mag, 1 - EDGE_SHARE)
    if strong.sum() < 100:
        return 0.0
    direction = np.degrees(np.arctan2(gy[strong], gx[strong])) % 90          # an edge's normal, modulo 90
    hist = np.bincount(direction.astype(int) % 90, weights=mag[strong], minlength=90)
    smooth = np.convolve(np.r_[hist[-2:], hist, hist[:2]], [1, 2, 3, 2, 1], "valid")    # wraps around 90
    i = int(smooth.argmax())
    if smooth[i] < TILT_AGREE * smooth.mean():
        return 0.0
    near = np.abs((direction - (i + 0.5) + 45) % 90 - 45) <= 6          # the peak's edges, refined by their
    v = (mag[strong][near] * np.exp(4j * np.radians(direction[near]))).sum()   # mean direction (modulo 90)
    deg = float(np.degrees(np.angle(v)) / 4)
    deg = (deg + 45) % 90 - 45                                               # in [-45, 45)
    return deg if abs(deg) >= TILT_MIN else 0.0


def off_by(angles, ref: float) -> np.ndarray:
    """How far edge directions (degrees) lie from ref, modulo 90 degrees: 0-45."""
    return np.abs((np.asarray(angles, float) - ref + 45) % 90 - 45)


def densest_direction(angles, window: float, weights=None, dominant: float = 0.0) -> Optional[float]:
    """The direction (modulo 90 degrees) most of the edge directions given agree on: the mean of the fullest window
    of ``window`` degrees among them, when it holds more than half of them; None otherwise. weights: each
    direction's weight (a detection's confidence, say: a weak box may be no tile), else one each. dominant: also
    the fullest window holding DOMINANT_MIN directions or more and ``dominant`` times the weight of any window
    apart from it (loose tiles that outnumber a hand's lie every way; the hand's agree). A hand, its melds and
    its flowers lie along one direction; loose tiles pushed aside lie every way."""
    a = np.asarray(angles, float)
    wt = np.ones(len(a)) if weights is None else np.asarray(weights, float)
    best, ref = -1.0, 0.0
    for x in a:                              # the window centred on each direction; the fullest one
        near = off_by(a, x) <= window / 2
        if wt[near].sum() > best:
            v = (wt[near] * np.exp(4j * np.radians(a[near]))).sum()
            best, ref = float(wt[near].sum()), float(np.degrees(np.angle(v)) / 4)
    if best * 2 > wt.sum():
        return ref
    if dominant and int((off_by(a, ref) <= window / 2).sum()) >= DOMINANT_MIN:
        apart = a[off_by(a, ref) > window]
        second = max((float(wt[off_by(a, x) <= window / 2].sum()) for x in apart), default=0.0)
        if best >= dominant * second:
            return ref
    return None


def off_densest(angles, window: float, weights=None, dominant: float = 0.0) -> Optional[np.ndarray]:
    """How far each edge direction (None: unknown, 0) lies from the densest direction of the known ones
    (densest_direction, its weights and dominant; at least TURNED_MIN known); None without such a direction. A
    tile more than ``window`` from it lies turned from the hand's tiles: a loose tile pushed aside."""
    known = [n for n, a in enumerate(angles) if a is not None]
    if len(known) < TURNED_MIN:
        return None
    a = [angles[n] for n in known]
    ref = densest_direction(a, window, None if weights is None else [weights[n] for n in known], dominant)
    if ref is None:
        return None
    off = np.zeros(len(angles))
    off[known] = off_by(a, ref)
    return off


def edge_angle(img: np.ndarray, box) -> Optional[float]:
    """The direction, in degrees in [-45, 45) modulo 90, that the strongest edges inside a tile's box agree on
    (the tile's outline and the strokes of its face run along its own axes); None when the box holds too few
    edges or they agree on no direction (EDGE_AGREE). Tiles lying in a row share it; a tile pushed aside at an
    angle does not (layout.phone sets such tiles apart)."""
    h, w = img.shape[:2]
    x1, y1, x2, y2 = (int(round(v)) for v in box)
    x1, y1, x2, y2 = max(x1, 0), max(y1, 0), min(x2, w), min(y2, h)
    if x2 - x1 < 8 or y2 - y1 < 8:
        return None
    g = cv2.cvtColor(img[y1:y2, x1:x2], cv2.COLOR_BGR2GRAY).astype(np.float32)
    gx, gy = cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3)
    mag = np.hypot(gx, gy)
    k = int(mag.size * (1 - TILE_EDGE_SHARE))
    strong = mag > np.partition(mag.ravel(), k)[k]
    if strong.sum() < 20:
        return None
    m = mag[strong]
    v = (m * np.exp(4j * np.arctan2(gy[strong], gx[strong]))).sum()    # modulo 90: four times the angle
    if abs(v) < EDGE_AGREE * m.sum():
        return None
    return float((np.degrees(np.angle(v)) / 4 + 45) % 90 - 45)


def turn(img: np.ndarray, deg: float) -> tuple[np.ndarray, np.ndarray]:
    """The image turned by deg (counter-clockwise) on a canvas that holds all of it, the corners filled with its
    mean colour (not mirrored: a mirror would show tiles twice); and the 2x3 matrix from the image's pixels to
    the canvas's."""
    h, w = img.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), deg, 1.0)
    c, s = abs(m[0, 0]), abs(m[0, 1])
    nw, nh = int(np.ceil(h * s + w * c)), int(np.ceil(h * c + w * s))
    m[0, 2] += nw / 2 - w / 2
    m[1, 2] += nh / 2 - h / 2
    fill = tuple(float(v) for v in img.reshape(-1, 3).mean(0))
    return cv2.warpAffine(img, m, (nw, nh), borderMode=cv2.BORDER_CONSTANT, borderValue=fill), m


def turn_boxes(boxes: np.ndarray, m: np.ndarray) -> np.ndarray:
    """(N,4) boxes mapped by the 2x3 matrix m: the axis-aligned box around each mapped box."""
    b = np.asarray(boxes, np.float64).reshape(-1, 4)
    corners = np.stack([np.c_[b[:, [x, y]], np.ones(len(b))] @ np.asarray(m, np.float64).T
                        for x, y in ((0, 1), (2, 1), (2, 3), (0, 3))], 1)           # (N, 4 corners, 2)
    return np.c_[corners.min(1), corners.max(1)]


def boxes_back(boxes: np.ndarray, m: np.ndarray, shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Boxes found on the turned canvas, in the original image's pixels (the box around each), and which of them
    have their centre inside the original image (the rest lie in the filled corners)."""
    back = turn_boxes(boxes, cv2.invertAffineTransform(np.asarray(m, np.float64)))
    cx, cy = (back[:, 0] + back[:, 2]) / 2, (back[:, 1] + back[:, 3]) / 2
    inside = (cx >= 0) & (cy >= 0) & (cx < shape[1]) & (cy < shape[0])
    return back, inside


def around_tiles(boxes: np.ndarray, shape: tuple[int, ...]) -> tuple[int, int, int, int]:
    """The part of a photo turned level (level.turn) to read again: the box around the tiles found before the turn
    (``boxes``, mapped onto the turned canvas), grown by LEVEL_MARGIN of their median size, the longer side, on each
    side; the whole canvas when fewer than 3 were found. The canvas holds the photo turned, so its tiles would
    reach the locator smaller than they were."""
    h, w = shape[:2]
    if len(boxes) < 3:
        return 0, 0, w, h
    pad = LEVEL_MARGIN * float(np.median(np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])))
    x0, y0 = np.maximum(0, boxes[:, :2].min(0) - pad).astype(int)
    x1, y1 = np.minimum([w, h], np.ceil(boxes[:, 2:].max(0) + pad)).astype(int)
    return int(x0), int(y0), int(x1), int(y1)
