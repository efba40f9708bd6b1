"""Decoding a YOLO locator's output (ultralytics yolo11, exported to ONNX) into boxes, with numpy and OpenCV:
non-maximum suppression, box voting, the head's anchors and distribution-focal boxes. No model is run here.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Optional

import cv2
import numpy as np

from mjtable.errors import ModelError  # noqa: F401  (raised here, imported from here by the detector)

from .metrics import box_iou

BOX_VOTE = 0.7            # a kept box is the score-weighted mean of the boxes overlapping it this much
YOLO_STRIDES = (8, 16, 32)  # the YOLO head's grid strides (yolo11)


def nms(boxes: np.ndarray, scores: np.ndarray, iou: float) -> np.ndarray:
    """Greedy non-maximum suppression (OpenCV's); returns kept indices by descending score."""
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    if not len(boxes):
        return np.zeros(0, np.int64)
    xywh = np.concatenate([boxes[:, :2], boxes[:, 2:] - boxes[:, :2]], 1)
    return np.array(cv2.dnn.NMSBoxes(xywh, np.asarray(scores, np.float32), 0.0, iou), np.int64).reshape(-1)


def vote_boxes(boxes: np.ndarray, scores: np.ndarray, keep: np.ndarray, vote: float) -> np.ndarray:
    """Each kept box as the score-weighted mean of all the boxes overlapping it by at least ``vote`` IoU (itself
    included). The locator places a tile's edges from several anchors, each a little off; their mean is tighter
    than the best-scoring box alone (synthetic test mAP50-95 0.872 -> 0.879, real held-out 0.860 -> 0.865).
    A box overlapping another by IoU > 0.5 has its centre inside it (else at most half of it would be shared),
    so for vote > 0.5 only the pairs of a kept box and a box centred inside it are measured (an overhead frame:
    7,000 of 170,000 pairs, a tenth of the time); the result is the same."""
    boxes = np.asarray(boxes, np.float64)
    w = np.asarray(scores, np.float64)
    kb = boxes[keep]
    if vote <= 0.5 or not len(kb):
        wt = np.where(box_iou(kb, boxes) >= vote, w[None], 0.0)
        return (wt @ boxes) / wt.sum(1, keepdims=True)
    c = (boxes[:, :2] + boxes[:, 2:]) / 2
    order = np.argsort(c[:, 0], kind="stable")
    cx = c[order, 0]
    lo, hi = np.searchsorted(cx, kb[:, 0], "left"), np.searchsorted(cx, kb[:, 2], "right")
    n = hi - lo
    k = np.repeat(np.arange(len(kb)), n)                                   # pairs: kept box k, box j ...
    j = order[np.arange(n.sum()) - np.repeat(np.cumsum(n) - n, n) + np.repeat(lo, n)]
    inside = (c[j, 1] >= kb[k, 1]) & (c[j, 1] <= kb[k, 3])                 # ... centred inside it
    k, j = k[inside], j[inside]
    a, b = kb[k], boxes[j]
    iw = np.maximum(np.minimum(a[:, 2], b[:, 2]) - np.maximum(a[:, 0], b[:, 0]), 0)
    ih = np.maximum(np.minimum(a[:, 3], b[:, 3]) - np.maximum(a[:, 1], b[:, 1]), 0)
    inter = iw * ih
    union = ((a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1]) + (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1]) - inter)
    ok = inter >= vote * union                                              # IoU >= vote
    k, j = k[ok], j[ok]
    total = np.bincount(k, w[j], len(kb))
    return np.stack([np.bincount(k, w[j] * boxes[j, i], len(kb)) for i in range(4)], 1) / total[:, None]


def _select(xywh: np.ndarray, cls_scores: np.ndarray, iou: float, max_det: int, vote: Optional[float]):
    """Candidates (centre-size boxes in letterbox pixels, every class's score) over the threshold -> boxes
    (xyxy), scores, classes and class scores of the boxes kept by class-agnostic NMS (and voted, see vote_boxes)."""
    cls = cls_scores.argmax(1)
    score = cls_scores[np.arange(len(cls)), cls]
    xy, wh = xywh[:, :2], xywh[:, 2:4]
    boxes = np.concatenate([xy - wh / 2, xy + wh / 2], 1)
    keep = nms(boxes, score, iou)[:max_det]
    kept = boxes[keep] if vote is None else vote_boxes(boxes, score, keep, vote)
    return kept, score[keep], cls[keep], cls_scores[keep]


def decode_yolo(out: np.ndarray, conf: float, iou: float, max_det: int = 400, vote: Optional[float] = BOX_VOTE):
    """ultralytics (1, 4+nc, N) output -> boxes (xyxy, letterbox pixels), scores, classes (class-agnostic NMS)
    and every class's score of the kept boxes (N, nc). vote: see vote_boxes (None: the kept boxes as they are)."""
    p = out[0]
    m = p[4:].max(0) >= conf
    return _select(p[:4, m].T, p[4:, m].T, iou, max_det, vote)


@lru_cache(maxsize=8)
def yolo_anchors(size: int, strides: tuple[int, ...] = YOLO_STRIDES) -> tuple[np.ndarray, np.ndarray]:
    """A size x size input's anchor points (N, 2: x, y in grid cells, cell centres) and their strides (N,), in
    the order of the YOLO head's outputs: each stride's grid row by row (ultralytics make_anchors)."""
    pts, st = [], []
    for s in strides:
        n = size // s
        y, x = np.mgrid[0:n, 0:n] + 0.5
        pts.append(np.stack([x.ravel(), y.ravel()], 1))
        st.append(np.full(n * n, s, np.float64))
    return np.concatenate(pts), np.concatenate(st)


def dfl_boxes(dist: np.ndarray, anchors: np.ndarray, strides: np.ndarray) -> np.ndarray:
    """The YOLO head's box distributions (k, 4*R: left, top, right, bottom distances, R bins each, logits) ->
    centre-size boxes (k, 4) in input pixels: each distance is its softmax's expected bin (ultralytics DFL and
    dist2bbox)."""
    d = dist.reshape(len(dist), 4, dist.shape[1] // 4).astype(np.float64)
    e = np.exp(d - d.max(2, keepdims=True))
    dist = (e * np.arange(d.shape[2])).sum(2) / e.sum(2)                 # (k, 4)
    x1y1, x2y2 = anchors - dist[:, :2], anchors + dist[:, 2:]
    return np.concatenate([(x1y1 + x2y2) / 2, x2y2 - x1y1], 1) * strides[:, None]


def yolo_output(dist: np.ndarray, logits: np.ndarray, size: int) -> np.ndarray:
    """A split-head locator's outputs -> the whole ultralytics output (1, 4+nc, N) (boxes of every anchor,
    class sigmoids), as the exported model before splitting gave it."""
    anchors, strides = yolo_anchors(int(size))
    boxes = dfl_boxes(dist[0].T, anchors, strides)
    return np.concatenate([boxes.T, _sigmoid(logits[0])])[None].astype(np.float32)


def decode_raw(dist: np.ndarray, logits: np.ndarray, size: int, conf: float, iou: float, max_det: int = 400,
               vote: Optional[float] = BOX_VOTE):
    """A split-head locator's outputs (scripts/runtime_graph.py): box distributions (1, 4*R, N) and class
    logits (1, nc, N) of a size x size input -> as decode_yolo. Only the anchors whose best class reaches conf
    get their boxes worked out (the whole head's softmax took a sixth of an overhead locator pass)."""
    lg = logits[0]
    m = np.flatnonzero(lg.max(0) >= np.log(conf / (1 - conf)))          # sigmoid(logit) >= conf
    anchors, strides = yolo_anchors(int(size))
    if len(anchors) != lg.shape[1]:
        raise ModelError(f"locator output has {lg.shape[1]} anchors, a {size} px input has {len(anchors)}")
    return _select(dfl_boxes(dist[0][:, m].T, anchors[m], strides[m]), _sigmoid(lg[:, m].T), iou, max_det, vote)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-x.astype(np.float64)))
