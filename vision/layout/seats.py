"""The overhead view's seats: each tile's seat, and each seat's rows in its own frame."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple, Optional

import numpy as np
from mjtable.scoring import tiles as T
from mjtable.scoring.table import (
    SEAT_ANGLE,
    SEATS,
)

from ..perspective import nearest
from .base import current_params
from .geometry import Tile, classify_sideways, clip, label_axis, mean, median, rotate, rows_of, split_groups
from .melds import is_meld_group


def _to_seat_frame(dx: float, dy: float, seat: str) -> tuple[float, float]:
    """Table-centred frame coordinates -> the seat's own frame (x to the player's right, y towards the player)."""
    if seat == "self":
        return dx, dy
    if seat == "right":
        return -dy, dx
    if seat == "across":
        return -dx, -dy
    return dy, -dx


def _seat_of(t: Tile, dx: float, dy: float) -> str:
    """Seat by the side of the table the tile lies on; near a diagonal, by the tile's axis."""
    margin = abs(abs(dx) - abs(dy)) / max(t.w, 1e-6)
    if margin < 1.0:
        axis = label_axis(t.det.orientation)
        if axis is None:       # face down: the long side of the box tells the axis (rows are near-axis here)
            axis = 0 if t.det.height >= t.det.width else 1
        return ("self" if dy > 0 else "across") if axis == 0 else ("right" if dx > 0 else "left")
    if abs(dy) >= abs(dx):
        return "self" if dy > 0 else "across"
    return "right" if dx > 0 else "left"


def _flowers_by_neighbour(tiles: list[Tile], seat: dict[int, str], cu: float, cv: float) -> None:
    """A flower near a diagonal of the table belongs to the seat whose tiles it lies beside (a player sets his
    flowers by his own hand or melds, often at one end of them, where a corner of the table begins): it takes the
    seat of the nearest face-up tile that is no flower, or of a flower already placed so (flowers lie in a row),
    when that tile is close (a tile in a row near a diagonal takes its seat by its axis, _seat_of; a face-down
    one's box shape may mislead)."""
    lp = current_params()
    anchors = [t for t in tiles if not T.is_flower(t.kind) and not t.back]
    todo = [t for t in tiles if T.is_flower(t.kind) and not t.back
            and abs(abs(t.u - cu) - abs(t.v - cv)) < lp.flower_diagonal * max(t.w, 1e-6)]
    while anchors and todo:
        a = np.array([(o.u, o.v) for o in anchors])
        f = np.array([(t.u, t.v, max(t.w, 1e-6)) for t in todo])
        d = np.hypot(f[:, :1] - a[:, 0], f[:, 1:2] - a[:, 1]) / f[:, 2:]       # flowers x anchors, in tile widths
        i, j = np.unravel_index(int(d.argmin()), d.shape)
        if d[i, j] >= lp.flower_reach:
            return
        t = todo.pop(int(i))
        seat[id(t)] = seat[id(anchors[int(j)])]
        anchors.append(t)


def seat_frames(tiles: list[Tile], phi: float, k: float, cu: float, cv: float) -> dict[str, "SeatRows"]:
    """Split the tiles by seat around the centre (cu, cv) of the rotated frame and read each seat's rows."""
    lp = current_params()
    rotate(tiles, phi)
    by_seat: dict[str, list[Tile]] = {s: [] for s in SEATS}
    seat = {id(t): _seat_of(t, t.u - cu, t.v - cv) for t in tiles}
    _flowers_by_neighbour(tiles, seat, cu, cv)
    for t in tiles:
        by_seat[seat[id(t)]].append(t)
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
            if abs(sr.pitch / med - 1) > lp.pitch_agree:
                sr.pitch = med
    return frames


def _straighten(ts: list[Tile], k: float, iters: int = 2) -> None:
    """Perspective tilts each seat's rows a little differently: level them by the median slope between
    neighbours in a row (robust to two rows that were merged because of the tilt)."""
    for _ in range(iters):
        slopes = []
        for r in rows_of(ts, k):
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


def centre_correction(frames: dict[str, "SeatRows"]) -> tuple[float, float]:
    """Opposite seats are laid out alike (wall, river start, hand row at the same distance from the centre):
    shift the centre so that their distances agree. Returns (du, dv) in the rotated image frame."""
    def features(sr):
        hand, walls, _, riverz, _ = zones(sr)
        f = {}
        if hand:       # a hand laid face up lies farther out than a standing one
            f["laid" if is_laid(hand) else "hand"] = float(np.mean([t.v for t in hand]))
        if walls:
            f["wall"] = float(np.mean([t.v for r in walls for t in r]))
        st = river_start(sr, riverz)
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


def overhead_width_factor(tiles: list[Tile]) -> float:
    lp = current_params()
    pts = np.array([(t.x, t.y) for t in tiles])
    s = np.array([t.s for t in tiles])
    if len(tiles) < 2:
        return 1.0 / math.sqrt(lp.aspect)
    nn = nearest(pts)[1] / s
    return clip(float(np.percentile(nn, 30)), 0.6 / math.sqrt(lp.aspect), 1.6 / math.sqrt(lp.aspect))


@dataclass
class SeatRows:
    rows: list[list[Tile]]
    w: float                      # median tile width of the seat
    pitch: float = 0.0            # centre spacing of touching tiles (pixels)


def _seat_rows(ts: list[Tile], theta: float, k: float) -> SeatRows:
    rows = rows_of(ts, k)
    for r in rows:
        classify_sideways(r, theta)
    w = float(np.median([t.w for t in ts])) if ts else 1.0
    sr = SeatRows(rows, w)
    sr.pitch = _seat_pitch(sr, w)
    return sr


@dataclass
class River:
    y0: float        # first row (nearest the centre), in tile widths, seat frame
    x0: float        # first column
    px: float        # column pitch, tile widths
    py: float        # row pitch, tile widths
    shear: float = 0.0   # how far each row lies along from the one before (tile widths; a view's leftover skew)


def _is_back_row(r: list[Tile]) -> bool:
    return sum(t.back for t in r) * 2 > len(r)


class Zones(NamedTuple):
    """One seat's rows by what lies there."""
    hand: Optional[list[Tile]]        # the hand row: standing (backs) or laid face up (is_laid)
    walls: list[list[Tile]]
    meldz: list[list[Tile]]           # face-up rows where melds and flowers lie
    riverz: list[list[Tile]]          # face-up rows of the river zone
    clutter: list[Tile]               # weak boxes in and beyond a laid hand, or beyond a standing one


def zones(sr: SeatRows) -> Zones:
    """The Zones of one seat."""
    lp = current_params()
    backs = [r for r in sr.rows if _is_back_row(r)]
    faces = [r for r in sr.rows if not _is_back_row(r)]
    backs.sort(key=lambda r: -mean([t.v for t in r]))        # nearest the player first
    # a few backs outside a longer bar of backs are not the hand but an object on the table, a shadow or a
    # sliver (an object cut by the frame's edge, the bar's own edge) when: they lie beyond the bar's ends; or
    # they are much less sure; or one or two lie just outside it
    def stray(out, inner):
        if len(inner) < 3 or len(inner) <= len(out):
            return False
        if len(out) <= 3 and (min(t.u for t in out) > max(t.u for t in inner) + sr.pitch
                              or max(t.u for t in out) < min(t.u for t in inner) - sr.pitch):
            return True
        if median([t.det.confidence for t in out]) < lp.stray_weak * median([t.det.confidence for t in inner]):
            return True
        return len(out) <= 2 and mean([t.v for t in out]) - mean([t.v for t in inner]) < lp.stray_outside * sr.w

    def bar_inside(n):      # the first row of three backs or more inside row n
        return next((r for r in backs[n + 1:] if len(r) >= 3), None)

    n = 0
    while n + 1 < len(backs) and (bar := bar_inside(n)) is not None and stray(backs[n], bar):
        n += 1
    paper = _weak_clusters(faces)
    laid = _laid_hand(_without(faces, [t for c in paper for t in c]), backs, sr.w, sr.pitch)
    hand = laid or (backs[n] if backs else None)
    clutter: list[Tile] = []
    if laid or hand and lp.paper_beyond_standing:
        # printed paper or a card at the table's edge, read as weak tiles in a laid row and beyond it, or beyond
        # a standing hand (a seat's melds and flowers lie inside its hand)
        v = mean([t.v for t in hand]) - (sr.w / 2 if laid else -sr.w / 2)
        clutter = [t for c in paper if min(t.v for t in c) > v for t in c]
        faces = _without(faces, (laid or []) + clutter)
    walls = [r for r in backs if r is not hand]
    y_hand = mean([t.v for t in hand]) if hand else (max(t.v for r in faces for t in r) + sr.w if faces else 0)
    meldz = [r for r in faces if mean([t.v for t in r]) > y_hand - lp.meld_zone * sr.w]
    riverz = [r for r in faces if r not in meldz]
    return Zones(hand, walls, meldz, riverz, clutter)


def _weak_clusters(rows: list[list[Tile]]) -> list[list[Tile]]:
    """Clusters of two or more face-up boxes that the detector is less than laid_sure of, each near another
    (_touching), none near a surer box of its own row: printed paper or a card read as tiles (a lone weak box may
    be a winning tile set apart, weak boxes beside surer ones in a row real tiles read weakly)."""
    lp = current_params()
    row_of = {id(t): n for n, r in enumerate(rows) for t in r}
    boxes = [t for r in rows for t in r]
    weak = [t for t in boxes if not t.back and t.det.confidence < lp.laid_sure]
    sure = [t for t in boxes if t.det.confidence >= lp.laid_sure]
    out = []
    while weak:
        seed = weak.pop()
        more, weak = _reach([seed], weak)
        c = [seed] + more
        if len(c) >= 2 and not any(row_of[id(t)] == row_of[id(o)] and _touching(t, o) for t in c for o in sure):
            out.append(c)
    return out


def _reach(start: list[Tile], pool: list[Tile]) -> tuple[list[Tile], list[Tile]]:
    """(the tiles of pool reached from start through tiles _touching one another, the rest of pool)."""
    found, todo = [], list(start)
    while todo and pool:
        c = todo.pop()
        near = [t for t in pool if _touching(t, c)]
        pool = [t for t in pool if all(t is not n for n in near)]
        found += near
        todo += near
    return found, pool


def _without(rows: list[list[Tile]], tiles: list[Tile]) -> list[list[Tile]]:
    """rows without the tiles given (rows left empty dropped)."""
    ids = {id(t) for t in tiles}
    return [kept for r in rows if (kept := [t for t in r if id(t) not in ids])]


def _touching(a: Tile, b: Tile) -> bool:
    """Do two tiles' boxes come within LayoutParams.paper_gap tiles of each other?"""
    (ax1, ay1, ax2, ay2), (bx1, by1, bx2, by2) = a.det.box, b.det.box
    gap = math.hypot(max(0.0, bx1 - ax2, ax1 - bx2), max(0.0, by1 - ay2, ay1 - by2))
    return gap < current_params().paper_gap * max(a.w, b.w)


def table_clutter(frames: dict[str, SeatRows]) -> list[Tile]:
    """Every seat's Zones.clutter, with the face-up boxes of any seat that the detector is less than laid_sure
    of and that come near it (_touching), and those near them in turn (a paper at a corner of the table
    reaches into the next seat's side), taken out of the seats' rows."""
    lp = current_params()
    found = [t for sr in frames.values() for t in zones(sr).clutter]
    weak = [t for sr in frames.values() for r in sr.rows for t in r
            if not t.back and t.det.confidence < lp.laid_sure and all(t is not c for c in found)]
    found += _reach(found, weak)[0]
    for sr in frames.values():
        sr.rows = _without(sr.rows, found)
    return found


def _laid_hand(faces: list[list[Tile]], backs: list[list[Tile]], w: float,
               pitch: float) -> Optional[list[Tile]]:
    """A hand laid face up (after a win, or shown): the seat's outermost row, face up, beyond every row of backs
    (its walls, which lie inside the melds; backs far less sure than its faces, hand_end_weak_extra, and a
    shorter row of backs wholly past its ends do not count), holding laid_loose face-up tiles or more outside
    melds (a row of melds alone is no hand: a standing hand missed behind it) that the detector is laid_sure of
    (a few weak boxes beyond a standing hand are an object's or a shadow's). faces: the seat's face-up rows
    without their clusters of weak boxes (_weak_clusters: paper or a card beside the hand)."""
    lp = current_params()
    # one or two weak boxes beyond the laid row (a tile cut by the frame's edge, an object) are not its row
    faces = [r for r in faces if len(r) > 2 or max(t.det.confidence for t in r) >= lp.lone_weak] or faces
    if not faces:
        return None
    outer = max(faces, key=lambda r: mean([t.v for t in r]))
    v = mean([t.v for t in outer])
    sure = median([t.det.confidence for t in outer])
    # backs beyond it that the detector is far less sure of than of its faces (a quarter) are a shadow or an
    # object at the table's edge, not a standing hand; nor is a shorter row of backs lying wholly past its ends,
    # a tile or more away: a standing hand lies before the player, where the laid row lies, and a row of melds
    # beside a standing hand is the shorter; nor is a row of backs scattered along it (a stripe on the cloth)
    shown = [t for t in outer if not t.back] or outer     # its backs may be a stripe's, lying across it
    lo, hi = min(t.u for t in shown) - w, max(t.u for t in shown) + w
    if any(mean([t.v for t in r]) > v - lp.laid_beyond * w
           and median([t.det.confidence for t in r]) >= lp.hand_end_weak_extra * sure
           and (any(lo < t.u < hi for t in r) or len(r) >= len(outer)) and not _scattered(r, pitch)
           for r in backs):
        return None
    loose = [t for g in split_groups(outer) if not is_meld_group(g) for t in g
             if not (t.back or T.is_flower(t.kind))]
    if len(loose) < lp.laid_loose or median([t.det.confidence for t in loose]) < lp.laid_sure:
        return None
    return outer


def _scattered(row: list[Tile], pitch: float) -> bool:
    """Do a row's boxes (three or more) lie apart rather than side by side, their median spacing over
    LayoutParams.scattered times the seat's pitch? A hand or a wall is a bar of touching tiles; a stripe or a
    seam on the cloth is read as boxes spaced anyhow."""
    if len(row) < 3:
        return False
    u = sorted(t.u for t in row)
    return median([b - a for a, b in zip(u, u[1:])]) > current_params().scattered * pitch


def is_laid(hand: Optional[list[Tile]]) -> bool:
    """Is a seat's hand row one laid face up (not a standing hand seen from behind)?"""
    return bool(hand) and not _is_back_row(hand)


def _seat_pitch(sr: SeatRows, default: float) -> float:
    """Centre spacing of touching tiles in this seat's rows (pixels): the seat's local scale."""
    pairs = [(a, b) for r in sr.rows for a, b in zip(r, r[1:]) if not (a.side or b.side)]
    d = [b.u - a.u for a, b in pairs]
    # boxes that overlap (a bar of backs split into too many boxes) are not touching tiles: face-up pairs,
    # whose boxes are reliable, say how close touching tiles can be (of those no farther apart than three times
    # the seat's median spacing: a flower and a meld far apart in one row say nothing of it)
    far = 3 * float(np.median(d)) if d else 0.0
    faces = [b.u - a.u for a, b in pairs if not (a.back or b.back) and b.u - a.u < far]
    if len(faces) >= 2:
        closest = 0.75 * float(np.percentile(faces, 30))
        d = [x for x in d if x > closest]
    if len(d) < 3:
        return default
    # the low end of the spacings is touching tiles; their median, not the low end itself, is their spacing
    low = float(np.percentile(d, 30))
    near = [x for x in d if 0.9 * low <= x <= 1.1 * low]     # empty when rows overlap back to front
    return float(np.median(near)) if near else default


def river_start(sr: SeatRows, riverz: list[list[Tile]]) -> Optional[tuple[float, float, float, int]]:
    """(y, x, pitch, tiles) of a seat's first river row (nearest the centre), in pixels of the seat frame, and
    how many face-up tiles lie in it. riverz: the seat's Zones.riverz."""
    riverz = [[t for t in r if not T.is_flower(t.kind) and not t.back] for r in riverz]
    riverz = [r for r in riverz if r]
    if not riverz:
        return None
    first = min(riverz, key=lambda r: np.mean([t.v for t in r]))
    return float(np.mean([t.v for t in first])), min(t.u for t in first), sr.pitch, len(first)
