"""Where a detector's box error lies, and what per-edge precision a mAP50-95 figure asks for
(scripts/box_precision.py prints the figures).

A frame holds a split's labels and the detections of one image; a detection matches the label it overlaps most,
at IoU > 0.5. An edge is covered when another tile's label reaches over it (a tile's body runs under its
neighbour there). The corrections below (each frame's mean shift removed, covered edges set to their labels, a
row's or a group's shared error removed) use the labels: they are bounds, not methods; the row fit uses the
detections alone.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Optional

import numpy as np

from mjtable.scoring import tiles as T

from .metrics import DetectionEvaluator, box_iou

SIGMAS = (0.2, 0.3, 0.4, 0.5)
EDGES = "left top right bottom".split()


@dataclass
class Frame:
    name: str
    view: str                  # the file name's first word: phone, overhead, ...
    labels: np.ndarray         # (n, 4) x1 y1 x2 y2, px
    label_kinds: np.ndarray
    boxes: np.ndarray          # (m, 4) detected
    kinds: np.ndarray
    confidences: np.ndarray
    label_groups: Optional[list[str]] = None   # per label, "seat group" from the scene's gt/*.json when there is one

    @cached_property
    def match(self) -> tuple[np.ndarray, np.ndarray]:
        """(j, ok): for each detection, the label it overlaps most and whether that is by IoU > 0.5."""
        if not len(self.boxes) or not len(self.labels):
            return np.zeros(len(self.boxes), int), np.zeros(len(self.boxes), bool)
        iou = box_iou(self.boxes, self.labels)
        return iou.argmax(1), iou.max(1) > 0.5

    @cached_property
    def covered_edges(self) -> np.ndarray:
        """(n, 4) bool for the labels: another label reaches over this edge."""
        return covered(self.labels)


def overlap_depth(b: np.ndarray) -> np.ndarray:
    """(n, 4): how far the deepest neighbour reaches over each edge (left, top, right, bottom), px; negative when
    the nearest one stops short of it, -inf with no neighbour on that side. A neighbour overlaps the box by over
    30 % along the edge and has its centre beyond the box's centre on that side."""
    n = len(b)
    out = np.full((n, 4), -np.inf)
    if n < 2:
        return out
    cx, cy = (b[:, 0] + b[:, 2]) / 2, (b[:, 1] + b[:, 3]) / 2
    ovx = np.minimum(b[:, None, 2], b[None, :, 2]) - np.maximum(b[:, None, 0], b[None, :, 0])
    ovy = np.minimum(b[:, None, 3], b[None, :, 3]) - np.maximum(b[:, None, 1], b[None, :, 1])
    across_x = ovy > 0.3 * (b[:, 3] - b[:, 1])[:, None]     # j beside i (left or right)
    across_y = ovx > 0.3 * (b[:, 2] - b[:, 0])[:, None]     # j above or below i
    np.fill_diagonal(across_x, False)
    np.fill_diagonal(across_y, False)
    sides = ((across_x & (cx[None, :] < cx[:, None]), b[None, :, 2] - b[:, None, 0]),
             (across_y & (cy[None, :] < cy[:, None]), b[None, :, 3] - b[:, None, 1]),
             (across_x & (cx[None, :] > cx[:, None]), b[:, None, 2] - b[None, :, 0]),
             (across_y & (cy[None, :] > cy[:, None]), b[:, None, 3] - b[None, :, 1]))
    for k, (sel, depth) in enumerate(sides):
        out[:, k] = np.where(sel, depth, -np.inf).max(1)
    return out


def covered(labels: np.ndarray) -> np.ndarray:
    """(n, 4) bool: another label reaches over this edge."""
    return overlap_depth(labels) >= 0


def rows(boxes: np.ndarray, axis: int) -> list[list[int]]:
    """Rows of like-sized boxes along axis (0: left to right, 1: top to bottom), each box followed by the one that
    starts nearest its far edge (within a quarter of its size either way) and overlaps it by 75 % across."""
    n = len(boxes)
    a, c = axis, 1 - axis
    size_a = boxes[:, a + 2] - boxes[:, a]
    size_c = boxes[:, c + 2] - boxes[:, c]
    nxt, prv = -np.ones(n, int), -np.ones(n, int)
    for i in range(n):
        if size_a[i] <= 0 or size_c[i] <= 0:
            continue
        across = (np.minimum(boxes[:, c + 2], boxes[i, c + 2]) - np.maximum(boxes[:, c], boxes[i, c])) / size_c[i]
        gap = boxes[:, a] - boxes[i, a + 2]
        ok = ((across > 0.75) & (np.abs(gap) < 0.25 * size_a[i]) & (np.abs(size_a / size_a[i] - 1) < 0.12)
              & (np.abs(size_c / size_c[i] - 1) < 0.12))
        ok[i] = False
        if ok.any():
            j = int(np.flatnonzero(ok)[np.argmin(np.abs(gap[ok]))])
            if prv[j] < 0:
                nxt[i], prv[j] = j, i
    out = []
    for i in range(n):
        if prv[i] < 0 and nxt[i] >= 0:
            row = [i]
            while nxt[row[-1]] >= 0:
                row.append(int(nxt[row[-1]]))
            out.append(row)
    return out


def row_fit(boxes: np.ndarray, min_len: int = 4) -> np.ndarray:
    """Each edge of the boxes of a row (of min_len or more) set to a line through that edge over the row (least
    squares, then again without the points off it by over 3 median residuals)."""
    out = boxes.astype(float).copy()
    for axis in (0, 1):
        for row in rows(boxes, axis):
            if len(row) < min_len:
                continue
            idx = np.arange(len(row), dtype=float)
            for k in range(4):
                v = boxes[row, k]
                coef = np.polyfit(idx, v, 1)
                r = np.abs(v - np.polyval(coef, idx))
                keep = r <= max(3 * np.median(r), 0.5)
                if keep.sum() >= 3:
                    coef = np.polyfit(idx[keep], v[keep], 1)
                out[row, k] = np.polyval(coef, idx)
    return out


def rows_fitted_and_centred(frame: Frame, min_len: int = 4) -> np.ndarray:
    """row_fit, then each row's mean error on each edge (from the labels) removed: a bound for anything that reads
    a row as a whole, however well it knew the row's shared error."""
    j, ok = frame.match
    out = row_fit(frame.boxes, min_len)
    for axis in (0, 1):
        for row in rows(frame.boxes, axis):
            row = [i for i in row if ok[i]]
            if len(row) >= min_len:
                out[row] -= (out[row] - frame.labels[j[row]]).mean(0)
    return out


def noisy_labels(frame: Frame, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """The detections with each matched box replaced by its label moved by N(0, sigma) px on each edge."""
    j, ok = frame.match
    out = frame.boxes.astype(float).copy()
    out[ok] = frame.labels[j[ok]] + rng.normal(0.0, sigma, (int(ok.sum()), 4))
    return out


def without_frame_shift(frame: Frame) -> np.ndarray:
    j, ok = frame.match
    out = frame.boxes.astype(float).copy()
    if ok.any():
        out[ok] -= (out[ok] - frame.labels[j[ok]]).mean(0)
    return out


def covered_exact(frame: Frame) -> np.ndarray:
    j, ok = frame.match
    out = frame.boxes.astype(float).copy()
    cov = frame.covered_edges[j] & ok[:, None]
    out[cov] = frame.labels[j][cov]
    return out


def with_free_edge_errors(frames: list[Frame], rng: np.random.Generator):
    """boxes_of(frame): every matched box at its label plus, on each edge, an error drawn from the free edges'
    errors of that side over frames: the figure if every edge were located as well as free ones are now."""
    e, k = edge_errors(frames)["free"]
    pools = [e[k == i] if (k == i).any() else np.zeros(1) for i in range(4)]

    def boxes_of(frame: Frame) -> np.ndarray:
        j, ok = frame.match
        out = frame.boxes.astype(float).copy()
        for i in range(4):
            out[ok, i] = frame.labels[j[ok], i] + rng.choice(pools[i], int(ok.sum()))
        return out
    return boxes_of


def group_bias_removed(frame: Frame, min_tiles: int = 4) -> np.ndarray:
    """Each matched box minus the median error, on each edge, of the boxes of its seat's group (hand, wall, river,
    melds ...) whose edge is covered as its own is or not, where there are min_tiles such boxes or more (bound:
    what the tiles of a group share; a lone tile's own error is not a shared one). Frames without groups keep
    their boxes."""
    j, ok = frame.match
    out = frame.boxes.astype(float).copy()
    if frame.label_groups is None or not ok.any():
        return out
    groups = np.array(frame.label_groups)[j]
    cov = frame.covered_edges[j]
    err = out - frame.labels[j]
    for g in set(groups[ok]):
        for k in range(4):
            for c in (False, True):
                s = ok & (groups == g) & (cov[:, k] == c)
                if s.sum() >= min_tiles:
                    out[s, k] -= np.median(err[s, k])
    return out


def ranked_by_iou(frame: Frame) -> np.ndarray:
    """Confidences times IoU**16 with the label overlapped most: detections ranked by how well they fit (bound)."""
    if not len(frame.boxes) or not len(frame.labels):
        return frame.confidences
    return frame.confidences * box_iou(frame.boxes, frame.labels).max(1) ** 16


def map50_95(frames: list[Frame], boxes_of=None, confidences_of=None) -> float:
    ev = DetectionEvaluator(T.N_CLASSES)
    for f in frames:
        ev.add(f.labels, f.label_kinds, f.boxes if boxes_of is None else boxes_of(f), f.kinds,
               f.confidences if confidences_of is None else confidences_of(f))
    return ev.result().map50_95


def edge_errors(frames: list[Frame]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """{"free", "covered"}: (detected minus label in px, which edge 0-3) for the matched boxes' edges."""
    errs, cov, edge = [np.zeros((0, 4))], [np.zeros((0, 4), bool)], np.arange(4)
    for f in frames:
        j, ok = f.match
        errs.append(f.boxes[ok] - f.labels[j[ok]])
        cov.append(f.covered_edges[j[ok]])
    e, c = np.concatenate(errs), np.concatenate(cov)
    k = np.broadcast_to(edge, e.shape)
    return {"free": (e[~c], k[~c]), "covered": (e[c], k[c])}


def label_groups(gt_json: Path, labels: np.ndarray) -> Optional[list[str]]:
    """"seat group" of each label (a meld's number dropped), from the scene's ground truth: the object whose
    box is the label's. None without a ground-truth file."""
    if not gt_json.exists() or not len(labels):
        return None
    objs = json.loads(gt_json.read_text())["objects"]
    boxes = np.array([o["box"] for o in objs], float).reshape(-1, 4)
    if not len(boxes):
        return None
    nearest = box_iou(labels, boxes).argmax(1)
    return [f"{objs[i]['seat']} {objs[i]['group'].split(':')[0]}" for i in nearest]
