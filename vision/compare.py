"""A reading against its ground truth, as the benchmarks count it: what a seat, a hand, a score and the referee's
findings are compared by, which parts of a seat were read wrong, tiles matched by box, and how often the
doubtful tiles the output names catch a misread tile or a wrong hand.

Ground truth is duck-typed: a scene's objects have ``box`` and ``kind`` (mjtable.datasets.ground_truth), a seat is
a PlayerArea (mjtable.scoring.table).
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from mjtable.scoring import tiles as T

from .metrics import box_iou
from .types import DOUBT, doubt_level

if TYPE_CHECKING:
    from mjtable.scoring.table import PlayerArea

FIELDS = ("concealed", "melds", "winning tile", "flowers", "face-down in hand", "discards", "exposed")
LIMITS = (0.5, DOUBT, 0.7, 0.8, 0.9)     # doubt limits measured side by side (DOUBT: the output's own)


class FixedDetector:
    """A 'detector' that returns fixed detections (the ground-truth boxes as perfect detections)."""

    def __init__(self, dets):
        self.dets = dets

    def detect(self, img, kind="auto"):
        return list(self.dets)


def meld_key(m):
    mm = m.meld
    return (m.tiles, m.sideways, None if mm is None else (mm.kind, mm.tile, mm.concealed, mm.source))


def area_key(p: PlayerArea | None, overhead: bool):
    """A seat as compared: concealed tiles, melds with their tiles and sources, winning tile, flowers; on an
    overhead frame also how many lie face down in hand, the discards in order and the exposed tiles."""
    if p is None:
        return None
    k = (None if p.concealed is None else tuple(sorted(p.concealed)), tuple(meld_key(m) for m in p.melds),
         p.winning_tile, tuple(sorted(p.flowers)))
    if overhead:
        k += (p.concealed_face_down, tuple(p.discards), tuple(sorted(p.exposed)))
    return k


def wrong_fields(got: PlayerArea | None, want: PlayerArea, overhead: bool) -> list[str]:
    """Which parts of a seat were read wrong (all of them when the seat was not read at all)."""
    a, b = area_key(got, overhead), area_key(want, overhead)
    if a is None:
        return ["seat not read"]
    return [f for f, x, y in zip(FIELDS, a, b) if x != y]


def hand_key(p: PlayerArea | None):
    """A seat's hand alone, a whole hand: concealed tiles (on an overhead frame, how many lie face down), melds
    with their tiles and sources, winning tile, flowers; not the river nor exposed tiles."""
    k = area_key(p, True)
    return None if k is None else k[:5]


def score_key(r):
    """A score as compared: win or not, total, base, every fan and its count, the payments."""
    if r is None:
        return None
    return (r.is_win, r.total, r.base, tuple(sorted((f.id, f.count) for f in r.fans)),
            tuple(sorted(r.payments.items())))


def findings_key(fs):
    return sorted((f.kind, f.seat or "") for f in fs)


def false_violations(findings, truth) -> int:
    """Findings of severity "violation" beyond those (kind, seat) the ground-truth table's review has: penalties
    a referee would be told that the table does not bear out."""
    left = Counter((f.kind, f.seat or "") for f in truth)
    n = 0
    for f in findings:
        if f.severity != "violation":
            continue
        k = (f.kind, f.seat or "")
        if left[k] > 0:
            left[k] -= 1
        else:
            n += 1
    return n


def tile_match(dets, objects) -> tuple[int, int, int, int]:
    """(ground-truth tiles, found at IoU >= 0.5, of which right kind, extra detections); each ground-truth tile
    in turn takes the free detection it overlaps most."""
    ious = box_iou([o.box for o in objects], [d.box for d in dets]) if objects and dets else None
    used = set()
    found = right = 0
    for n, o in enumerate(objects):
        best, bi = 0.5, None
        for i, d in enumerate(dets):
            if i in used:
                continue
            iou = ious[n, i]
            if iou >= best:
                best, bi = iou, i
        if bi is not None:
            used.add(bi)
            found += 1
            right += dets[bi].kind == o.kind
    return len(objects), found, right, len(dets) - len(used)


def agnostic_matches(gt_boxes: np.ndarray, pred_boxes: np.ndarray, conf: np.ndarray) -> np.ndarray:
    """For each ground-truth tile, the index of the prediction matched to it at IoU >= 0.5 (greedy by
    confidence, class-agnostic), or -1."""
    match = np.full(len(gt_boxes), -1)
    if not len(gt_boxes) or not len(pred_boxes):
        return match
    iou = box_iou(pred_boxes, gt_boxes)
    for p in np.argsort(-conf, kind="stable"):
        cand = np.where(match >= 0, -1.0, iou[p])
        j = int(np.argmax(cand))
        if cand[j] >= 0.5:
            match[j] = p
    return match


def matched(gt_boxes, dets) -> np.ndarray:
    """agnostic_matches of labelled boxes (N,4) against a frame's detections: for each label, the index of its
    detection or -1."""
    return agnostic_matches(np.asarray(gt_boxes, np.float64).reshape(-1, 4),
                            np.array([d.box for d in dets], np.float64).reshape(-1, 4),
                            np.array([d.confidence for d in dets], np.float64))


def as_arrays(dets, gt):
    """(boxes, kinds, confidences) of detections and (boxes, kinds) of a scene's tiles, as arrays."""
    return (np.array([d.box for d in dets], np.float64).reshape(-1, 4), np.array([d.kind for d in dets], np.int64),
            np.array([d.confidence for d in dets], np.float64),
            np.array([o.box for o in gt.objects], np.float64).reshape(-1, 4),
            np.array([o.kind for o in gt.objects], np.int64))


# ---------------------------------------------------------------- doubtful tiles

def tile_beliefs(dets, gt_boxes: np.ndarray, gt_kinds: np.ndarray) -> list[tuple[bool, float]]:
    """(read right, the probability its doubt is judged by: types.doubt_level) of each face-up labelled tile a
    detection found at IoU >= 0.5 (agnostic_matches: each detection matched once, surest first). A face-up tile
    read as a back counts as read wrong and certain: the output never names a back doubtful."""
    match = matched(gt_boxes, dets)
    return [(dets[m].kind == k, 1.0 if dets[m].kind == T.BACK else doubt_level(dets[m].kind, dets[m].kind_p,
                                                                                 dets[m].flower_p))
            for m, k in zip(match, gt_kinds) if m >= 0 and k != T.BACK]


def crop_beliefs(det, folder: Path) -> list[tuple[bool, float]]:
    """(read right, the probability its doubt is judged by: types.doubt_level) of each crop of a plain crop folder,
    pasted on cloth and read as a located box of a photo of a hand (mjtable.vision.evaluate.kind_probs)."""
    from .evaluate import crops_on_cloth, kind_probs
    from .labels import read_crop_labels
    out = []
    for img, box, truth in crops_on_cloth(read_crop_labels(folder)):
        p = kind_probs(det, img, box)
        k = int(p.argmax())
        out.append((k == truth, 1.0 if k == T.BACK else
                    doubt_level(k, float(p[k]), float(p[T.FLOWERS[0]:T.FLOWERS[-1] + 1].sum()))))
    return out


def tile_figures(beliefs: list[tuple[bool, float]], limits=LIMITS) -> dict:
    """Of the misread tiles, the share under each limit (caught); of those read right, the share under it all the
    same (false alarms)."""
    right = np.array([p for ok, p in beliefs if ok])
    wrong = np.array([p for ok, p in beliefs if not ok])
    return {"right": len(right), "wrong": len(wrong),
            "caught": {str(t): float((wrong < t).mean()) if len(wrong) else None for t in limits},
            "false_alarm": {str(t): float((right < t).mean()) if len(right) else None for t in limits}}


def hand_figures(outcomes, limits=LIMITS) -> dict:
    """Whole hands from (scored right, gave a winning score, lowest tile probability) per hand: of the hands scored
    wrong, those warned (a doubtful tile, or no winning score) and those silent; of those scored right, those that
    name a doubtful tile all the same."""
    right = [low for ok, _, low in outcomes if ok]
    wrong = [(scored, low) for ok, scored, low in outcomes if not ok]
    res = {"hands": len(outcomes), "right": len(right), "wrong": len(wrong), "warned": {}, "silent": {},
           "false_alarm": {}}
    for t in limits:
        silent = sum(scored and low >= t for scored, low in wrong)
        res["silent"][str(t)] = silent
        res["warned"][str(t)] = len(wrong) - silent
        res["false_alarm"][str(t)] = sum(low < t for low in right)
    return res
