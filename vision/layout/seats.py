"""The overhead view's seats: each tile's seat, and each seat's rows in its own frame."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

import numpy as np
from mjtable.scoring import tiles as T
from mjtable.scoring.table import (
    SEAT_ANGLE,
    SEATS,
)

from ..perspective import nearest
from .base import ASPECT, LAID_BEYOND, LAID_LOOSE, LAID_SURE
from .melds import _is_meld_group
from .rows import (
    _classify_sideways,
    _clip,
    _label_axis,
    _mean,
    _median,
    _rotate,
    _rows,
    _split_groups,
    _Tile,
)

MELD_ZONE = 2.5        # face-up rows within this many tile widths inside the hand row hold melds and flowers


RIVER_COLS = 6


RIVER_OWN = 3           # a seat's first river row of this many face-up tiles is its river, wherever it lies


STRAY_OUTSIDE = 1.5     # tile widths: how close outside the hand row a short row of backs is a stray


STRAY_WEAK = 0.75       # a row of backs outside a longer bar, this much less sure than it, is not a hand


HAND_GAP = 2.5          # tile pitches: a box this far from the rest of the hand row is not part of the hand


HAND_END_GAP = 1.5      # nor a box at its end this far from the next ...


HAND_END_WEAK = 0.75    # ... and less sure than this times the row's median


END_OFF_GRID = (1.25, 1.75)   # a box at a hand bar's end this many pitches from the next is off the bar ...


END_PAIR = 1.25        # ... unless its box is this much bigger than the bar's (two tiles found as one)


HAND_END_WEAK_EXTRA = 0.25  # a box at its end less sure than this times the median, one tile over a legal size


                            # (0.5 before the detector's back colour check: it dropped real end tiles 4 times in 20)
GRID_MIN_BOXES = 6      # a hand bar of this many boxes or more is counted by the grid its boxes sit on ...


GRID_PITCH = (0.8, 1.25)  # ... among counts one off whose spacing is this close to the seat's pitch ...


GRID_BETTER = 0.5       # ... when that grid fits the boxes this much better


PITCH_AGREE = 0.2       # a seat's tile spacing may differ this much from the table's (perspective)


def _to_seat_frame(dx: float, dy: float, seat: str) -> tuple[float, float]:
    """Table-centred frame coordinates -> the seat's own frame (x to the player's right, y towards the player)."""
    if seat == "self":
        return dx, dy
    if seat == "right":
        return -dy, dx
    if seat == "across":
        return -dx, -dy
    return dy, -dx


def _seat_of(t: _Tile, dx: float, dy: float) -> str:
    """Seat by the side of the table the tile lies on; near a diagonal, by the tile's axis."""
    margin = abs(abs(dx) - abs(dy)) / max(t.w, 1e-6)
    if margin < 1.0:
        axis = _label_axis(t.det.orientation)
        if axis is None:       # face down: the long side of the box tells the axis (rows are near-axis here)
            axis = 0 if t.det.height >= t.det.width else 1
        return ("self" if dy > 0 else "across") if axis == 0 else ("right" if dx > 0 else "left")
    if abs(dy) >= abs(dx):
        return "self" if dy > 0 else "across"
    return "right" if dx > 0 else "left"


def _seat_frames(tiles: list[_Tile], phi: float, k: float, cu: float, cv: float) -> dict[str, "_SeatRows"]:
    """Split the tiles by seat around the centre (cu, cv) of the rotated frame and read each seat's rows."""
    _rotate(tiles, phi)
    by_seat: dict[str, list[_Tile]] = {s: [] for s in SEATS}
    for t in tiles:
        by_seat[_seat_of(t, t.u - cu, t.v - cv)].append(t)
    frames = {}
    for seat, ts in by_seat.items():
        for t in ts:
            t.u, t.v = _to_seat_frame(t.u - cu, t.v - cv, seat)
        _straighten(ts, k)
        frames[seat] = _seat_rows(ts, phi + math.radians(SEAT_ANGLE[seat]), k)
    # one table, one set of tiles: a seat whose spacing disagrees with the others' (boxes split or doubled by a
    # decoration or a bar of backs) takes theirs
    pitches = [sr.pitch for sr in frames.values() if sr.rows]
    if len(pitches) >= 3:
        med = float(np.median(pitches))
        for sr in frames.values():
            if abs(sr.pitch / med - 1) > PITCH_AGREE:
                sr.pitch = med
    return frames


def _straighten(ts: list[_Tile], k: float, iters: int = 2) -> None:
    """Perspective tilts each seat's rows a little differently: level them by the median slope between
    neighbours in a row (robust to two rows that were merged because of the tilt)."""
    for _ in range(iters):
        slopes = []
        for r in _rows(ts, k):
            for a, b in zip(r, r[1:]):
                du = b.u - a.u
                if 0.6 * a.w < du < 1.6 * a.w and a.back == b.back and not (a.side or b.side):
                    slopes.append((b.v - a.v) / du)
        if len(slopes) < 3:
            return
        m = float(np.median(slopes))
        if abs(m) < 1e-3 or abs(m) > 0.3:
            return
        a = -math.atan(m)
        c, s = math.cos(a), math.sin(a)
        for t in ts:
            t.u, t.v = t.u * c - t.v * s, t.u * s + t.v * c


def _centre_correction(frames: dict[str, "_SeatRows"]) -> tuple[float, float]:
    """Opposite seats are laid out alike (wall, river start, hand row at the same distance from the centre):
    shift the centre so that their distances agree. Returns (du, dv) in the rotated image frame."""
    def features(sr):
        hand, walls, meldz, riverz = _zones(sr)
        f = {}
        if hand:       # a hand laid face up lies farther out than a standing one
            f["laid" if _is_laid(hand) else "hand"] = float(np.mean([t.v for t in hand]))
        if walls:
            f["wall"] = float(np.mean([t.v for r in walls for t in r]))
        st = _river_start(sr)
        if st:
            f["river"] = st[0]
        return f

    out = []
    for a, b in (("self", "across"), ("right", "left")):
        fa, fb = features(frames[a]), features(frames[b])
        diffs = [fa[key] - fb[key] for key in fa if key in fb]
        out.append(float(np.median(diffs)) / 2 if diffs else 0.0)
    # self is +v, right is +u in the rotated image frame
    return out[1], out[0]


def _overhead_width_factor(tiles: list[_Tile]) -> float:
    pts = np.array([(t.x, t.y) for t in tiles])
    s = np.array([t.s for t in tiles])
    if len(tiles) < 2:
        return 1.0 / math.sqrt(ASPECT)
    nn = nearest(pts)[1] / s
    return _clip(float(np.percentile(nn, 30)), 0.6 / math.sqrt(ASPECT), 1.6 / math.sqrt(ASPECT))


@dataclass
class _SeatRows:
    rows: list[list[_Tile]]
    w: float                      # median tile width of the seat
    pitch: float = 0.0            # centre spacing of touching tiles (pixels)


def _seat_rows(ts: list[_Tile], theta: float, k: float) -> _SeatRows:
    rows = _rows(ts, k)
    for r in rows:
        _classify_sideways(r, theta)
    w = float(np.median([t.w for t in ts])) if ts else 1.0
    sr = _SeatRows(rows, w)
    sr.pitch = _seat_pitch(sr, w)
    return sr


@dataclass
class _River:
    y0: float        # first row (nearest the centre), in tile widths, seat frame
    x0: float        # first column
    px: float        # column pitch, tile widths
    py: float        # row pitch, tile widths


def _is_back_row(r: list[_Tile]) -> bool:
    return sum(t.back for t in r) * 2 > len(r)


def _zones(sr: _SeatRows) -> tuple[Optional[list[_Tile]], list[list[_Tile]], list[list[_Tile]], list[list[_Tile]]]:
    """(hand row, wall rows, meld/flower rows, river-zone rows) of one seat; the hand row stands (backs) or lies
    face up (_is_laid)."""
    backs = [r for r in sr.rows if _is_back_row(r)]
    faces = [r for r in sr.rows if not _is_back_row(r)]
    backs.sort(key=lambda r: -_mean([t.v for t in r]))        # nearest the player first
    # a few backs outside a longer bar of backs are not the hand but an object on the table, a shadow or a
    # sliver (an object cut by the frame's edge, the bar's own edge) when: they lie beyond the bar's ends; or
    # they are much less sure; or one or two lie just outside it
    def stray(out, inner):
        if len(inner) < 3 or len(inner) <= len(out):
            return False
        if len(out) <= 3 and (min(t.u for t in out) > max(t.u for t in inner) + sr.pitch
                              or max(t.u for t in out) < min(t.u for t in inner) - sr.pitch):
            return True
        if _median([t.det.confidence for t in out]) < STRAY_WEAK * _median([t.det.confidence for t in inner]):
            return True
        return len(out) <= 2 and _mean([t.v for t in out]) - _mean([t.v for t in inner]) < STRAY_OUTSIDE * sr.w

    n = 0
    while n + 1 < len(backs) and stray(backs[n], backs[n + 1]):
        n += 1
    hand = _laid_hand(faces, backs, sr.w) or (backs[n] if backs else None)
    faces = [r for r in faces if r is not hand]
    walls = [r for r in backs if r is not hand]
    y_hand = _mean([t.v for t in hand]) if hand else (max(t.v for r in faces for t in r) + sr.w if faces else 0)
    meldz = [r for r in faces if _mean([t.v for t in r]) > y_hand - MELD_ZONE * sr.w]
    riverz = [r for r in faces if r not in meldz]
    return hand, walls, meldz, riverz


def _laid_hand(faces: list[list[_Tile]], backs: list[list[_Tile]], w: float) -> Optional[list[_Tile]]:
    """A hand laid face up (after a win, or shown): the seat's outermost row, face up, beyond every row of backs
    (its walls, which lie inside the melds), holding LAID_LOOSE face-up tiles or more outside melds (a row of
    melds alone is no hand: a standing hand missed behind it) that the detector is LAID_SURE of (a few weak
    boxes beyond a standing hand are an object's or a shadow's)."""
    if not faces:
        return None
    outer = max(faces, key=lambda r: _mean([t.v for t in r]))
    v = _mean([t.v for t in outer])
    if any(_mean([t.v for t in r]) > v - LAID_BEYOND * w for r in backs):
        return None
    loose = [t for g in _split_groups(outer) if not _is_meld_group(g) for t in g
             if not (t.back or T.is_flower(t.kind))]
    if len(loose) < LAID_LOOSE or _median([t.det.confidence for t in loose]) < LAID_SURE:
        return None
    return outer


def _is_laid(hand: Optional[list[_Tile]]) -> bool:
    """Is a seat's hand row one laid face up (not a standing hand seen from behind)?"""
    return bool(hand) and not _is_back_row(hand)


def _seat_pitch(sr: _SeatRows, default: float) -> float:
    """Centre spacing of touching tiles in this seat's rows (pixels): the seat's local scale."""
    pairs = [(a, b) for r in sr.rows for a, b in zip(r, r[1:]) if not (a.side or b.side)]
    d = [b.u - a.u for a, b in pairs]
    # boxes that overlap (a bar of backs split into too many boxes) are not touching tiles: face-up pairs,
    # whose boxes are reliable, say how close touching tiles can be
    faces = [b.u - a.u for a, b in pairs if not (a.back or b.back)]
    if len(faces) >= 2:
        closest = 0.75 * float(np.percentile(faces, 30))
        d = [x for x in d if x > closest]
    if len(d) < 3:
        return default
    # the low end of the spacings is touching tiles; their median, not the low end itself, is their spacing
    low = float(np.percentile(d, 30))
    near = [x for x in d if 0.9 * low <= x <= 1.1 * low]     # empty when rows overlap back to front
    return float(np.median(near)) if near else default


def _river_start(sr: _SeatRows) -> Optional[tuple[float, float, float, int]]:
    """(y, x, pitch, tiles) of a seat's first river row (nearest the centre), in pixels of the seat frame, and
    how many face-up tiles lie in it."""
    _, _, _, riverz = _zones(sr)
    riverz = [[t for t in r if not T.is_flower(t.kind) and not t.back] for r in riverz]
    riverz = [r for r in riverz if r]
    if not riverz:
        return None
    first = min(riverz, key=lambda r: np.mean([t.v for t in r]))
    return float(np.mean([t.v for t in first])), min(t.u for t in first), sr.pitch, len(first)
