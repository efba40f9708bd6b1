"""Layout parser: tile detections -> what lies on the table (mjtable.scoring.table.TableState).

Two kinds of frame:

* ``phone``: a photo of one player's finished hand. Concealed row, melds (grouped by gaps and read by
  the sideways tile: left = from the left player, middle = across, right = right player; face-down tiles =
  concealed kong), the winning tile set apart, flowers.
* ``overhead``: a camera above the table. Four seats (self at the bottom of the frame, then right, across,
  left), each with melds, flowers, the discard river (rows of 6, read left to right from that player's
  point of view), the hand (face up or face down) and face-up tiles lying where they should not (exposed).

Everything works on box geometry only, so it is testable without a model:

1. duplicates (IoU > 0.6) are dropped (and reported);
2. the dominant row direction is estimated from nearest-neighbour vectors between tile centres
   (doubled angle for a phone photo, quadrupled for an overhead frame) and refined by fitting lines through
   the rows; all further work happens in that rotated frame (u along the rows, v across them), so a
   rotated or mildly perspective photo reads like a straight one;
3. rows are clusters in v, groups are runs in u split where the gap exceeds a fraction of the local tile width
   (local scale = sqrt of box area, which is the same for an upright and a sideways tile at any angle);
4. a tile is *sideways* when it differs from the majority of its row: by its orientation label, by its box
   shape in the rotated frame, and (near 45 degrees where both fade) by the spacing to its neighbours.

Whatever cannot be placed is named in ``TableState.unplaced`` rather than guessed silently.
"""
from __future__ import annotations

import itertools
import math
from collections import Counter
from dataclasses import dataclass, replace
from typing import Optional

import numpy as np

from mjtable.scoring import tiles as T
from mjtable.scoring.hand import CHOW, KONG, PUNG, Hand, Meld, Situation
from mjtable.scoring.table import SEAT_ANGLE, SEATS, MeldOnTable, PlayerArea, TableState, source_of_sideways

from .types import FACE_DOWN, SIDEWAYS, UPRIGHT, UPSIDE_DOWN, Detection

PHONE, OVERHEAD = "phone", "overhead"

# Tunables, in units of the local tile width w (the short side of an upright tile).
ASPECT = 1.35          # tile height / width; a sideways tile takes ASPECT*w along the row
WEAK_DUP = 0.5         # a box less sure than this times a kept one it overlaps ...
WEAK_DUP_IOU = 0.35    # ... by this IoU is the same tile seen twice too
SHADOW_COVER = 0.25    # overhead: a face-up box this much over a kept one ...
SHADOW_CONF = 0.3      # ... and less than this times as sure is a duplicate too
SHADOW_CONF_BACK = 0.5  # a face-down box over a face-down one: less than this times as sure (phone too)
WRAP_COVER = 0.8       # a box with two others this much inside it, less sure than either's best, wraps them
DUP_IOU = 0.6          # two boxes overlapping more than this are one tile seen twice
ROW_SPLIT = 0.62       # rows: a jump in v larger than this (x w) starts a new row
LONE_WEAK = 0.45       # overhead: a lone face-up box in the meld area less sure than this is not placed
REJOIN_GAP = 1.0       # overhead meld rows: groups closer than this (x w) that make melds only together are one
GAP_SPLIT = 0.30       # groups: free space between neighbours larger than this (x w) starts a new group
WIN_GAP = 1.12         # a hand row one tile too long: its last tile is the winning tile if spaced this much wider
LABEL_POWER = 8      # how fast an unsure orientation label loses its vote
STRADDLE_COVER = 0.6   # a face-up box this much inside two or more surer ones ...
STRADDLE_CONF = 0.9    # ... and less than this times as sure as each is a box astride them
STRADDLE_COVER_WEAK = 0.35  # or this much inside them ...
STRADDLE_CONF_WEAK = 0.5    # ... and less than this times as sure
STRADDLE_CONF_BACK = 0.7    # a face-down box: the weak cover and less than this times as sure
MERGED_WIDE = 1.15      # a box this much wider than its meld's two upright tiles of one kind lies sideways ...
MERGED_TALL = 1.05      # ... and this much taller holds a second tile on it (an added kong's two tiles as one box)
STACK_SQUARE = 0.25     # a much less sure box this squarely (x w) under or on a sideways tile ...
STACK_WEAK = 0.5        # ... and less than this times as sure is the other tile of an added kong, whatever its label
STACK_NEAR = 0.35        # a tile stacked on a claimed one lies at least this many (smaller) tile widths beyond it
WEAK_END = 0.5         # a box in a row of melds less sure than this times the row's median is weak
HALF_GAP = 0.6         # face-up neighbours in a row closer than this (x tile width) are one tile's halves ...
HALF_GAP_MELDS = 0.75  # ... in an overhead seat's meld area (a sideways tile's halves lie 0.68 apart; no hand row)
FAINT = 0.05            # overhead: face-up detections less sure than this are not placed ...
FAINT_BOX = 0.6         # ... and a white dragon is placed only if its box (the locator's score) is this sure
LEAN_MIN = 0.35        # a set where melds lie, no tile sideways: its widest tile is the sideways one if this wide ...
LEAN_MARGIN = 0.25     # ... and this much wider than the next
WEAK_FLOWER = 0.5       # a flower box less sure than this lying inside a row of suit tiles is not a flower
FLOWER_BESIDE = 0.05    # a tile touching a flower is one if the classifier gives a flower this much
TOUCH_CLOSE = 1.15      # a tile at a row's end touches its neighbour: centres this close (x the larger scale)
ISOLATED = 4.0         # a lone tile farther than this (x w) from every other tile is not part of the layout


class LayoutError(ValueError):
    """The detections cannot be read as a table at all (e.g. no tiles)."""


class HandError(ValueError):
    """A player area cannot be turned into a Hand (unreadable meld, no tiles ...)."""


@dataclass
class Placed:
    """Where one detection ended up (for annotation and debugging)."""
    det: Detection
    seat: Optional[str]
    group: str            # concealed | meld:<i> | winning | flower | discard | wall | exposed | unplaced | duplicate
    sideways: bool = False


@dataclass
class Layout:
    table: TableState
    placed: list[Placed]
    kind: str
    angle: float          # reading direction of the self row, degrees, image coordinates (y down)


# --------------------------------------------------------------------------------------------- geometry


@dataclass
class _Tile:
    i: int                 # index into the detection list
    det: Detection
    x: float
    y: float
    s: float               # sqrt(box area): orientation-independent scale
    u: float = 0.0
    v: float = 0.0
    w: float = 0.0         # local tile width (short side) in pixels
    side: bool = False     # lies sideways relative to its row
    lean: float = 0.0      # box-shape evidence of lying sideways (~1 sideways, ~0 along the row)
    added: bool = False    # stacked on a sideways tile (added kong)

    @property
    def kind(self) -> int:
        return self.det.kind

    @property
    def back(self) -> bool:
        return self.det.kind == T.BACK or self.det.orientation == FACE_DOWN


def _mean(xs: list[float]) -> float:
    return sum(xs) / len(xs)


def _median(xs: list[float]) -> float:
    """np.median of a short list, without numpy's per-call cost."""
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def _clip(x: float, lo: float, hi: float) -> float:
    """np.clip for one number (the layout clips thousands of scalars per frame; numpy's call costs 30x more)."""
    return min(max(x, lo), hi)


def _tiles(dets: list[Detection], idx: list[int]) -> list[_Tile]:
    out = []
    for i in idx:
        d = dets[i]
        out.append(_Tile(i, d, *d.center, math.sqrt(max(d.width, 1e-6) * max(d.height, 1e-6))))
    return out


def _overlaps(dets: list[Detection]) -> tuple[np.ndarray, np.ndarray]:
    """(IoU, cover) matrices of the detections' boxes; cover[i, j] is the share of box i inside box j."""
    b = np.array([d.box for d in dets], dtype=float).reshape(-1, 4)
    area = np.maximum((b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1]), 1e-9)
    ix = np.clip(np.minimum(b[:, None, 2], b[None, :, 2]) - np.maximum(b[:, None, 0], b[None, :, 0]), 0, None)
    iy = np.clip(np.minimum(b[:, None, 3], b[None, :, 3]) - np.maximum(b[:, None, 1], b[None, :, 1]), 0, None)
    inter = ix * iy
    return inter / (area[:, None] + area[None, :] - inter), inter / area[:, None]


def _dedupe(dets: list[Detection], weak_dup: bool = False) -> tuple[list[int], list[int]]:
    """Indices kept / dropped as duplicates: the less sure of two boxes with IoU > DUP_IOU, or with IoU >
    WEAK_DUP_IOU if it is much less sure (``weak_dup``: not for a phone photo, where the claimed tile of an added
    kong, half hidden under the added one, overlaps it so and is often much less sure), or a box astride
    neighbours."""
    order = sorted(range(len(dets)), key=lambda i: -dets[i].confidence)
    conf = np.array([d.confidence for d in dets], dtype=float)
    back = np.array([d.kind == T.BACK for d in dets])
    iou, cover = _overlaps(dets)
    kept: list[int] = []
    dropped: set[int] = set()

    # one box around two others (each nearly all inside it), less sure than the surer of them: two tiles found
    # as one box as well as one by one (a claimed tile and the tile added on it)
    for i in order:
        inside = [j for j in np.flatnonzero(cover[:, i] >= WRAP_COVER) if j != i]
        if any(iou[a, b] < 0.3 and conf[i] < max(conf[a], conf[b]) for a, b in itertools.combinations(inside, 2)):
            dropped.add(i)
    for i in order:
        if i in dropped:
            continue
        k = np.array(kept, dtype=int)
        # the plain rule; a much less sure box needs less overlap on an overhead frame
        limit = np.where(weak_dup & (conf[i] < WEAK_DUP * conf[k]), WEAK_DUP_IOU, DUP_IOU)
        dup = iou[i, k] > limit
        # a box a quarter or more over a far surer one is its edge or shadow found again: a face-down box over
        # a face-down one; on an overhead frame, a face-up box over any (in a phone photo the claimed tile of an
        # added kong lies so under the added one)
        over = cover[i, k] > SHADOW_COVER
        if back[i]:
            shadow = over & back[k] & (conf[i] < SHADOW_CONF_BACK * conf[k])
        else:
            shadow = over & weak_dup & (conf[i] < SHADOW_CONF * conf[k])
        if dup.any() or shadow.any() or _straddles(dets, i, k, cover):
            dropped.add(i)
        else:
            kept.append(i)
    return sorted(kept), sorted(dropped)


def _box_score(d: Detection) -> float:
    """The locator's confidence that a tile lies in the box, whatever its face: the detection's confidence
    divided by the classifier's probability of its kind (the confidence itself when that is unknown)."""
    p = dict(d.candidates).get(d.kind)
    return d.confidence / p if p else d.confidence


def _straddles(dets: list[Detection], i: int, kept: np.ndarray, cover: np.ndarray) -> bool:
    """A box lying over two or more surer boxes of its side (face up / face down): one box astride neighbouring
    tiles, not a tile of its own. Tiles lie side by side; the tile added to a kong lies on one other, and a
    stray tile dropped on others is as sure as they are. Mostly inside them and less sure than each; or half
    inside them and much less sure."""
    d = dets[i]
    down = d.kind == T.BACK or d.orientation == FACE_DOWN
    over = kept[cover[i, kept] > 0.15].tolist()
    if len(over) < 2:
        return False
    inside = sum(cover[i, over].tolist())
    ratio = d.confidence / min(dets[j].confidence for j in over)
    if down:
        return inside > STRADDLE_COVER_WEAK and ratio < STRADDLE_CONF_BACK
    return ((inside > STRADDLE_COVER and ratio < STRADDLE_CONF)
            or (inside > STRADDLE_COVER_WEAK and ratio < STRADDLE_CONF_WEAK))


def _nn_angle(pts: np.ndarray, sym: int) -> float:
    """Dominant direction (radians, modulo 2*pi/sym) of nearest-neighbour vectors."""
    n = len(pts)
    if n < 2:
        return 0.0
    d = pts[:, None, :] - pts[None, :, :]
    dist = np.hypot(d[..., 0], d[..., 1])
    np.fill_diagonal(dist, np.inf)
    j = dist.argmin(axis=1)
    vec = pts[j] - pts
    nd = dist[np.arange(n), j]
    keep = nd < 2.0 * np.median(nd)
    ang = np.arctan2(vec[keep, 1], vec[keep, 0])
    z = np.exp(1j * sym * ang).sum()
    return float(np.angle(z) / sym) if abs(z) > 0 else 0.0


def _rotate(tiles: list[_Tile], theta: float) -> None:
    c, s = math.cos(theta), math.sin(theta)
    for t in tiles:
        t.u = t.x * c + t.y * s
        t.v = -t.x * s + t.y * c


def _rows(tiles: list[_Tile], k: float) -> list[list[_Tile]]:
    """Cluster tiles into rows by v (single linkage on sorted v), each row sorted by u."""
    if not tiles:
        return []
    ts = sorted(tiles, key=lambda t: t.v)
    rows = [[ts[0]]]
    for a, b in zip(ts, ts[1:]):
        if b.v - a.v > ROW_SPLIT * k * (a.s + b.s) / 2:
            rows.append([])
        rows[-1].append(b)
    return [sorted(r, key=lambda t: t.u) for r in rows]


def _width_factor(rows: list[list[_Tile]]) -> float:
    """k such that tile width w ~ k * s, from the spacing of neighbours in rows (most of them touch)."""
    ratios = [(b.u - a.u) / ((a.s + b.s) / 2) for r in rows for a, b in zip(r, r[1:])]
    if not ratios:
        return 1.0 / math.sqrt(ASPECT)
    k = float(np.percentile(ratios, 20))
    return _clip(float(k), 0.6 / math.sqrt(ASPECT), 1.6 / math.sqrt(ASPECT))


def _refine_angle(tiles: list[_Tile], theta: float, iters: int = 2) -> float:
    """Correct theta by the mean slope of the rows (least squares v = a*u + b per row)."""
    for _ in range(iters):
        _rotate(tiles, theta)
        k = 1.0 / math.sqrt(ASPECT)
        num = den = 0.0
        for r in _rows(tiles, k):
            if len(r) < 3:
                continue
            u = np.array([t.u for t in r])
            v = np.array([t.v for t in r])
            uc = u - u.mean()
            var = float((uc ** 2).sum())
            if var <= 0:
                continue
            slope = float((uc * (v - v.mean())).sum() / var)
            if abs(slope) > 0.3:          # not a row, just a coincidence of v
                continue
            num += slope * len(r)
            den += len(r)
        if den == 0:
            break
        theta += math.atan(num / den)
    _rotate(tiles, theta)
    return theta


def _label_axis(o: str) -> Optional[int]:
    """0: tile's up axis is vertical in the image, 1: horizontal, None: no information."""
    return {UPRIGHT: 0, UPSIDE_DOWN: 0, SIDEWAYS: 1}.get(o)


def _reliability(theta: float) -> tuple[float, float, float]:
    """(label reliability, shape reliability, expected (W-H)/(W+H) of an upright tile) for rows at theta."""
    c, s = abs(math.cos(theta)), abs(math.sin(theta))
    q = (c - s) / (c + s)                                  # +1 axis-aligned rows ... 0 at 45 degrees ... -1 vertical
    delta = min(abs(math.degrees(theta)) % 90, 90 - abs(math.degrees(theta)) % 90)   # to nearest axis
    rel_label = _clip((38.0 - delta) / 10.0, 0.0, 1.0)
    m_up = (1 - ASPECT) / (1 + ASPECT) * q
    rel_shape = min(1.0, 2 * abs(m_up) / 0.25)
    return rel_label, rel_shape, m_up


def _classify_sideways(row: list[_Tile], theta: float) -> None:
    """Mark tiles lying across their row, by comparison with the row majority (label and box shape)."""
    rel_label, rel_shape, m_up = _reliability(theta)
    m = [(t.det.width - t.det.height) / (t.det.width + t.det.height) for t in row]
    med = _median(m) if m else 0.0
    axes = [_label_axis(t.det.orientation) for t in row]
    known = [a for a in axes if a is not None]
    major = max(set(known), key=known.count) if known else None
    for t, mi, a in zip(row, m, axes):
        ev = w = 0.0
        if rel_shape > 0 and abs(m_up) > 1e-6:
            shape = (med - mi) / (2 * m_up)                 # ~1 for a sideways tile, ~0 for its upright peers
            t.lean = rel_shape * _clip(float(shape), -0.5, 1.5)
            ev += t.lean
            w += rel_shape
        if a is not None and major is not None and rel_label > 0:
            # a face that looks alike turned a quarter (blank white dragon, one of dots) leaves the classifier
            # unsure of the axis: its vote counts for less, and the box shape decides
            sure = rel_label * _clip((t.det.axis_p - 0.5) / 0.5, 0.0, 1.0) ** LABEL_POWER
            ev += sure * (1.0 if a != major else 0.0)
            w += sure
        # too little evidence (rows near 45 degrees): leave it to the spacing test
        t.side = w >= 0.35 and ev / w > 0.5


def _spacing_sideways(group: list[_Tile]) -> None:
    """Where box cues say nothing (near 45 degrees), find the one tile whose neighbours sit farther apart."""
    if len(group) < 3 or any(t.side for t in group) or any(t.back for t in group):
        return
    d = [b.u - a.u for a, b in zip(group, group[1:])]

    def err(k):
        ext = [t.w * (ASPECT if n == k else 1.0) for n, t in enumerate(group)]
        return sum((di - (ext[j] + ext[j + 1]) / 2) ** 2 for j, di in enumerate(d))

    best, best_err = None, err(-1)
    for k in range(len(group)):
        e = err(k)
        if e < best_err * 0.5:
            best, best_err = k, e
    if best is not None:
        group[best].side = True


def _split_groups(row: list[_Tile]) -> list[list[_Tile]]:
    groups = [[row[0]]] if row else []
    for a, b in zip(row, row[1:]):
        ext = (a.w * (ASPECT if a.side else 1) + b.w * (ASPECT if b.side else 1)) / 2
        gap = (b.u - a.u) - ext
        if gap > GAP_SPLIT * (a.w + b.w) / 2:
            groups.append([])
        groups[-1].append(b)
    return groups


@dataclass
class _Frame:
    theta: float
    rows: list[list[_Tile]]
    groups: list[list[_Tile]]     # reading order: rows top to bottom, groups left to right
    k: float


def _frame(tiles: list[_Tile], theta: float, refine: bool = True) -> _Frame:
    theta = _refine_angle(tiles, theta) if refine else theta
    _rotate(tiles, theta)
    rows = _rows(tiles, 1.0 / math.sqrt(ASPECT))
    k = _width_factor(rows)
    rows = _rows(tiles, k)
    for t in tiles:
        t.w = k * t.s
    groups = []
    for r in rows:
        _classify_sideways(r, theta)
        gs = _split_groups(r)
        if sum(_reliability(theta)[:2]) < 0.35:        # box cues silent (near 45 degrees): spacing decides
            for g in gs:
                _spacing_sideways(g)
        groups += _split_groups(r) if any(t.side for g in gs for t in g) else gs
    return _Frame(theta, rows, groups, k)


def _up_label(theta: float) -> str:
    """Orientation label of an upright tile in a row running at angle theta (image coords, y down)."""
    up = (math.sin(theta), -math.cos(theta))
    if abs(up[1]) >= abs(up[0]):
        return UPRIGHT if up[1] < 0 else UPSIDE_DOWN
    return SIDEWAYS


def _direction_votes(tiles: list[_Tile], theta: float) -> float:
    """> 0 if labels say the rows read along theta, < 0 if along theta + pi, 0 if they cannot tell."""
    a, b = _up_label(theta), _up_label(theta + math.pi)
    if a == b:
        return 0.0
    n = 0.0
    for t in tiles:
        if t.side or t.back:
            continue
        n += (t.det.orientation == a) - (t.det.orientation == b)
    return n / max(1, len(tiles))


# --------------------------------------------------------------------------------------------- melds

def _read_meld(g: list[_Tile], guess: bool = True) -> tuple[MeldOnTable, Optional[str]]:
    """Interpret a group as a meld. Returns the meld on the table and a problem message (or None).
    guess: allow the readings that complete a group from part of it (not for a piece cut from a longer run)."""
    added = [t for t in g if t.added]
    flat = [t for t in g if not t.added]
    tiles = tuple(None if t.back else t.kind for t in flat)
    sides = [i for i, t in enumerate(flat) if t.side]
    sideways = sides[0] if len(sides) == 1 else None
    mot = MeldOnTable(tiles, sideways, None)
    shown = [t for t in tiles if t is not None] + [t.kind for t in added if not t.back]
    desc = f"[{_codes(tiles)}]"
    if any(not 0 <= t < T.N_KINDS for t in shown):
        return mot, f"meld {desc}: holds a tile that cannot be melded"
    if len(sides) > 1:
        return mot, f"meld {desc}: {len(sides)} sideways tiles, cannot tell the source"
    n = len(flat) + len(added)
    face_down = tiles.count(None)
    if face_down or (sideways is None and n == 4 and not added):
        # a concealed kong: four tiles, at least one face down, the face-up ones alike
        problem = None
        if guess and not sides and not added and n == 3 and len(set(shown)) == 1:
            # three of a concealed kong's four: one tile was not found; its place completes the pattern
            # (face down at both ends, or face up at both ends)
            k = shown[0]
            full = {(None, k, k): (None, k, k, None), (k, k, None): (None, k, k, None),
                    (k, None, None): (k, None, None, k),
                    (None, None, k): (k, None, None, k)}.get(tiles)
            if full is not None:
                return (replace(mot, tiles=full, meld=Meld(KONG, k, concealed=True)),
                        f"concealed kong [{_codes(full)}]: one of its tiles not found (read from the three shown)")
        if (len(sides) == 1 and tiles[sides[0]] is None and not added and set(shown) <= {T.WHITE}
                and (n == 3 or n == 4 and face_down in (1, 4))):
            # a claimed set of white dragons whose sideways tile, or all of whose tiles, were taken for backs
            # (the face is blank in some sets; no face-down tile lies sideways in a meld)
            full = (T.WHITE,) * len(tiles)
            meld = Meld(PUNG if n == 3 else KONG, T.WHITE, concealed=False, source=source_of_sideways(sides[0], n))
            return (replace(mot, tiles=full, meld=meld),
                    f"meld {desc}: read as [{_codes(full)}] (blank white dragons taken for backs: no face-down "
                    f"tile lies sideways in a meld)")
        if sides or n != 4:
            problem = f"meld {desc}: face-down tiles but not a concealed kong of 4"
        elif not shown:
            problem = f"concealed kong {desc}: no tile face up, cannot tell which"
        elif len(set(shown)) != 1 or not face_down:
            problem = (f"concealed kong {desc}: face-up tiles differ" if face_down
                       else f"meld {desc}: no sideways tile")
            fix = _repair_meld(flat, _concealed_kong)
            if fix is not None:
                kinds, changed = fix
                tiles = tuple(None if k == T.BACK else k for k in kinds)
                shown = [k for k in tiles if k is not None]
                return (replace(mot, tiles=tiles, meld=Meld(KONG, shown[0], concealed=True)),
                        f"{problem} as read; read as [{_codes(tiles)}] ({changed})")
        if problem:
            return mot, problem
        k = shown[0]
        if k == T.WHITE and tiles not in ((None, k, k, None), (k, None, None, k)) and face_down == 3:
            # a white dragon's face is blank in some sets: one face up among three backs is a kong shown face
            # down at both ends, one of its middle faces taken for a back
            full = (None, k, k, None)
            return (replace(mot, tiles=full, meld=Meld(KONG, k, concealed=True)),
                    f"concealed kong {desc}: read as [{_codes(full)}] (a blank white dragon taken for a back)")
        if face_down == 1:
            # a concealed kong is laid with two faces and two backs, the ends alike: three faces and one back
            # is one back read as a face (a pale back taken for a blank white dragon, say). The back shown says
            # which: at an end, both ends are backs; in the middle, both middles are
            full = (None, k, k, None) if tiles[0] is None or tiles[3] is None else (k, None, None, k)
            return (replace(mot, tiles=full, meld=Meld(KONG, k, concealed=True)),
                    f"concealed kong {desc}: read as [{_codes(full)}] (two faces and two backs, ends alike)")
        return replace(mot, meld=Meld(KONG, k, concealed=True)), None
    if sideways is None:
        return mot, f"meld {desc}: no sideways tile"
    note = None
    kind = _set_kind(shown)
    if kind is None:
        fix = _repair_meld(flat + added, lambda ks: T.BACK not in ks and _set_kind(ks) is not None)
        if fix is None and guess:
            fix = _odd_one_out(flat + added)
        if fix is None:
            return mot, f"meld {desc}: not a chow, pung or kong"
        kinds, note = fix
        tiles = tuple(kinds[:len(flat)])
        shown = list(kinds)
        kind = _set_kind(shown)
        mot = replace(mot, tiles=tiles)
        note = f"meld {desc}: not a set as read; read as [{_codes(tiles)}] ({note})"
    ts = sorted(shown)
    source = source_of_sideways(sideways, len(flat))
    claimed = tiles[sideways] if kind == CHOW else None
    return replace(mot, meld=Meld(kind, ts[0], concealed=False, source=source, claimed=claimed,
                                  added=bool(added))), note


def _distinct_flowers(flowers: list[_Tile], notes: list[str]) -> tuple[int, ...]:
    """The flowers' kinds. A set holds one of each flower: if two read the same, the most likely distinct
    reading among the candidate kinds is taken (and reported); without one, the reading stays as it is."""
    kinds = tuple(t.kind for t in flowers)
    if len(set(kinds)) == len(kinds) or len(kinds) > 8:
        return kinds
    options = [[(k, p) for k, p in (t.det.candidates or ((t.kind, 1.0),)) if T.is_flower(k)] or [(t.kind, 1.0)]
               for t in flowers]
    best, _ = _likeliest(options, lambda ks: len(set(ks)) == len(ks))
    if best is None:
        return kinds
    best = tuple(best)
    notes.append("flowers read " + " ".join(T.code(k) for k in kinds) + ": each flower is unique; read as "
                 + " ".join(T.code(k) for k in best))
    return best


def _set_kind(shown: list[int]) -> Optional[str]:
    """PUNG, CHOW or KONG if the face-up tiles of a claimed meld form one, else None."""
    ts = sorted(shown)
    n = len(ts)
    if n == 3 and ts[0] == ts[2]:
        return PUNG
    if n == 3 and T.is_suited(ts[0]) and ts[1] == ts[0] + 1 and ts[2] == ts[0] + 2 and T.suit(ts[0]) == T.suit(ts[2]):
        return CHOW
    if n == 4 and ts[0] == ts[3]:
        return KONG
    return None


# A claimed meld on the table is a chow, pung or kong: if the tiles as read are not one, the most likely set
# among the classifier's other candidates is taken when it is at least this likely relative to the reading
# (an illegal meld really laid down is far rarer than one misread tile). The change is reported.
REPAIR_RATIO = 0.02
EDGE_WEAK = 0.3         # a box on the frame's edge less sure than this and ...
EDGE_CUT = 0.6          # ... narrower than this many times the median box is cut by the frame
ODD_UNSURE = 0.6        # a claimed meld's one odd tile among alike ones, read less surely than this, is one of them


def _codes(tiles) -> str:
    return " ".join("back" if t is None else T.code(t) for t in tiles)


def _concealed_kong(kinds: list[int]) -> bool:
    """Four tiles shown as a concealed kong: at least one face down, the face-up ones one playing kind."""
    faces = {k for k in kinds if k != T.BACK}
    return len(kinds) == 4 and T.BACK in kinds and len(faces) == 1 and 0 <= min(faces) < T.N_KINDS


def _likeliest(options: list, valid) -> tuple[Optional[list[int]], float]:
    """The likeliest choice of one (kind, probability) per tile that ``valid`` accepts, and its probability."""
    best, best_p = None, 0.0
    for combo in itertools.product(*options):
        p = math.prod(q for _, q in combo)
        if p > best_p and valid([k for k, _ in combo]):
            best, best_p = [k for k, _ in combo], p
    return best, best_p


def _repair_meld(ts: list[_Tile], valid) -> Optional[tuple[list[int], str]]:
    """The most likely reading that ``valid`` accepts, from the detections' candidate kinds (a face-down tile
    is kind BACK): (kinds in order, what changed), or None."""
    options = [t.det.candidates or ((t.kind, 1.0),) for t in ts]
    if len(options) > 4 or all(len(o) == 1 and o[0][0] == t.kind for o, t in zip(options, ts)):
        return None         # nothing else to read (a locator's face-up vote may leave the kind off the list)
    read_p = math.prod(dict(o).get(t.kind, 1e-3) for o, t in zip(options, ts))
    best, best_p = _likeliest(options, valid)
    if best is None or best_p < REPAIR_RATIO * read_p:
        return None
    changed = ", ".join(f"{T.code(t.kind)}->{T.code(k)} p={dict(o)[k]:.2f}"
                        for t, k, o in zip(ts, best, options) if k != t.kind)
    return best, changed


def _odd_one_out(ts: list[_Tile]) -> Optional[tuple[list[int], str]]:
    """A claimed meld of 3 or 4 face-up tiles, all alike but one read unsurely: no chow holds two alike tiles,
    so it is a pung (kong) of them and the odd tile was misread. (kinds in order, what changed), or None."""
    kinds = [t.kind for t in ts]
    if len(ts) not in (3, 4) or T.BACK in kinds:
        return None
    k, n = Counter(kinds).most_common(1)[0]
    odd = next((t for t in ts if t.kind != k), None)
    if n != len(ts) - 1 or odd is None:
        return None
    p = dict(odd.det.candidates).get(odd.kind, odd.det.confidence)   # no candidates: a file's confidence
    if p >= ODD_UNSURE:
        return None
    return [k] * len(ts), f"{T.code(odd.kind)}->{T.code(k)} p={p:.2f}: only a pung holds two alike tiles"


def _chunk_ok(g: list[_Tile]) -> bool:
    """A run of tiles that reads as exactly one meld (as read, or repaired from the candidates; not the
    readings that complete a group from part of it, which are for a group on its own, never a piece cut from
    a longer run)."""
    if len(g) not in (3, 4):
        return False
    mot = _read_meld(g, guess=False)[0]
    return mot.meld is not None and len(mot.tiles) + sum(t.added for t in g) == len(g)


def _gap_after(a: _Tile, b: _Tile) -> float:
    ext = (a.w * (ASPECT if a.side else 1) + b.w * (ASPECT if b.side else 1)) / 2
    return ((b.u - a.u) - ext) / ((a.w + b.w) / 2)


def _partition_melds(g: list[_Tile]) -> Optional[list[list[_Tile]]]:
    """Split a run of melds laid too close together into single melds (each a valid chow/pung/kong with one
    sideways tile, or a concealed kong), cutting where the gaps are largest. None if no such split exists."""
    n = len(g)
    best: list[Optional[tuple[float, list[int]]]] = [None] * (n + 1)
    best[0] = (0.0, [])
    for i in range(n):
        if best[i] is None:
            continue
        for size in (3, 4):
            j = i + size
            if j > n or not _chunk_ok(g[i:j]):
                continue
            score = best[i][0] + (_gap_after(g[j - 1], g[j]) if j < n else 0.0)
            if best[j] is None or score > best[j][0]:
                best[j] = (score, best[i][1] + [j])
    if best[n] is None:
        return None
    cuts = [0] + best[n][1]
    return [g[a:b] for a, b in zip(cuts, cuts[1:])]


def _melds_of(g: list[_Tile]) -> Optional[list[list[_Tile]]]:
    """The melds a run reads as: itself if it is one, else its split into melds; None if neither."""
    return [g] if _chunk_ok(g) else _partition_melds(g)


def _melds_ok(g: list[_Tile]) -> bool:
    """A run that reads as one meld or splits into melds."""
    return _melds_of(g) is not None


def _split_melds(g: list[_Tile]) -> tuple[list[list[_Tile]], Optional[_Tile]]:
    """A run where melds lie, as melds: (the melds, or [g] when it reads as none; the box left out to read
    it, or None). A run that reads as no melds may without one box: much less sure than the run (WEAK_END x
    the median), or face down (an object or a shadow the locator took for a back beside a meld); the least
    sure such box of the three least sure is left out."""
    parts = _melds_of(g)
    if parts is not None or len(g) < 4:
        return parts or [g], None
    median = _median([t.det.confidence for t in g])
    for t in sorted((t for t in g if t.det.confidence < WEAK_END * median or t.back),
                    key=lambda t: t.det.confidence)[:3]:
        parts = _melds_of([o for o in g if o is not t])
        if parts is not None:
            return parts, t
    return [g], None


def _rejoin(groups: list[list[_Tile]]) -> list[list[_Tile]]:
    """Neighbouring groups in a row of melds that are no melds on their own but are together, and lie less
    than REJOIN_GAP tile widths apart, are one: a gap opened inside a meld (a box too narrow for its tile, a
    sideways tile not seen as one)."""
    out: list[list[_Tile]] = []
    for g in groups:
        if (out and not (_melds_ok(out[-1]) and _melds_ok(g)) and _gap_after(out[-1][-1], g[0]) < REJOIN_GAP
                and not any(t.back for t in out[-1] + g) and _melds_ok(out[-1] + g)):
            out[-1] = out[-1] + g
        else:
            out.append(list(g))
    return out


def _lone_backs(g: list[_Tile]) -> bool:
    """Face-down tiles alone in a group: a concealed kong only as four; fewer or more belong nowhere, unless
    they are three with one lying across (a claimed pung of blank white dragons, _blank_set)."""
    return all(t.back for t in g) and len(g) != 4 and not _blank_set(g)


def _blank_set(g: list[_Tile]) -> bool:
    """Three or four backs with exactly one lying across their row: no face-down tile lies sideways in a meld,
    so this is a claimed pung or kong of white dragons, whose face is blank in some sets."""
    return 3 <= len(g) <= 4 and all(t.back for t in g) and sum(t.side for t in g) == 1


def _is_meld_group(g: list[_Tile]) -> bool:
    """A group laid out as a meld: it holds a sideways or face-down tile, or it is four tiles the classifier
    finds likelier to be a concealed kong with pale backs read as faces than what it read."""
    if 2 <= len(g) <= 5 and any(t.side or t.back for t in g):
        return True
    return len(g) == 4 and _repair_meld(g, _concealed_kong) is not None


def _extent(t: _Tile, theta: float) -> tuple[float, float]:
    """The box's extent along the row (u) and across it (v) in the row frame."""
    x1, y1, x2, y2 = t.det.box
    c, s = math.cos(theta), math.sin(theta)
    us = [x * c + y * s for x in (x1, x2) for y in (y1, y2)]
    vs = [-x * s + y * c for x in (x1, x2) for y in (y1, y2)]
    return max(us) - min(us), max(vs) - min(vs)


def _merged_added_pair(g: list[_Tile], theta: float) -> Optional[_Tile]:
    """An added kong (加杠) whose claimed tile and the tile stacked on it came out as ONE box: two upright tiles
    of one kind beside a box longer along the row than theirs (a tile lying sideways) and also taller (a second
    tile on it). Turns that box into the claimed tile and returns a second tile for the added one."""
    if len(g) != 3 or any(t.back or t.added for t in g):
        return None
    ext = [_extent(t, theta) for t in g]
    for i, t in enumerate(g):
        others = [o for j, o in enumerate(g) if j != i]
        if others[0].kind != others[1].kind or any(o.side for o in others) or not 0 <= others[0].kind < T.N_KINDS:
            continue
        du = float(np.mean([e[0] for j, e in enumerate(ext) if j != i]))
        dv = float(np.mean([e[1] for j, e in enumerate(ext) if j != i]))
        if ext[i][0] >= MERGED_WIDE * du and ext[i][1] >= MERGED_TALL * dv:
            kind = others[0].kind
            t.det = replace(t.det, kind=kind, orientation=SIDEWAYS)
            t.side = True
            return _Tile(t.i, t.det, t.x, t.y, t.s, t.u, t.v - 0.5 * t.w, t.w, side=True, added=True)
    return None


def _split_merged_pair(g: list[_Tile], theta: float, notes: list[str]) -> None:
    """_merged_added_pair on a group: the second tile joins it, and a note says so."""
    pair = _merged_added_pair(g, theta)
    if pair is not None:
        g.append(pair)
        notes.append(f"one box {_describe(pair)} covers the claimed tile of a kong and the tile added on it (加杠): "
                     f"read as two {T.code(pair.kind)}")


def _wide_in_row(t: _Tile, tiles: list[_Tile], theta: float) -> bool:
    """A face-up box not marked sideways but as long along the row as a sideways tile (MERGED_WIDE times its
    upright neighbours): a claimed tile whose label missed that it lies across (or one box over it and more)."""
    if t.side or t.back:
        return False
    ups = [_extent(n, theta)[0] for n in tiles if n is not t and not n.side and not n.back
           and abs(n.v - t.v) < 0.5 * t.w and 0 < abs(n.u - t.u) < 2.5 * t.w]
    return bool(ups) and _extent(t, theta)[0] >= MERGED_WIDE * _median(ups)


def _stack_added(tiles: list[_Tile], theta: float) -> list[_Tile]:
    """Tiles stacked on a claimed sideways tile (an added kong, 加杠): the same kind, lying the same way,
    just beyond it (farther from the player). Marks them (added, sideways) and returns them. The stacked tile
    may already be read as sideways (when it shares the meld's row) or not (a row of its own). The claimed tile
    may be labelled upright if its box is as long as a sideways tile's and a sideways-labelled tile lies on it."""
    out = []
    for t in tiles:
        if t.added or t in out:
            continue
        wide = _wide_in_row(t, tiles, theta)
        if not t.side and not wide:
            continue
        # the meld's other tiles, beside the sideways one in its row
        beside = {n.kind for n in tiles if n is not t and not n.back and abs(n.v - t.v) < 0.5 * t.w
                  and 0 < abs(n.u - t.u) < 1.6 * t.w}
        for o in tiles:
            if o is t or o.added or o in out or t.back or o.back or (wide and not o.side):
                continue
            # the claimed tile under the added one may show only a sliver: its box is smaller than a tile, and
            # either box's size bounds how far apart they may lie
            w, lo = max(t.w, o.w), min(t.w, o.w)
            if not (abs(o.u - t.u) < 0.4 * w and STACK_NEAR * lo < t.v - o.v < 1.6 * w):
                continue
            same_way = (wide or _label_axis(o.det.orientation) == _label_axis(t.det.orientation)
                        if _label_axis(o.det.orientation) is not None else True)
            if o.kind == t.kind:
                if not same_way:
                    continue
            elif abs(o.u - t.u) < STACK_SQUARE * w:
                # the claimed tile under the added one shows only its edge, the added one lies on it: two boxes
                # squarely one on the other are one kind, the meld's (shown beside them), or else the surer one's
                # if the other is much less sure and they lie the same way
                weak, sure = (t, o) if t.det.confidence < o.det.confidence else (o, t)
                kinds = {o.kind, t.kind} & beside
                if len(kinds) == 1:
                    kind = kinds.pop()
                elif same_way and weak.det.confidence < STACK_WEAK * sure.det.confidence:
                    kind = sure.kind
                else:
                    continue
                for x in (o, t):
                    if x.kind != kind:
                        x.det = replace(x.det, kind=kind, orientation=SIDEWAYS)
            else:
                continue
            o.added = o.side = True
            if wide:                        # both are one kind by now: the claimed tile lies across
                t.side = True
                t.det = replace(t.det, orientation=SIDEWAYS)
            out.append(o)
            break
    return out


def _halves(rows: list[list[_Tile]], gap: float = HALF_GAP) -> list[tuple[_Tile, _Tile]]:
    """Neighbouring face-up boxes in a row whose centres are too close for two tiles (touching tiles' centres
    are a tile width apart or more): one tile, mostly a sideways one, found as two overlapping halves."""
    out = []
    for r in rows:
        if len(r) < 2:
            continue
        w = float(np.median([t.w for t in r]))
        taken: set[int] = set()
        for a, b in zip(r, r[1:]):
            if (a.back or b.back or a.added or b.added or id(a) in taken or T.is_flower(a.kind) != T.is_flower(b.kind)
                    or b.u - a.u >= gap * w or abs(b.v - a.v) >= 0.35 * w):
                continue
            out.append((a, b))
            taken |= {id(a), id(b)}
    return out


def _merge_halves(a: _Tile, b: _Tile) -> tuple[_Tile, _Tile]:
    """(one tile over both boxes, the box dropped): the surer box's reading over the union of the two."""
    keep, drop = (a, b) if a.det.confidence >= b.det.confidence else (b, a)
    x1, y1 = min(a.det.box[0], b.det.box[0]), min(a.det.box[1], b.det.box[1])
    x2, y2 = max(a.det.box[2], b.det.box[2]), max(a.det.box[3], b.det.box[3])
    det = replace(keep.det, box=(x1, y1, x2, y2), orientation_p=())
    t = _Tile(keep.i, det, (x1 + x2) / 2, (y1 + y2) / 2, math.sqrt((x2 - x1) * (y2 - y1)))
    t.w = max(a.w, b.w)
    return t, drop


def _merge_all(tiles: list[_Tile], pairs) -> tuple[list[_Tile], list[_Tile], list[str]]:
    """Tiles with each pair of halves merged; the dropped boxes; a note for each."""
    gone = {id(x) for p in pairs for x in p}
    merged, dropped, notes = [], [], []
    for a, b in pairs:
        t, d = _merge_halves(a, b)
        merged.append(t)
        dropped.append(d)
        notes.append(f"boxes {_describe(a)} and {_describe(b)} lie over one tile (a sideways tile found as two "
                     f"halves): read as one {T.code(t.kind)}")
    return [t for t in tiles if id(t) not in gone] + merged, dropped, notes


# --------------------------------------------------------------------------------------------- phone


def _describe(t: _Tile) -> str:
    return f"{T.code(t.kind)} at ({t.x:.0f},{t.y:.0f})"


def _isolated(t: _Tile, others: list[_Tile]) -> bool:
    return all(math.hypot(o.x - t.x, o.y - t.y) > ISOLATED * t.w for o in others if o is not t)


def _flowers_inside_rows(tiles: list[_Tile]) -> list[str]:
    """A weak flower box in a row of suit tiles (touching one on each side, or at the row's end touching one and
    no flower) belongs to the hand or its melds (two stacked tiles of an added kong found as one box, a
    sideways tile misread, say): it is read as its likeliest suit tile. Returns notes."""
    notes = []
    for t in tiles:
        if T.is_flower(t.kind) and t.det.confidence < WEAK_FLOWER and _inside_a_row(t, tiles):
            k = next((k for k, _ in t.det.candidates if 0 <= k < T.N_KINDS), None)
            if k is not None:
                notes.append(f"weak flower box {_describe(t)} lies in a row of suit tiles: read as {T.code(k)}")
                t.det = replace(t.det, kind=k)
    return notes


def _touching(t: _Tile, tiles: list[_Tile], flowers: bool, reach: float = 1.4) -> list[_Tile]:
    """Face-up tiles near this one (centres closer than ``reach`` x the larger scale): flowers, or suit tiles.
    Touching tiles' centres lie about 1.0 scale apart (an upright and a sideways one), tiles set apart by a
    gap 1.3 or more."""
    return [o for o in tiles if o is not t and T.is_flower(o.kind) == flowers and not o.back
            and math.hypot(o.x - t.x, o.y - t.y) < reach * max(o.s, t.s)]


def _inside_a_row(t: _Tile, tiles: list[_Tile]) -> bool:
    """Suit tiles touch this one on opposite sides, or one touches it closely and no flower is near."""
    if _touching(t, tiles, flowers=False, reach=TOUCH_CLOSE) and not _touching(t, tiles, flowers=True):
        return True
    near = _touching(t, tiles, flowers=False)
    for a, b in itertools.combinations(near, 2):
        va, vb = np.array([a.x - t.x, a.y - t.y]), np.array([b.x - t.x, b.y - t.y])
        if float(va @ vb) < -0.8 * float(np.linalg.norm(va) * np.linalg.norm(vb)):
            return True
    return False


def _flowers_beside_flowers(tiles: list[_Tile]) -> list[str]:
    """A tile touching a flower whose reading gives a flower some chance is a flower too (flowers lie together,
    apart from the hand; their faces are pictures the classifier may take for a suit tile). Returns notes."""
    notes = []
    grew = True
    while grew:
        grew = False
        flowers = [t for t in tiles if T.is_flower(t.kind)]
        for t in tiles:
            if T.is_flower(t.kind) or t.back:
                continue
            options = [(k, p) for k, p in t.det.candidates if T.is_flower(k) and p >= FLOWER_BESIDE]
            if options and any(math.hypot(f.x - t.x, f.y - t.y) < 1.2 * max(f.s, t.s) for f in flowers):
                k = options[0][0]
                notes.append(f"tile {_describe(t)} touches the flowers and may be {T.code(k)} "
                             f"(p={options[0][1]:.2f}): read as {T.code(k)}")
                t.det = replace(t.det, kind=k)
                grew = True
    return notes


def _promote_widest(g: list[_Tile]) -> bool:
    """A set of three or four face-up tiles where melds lie, none marked sideways, one of them clearly the
    widest along the row: a claimed meld whose sideways tile the labels missed (a face alike turned a quarter:
    1p, 8s, 5z). Marks that tile sideways; True if it did."""
    if not 3 <= len(g) <= 4 or any(t.side or t.back or t.added for t in g) or _set_kind([t.kind for t in g]) is None:
        return False
    lean = sorted(g, key=lambda t: -t.lean)
    if lean[0].lean >= LEAN_MIN and lean[0].lean - lean[1].lean >= LEAN_MARGIN:
        lean[0].side = True
        return True
    return False


def _cut_by_frame(dets: list[Detection], kept: list[int], frame: Optional[tuple[int, int]]) -> list[int]:
    """Weak boxes on the frame's edge, much narrower than a tile: a tile (or an object) cut by the frame."""
    if frame is None or len(kept) < 2:
        return []
    w, h = frame
    med = _median([min(b[2] - b[0], b[3] - b[1]) for b in (dets[i].box for i in kept)])
    out = []
    for i in kept:
        x1, y1, x2, y2 = dets[i].box
        if ((x1 <= 1 or y1 <= 1 or x2 >= w - 1 or y2 >= h - 1) and dets[i].confidence < EDGE_WEAK
                and min(x2 - x1, y2 - y1) < EDGE_CUT * med):
            out.append(i)
    return out


def parse_phone(dets: list[Detection], frame: Optional[tuple[int, int]] = None) -> Layout:
    """Read a phone photo of one player's finished hand. frame: the image's (width, height), when known."""
    if not dets:
        raise LayoutError("no tiles detected")
    kept, dropped = _dedupe(dets)
    placed = {i: Placed(dets[i], None, "duplicate") for i in dropped}
    unplaced = [f"duplicate detection of {T.code(dets[i].kind)} dropped" for i in dropped]
    cut = _cut_by_frame(dets, kept, frame)
    if len(cut) < len(kept):
        kept = [i for i in kept if i not in cut]
        for i in cut:
            placed[i] = Placed(dets[i], None, "unplaced")
            x1, y1, x2, y2 = dets[i].box
            unplaced.append(f"weak narrow box {T.code(dets[i].kind)} at ({(x1 + x2) / 2:.0f},{(y1 + y2) / 2:.0f}) "
                            f"on the frame's edge: a tile or an object cut by the frame, not placed")
    tiles = _tiles(dets, kept)
    unplaced += _flowers_beside_flowers(tiles) + _flowers_inside_rows(tiles)
    flowers = [t for t in tiles if T.is_flower(t.kind)]
    core = [t for t in tiles if not T.is_flower(t.kind)] or tiles
    theta = _nn_angle(np.array([(t.x, t.y) for t in core]), 2)
    fr = _frame(core, theta)
    vote = _direction_votes(core, fr.theta)
    if vote < 0 or (vote == 0 and _structure_says_flip(fr)):
        fr = _frame(core, fr.theta + math.pi, refine=False)
    theta = fr.theta
    pairs = _halves(fr.rows)
    halves: list[_Tile] = []
    if pairs:
        core, halves, half_notes = _merge_all(core, pairs)
        unplaced += half_notes
        fr = _frame(core, theta, refine=False)
    for t in halves:
        placed[t.i] = Placed(t.det, None, "duplicate")
    _rotate(flowers, theta)
    for t in flowers:
        t.w = fr.k * t.s

    # stacked tiles (added kong) leave their row and join the meld below them
    for t in _stack_added(core, fr.theta):
        for g in fr.groups:
            if t in g:
                g.remove(t)
        host = min((g for g in fr.groups if any(o.side and o.kind == t.kind for o in g)),
                   key=lambda g: min(abs(o.u - t.u) + abs(o.v - t.v) for o in g))
        host.append(t)
    for g in fr.groups:
        _split_merged_pair(g, fr.theta, unplaced)
    groups = []
    shadows: list[tuple[_Tile, str]] = []
    for g in fr.groups:
        if g and any(t.side or t.back for t in g):
            parts, spoiler = _split_melds(g)
            if spoiler is not None:
                where = "at the end of a meld" if spoiler in (g[0], g[-1]) else "between melds"
                shadows.append((spoiler, f"{where}: a shadow, not a tile (the melds read without it)"))
            groups += parts
        elif g:
            groups.append(g)

    loose_backs = [g for g in groups if _lone_backs(g)]
    # face-down tiles far from every other tile: an object on the table, not a concealed kong of this hand
    far_backs = [g for g in groups if all(t.back for t in g) and g not in loose_backs
                 and all(_isolated(t, [o for o in core if o not in g]) for t in g)]
    groups = [g for g in groups if g not in loose_backs and g not in far_backs]
    for g in groups:
        # one face-down box beside one face-up tile is no meld (a meld is three or four tiles): a shadow beside a
        # tile set apart, such as the winning tile
        if len(g) == 2 and sum(t.back for t in g) == 1 and not any(t.side for t in g):
            t = next(t for t in g if t.back)
            g.remove(t)
            shadows.append((t, "beside a lone tile: a meld is three or four tiles; a shadow, not a tile"))
    # a set of three or four face-up tiles apart in a row of melds, one of them clearly the widest along the
    # row: a claimed meld whose sideways tile the labels missed (a face alike turned a quarter: 1p, 8s, 5z)
    is_meld = [_is_meld_group(g) for g in groups]
    meld_rows = {_row_index(fr.rows, g[0]) for g, m in zip(groups, is_meld) if m}
    for n, g in enumerate(groups):
        if not is_meld[n] and _row_index(fr.rows, g[0]) in meld_rows and _promote_widest(g):
            is_meld[n] = True
    melds = [g for g, m in zip(groups, is_meld) if m]
    rest = [g for g, m in zip(groups, is_meld) if not m]
    for g in melds:                 # a meld cut from a longer run of melds may be an added kong seen as one box
        _split_merged_pair(g, fr.theta, unplaced)
    # the concealed tiles of a finished hand are shown face up: a face-down box inside the hand row (a shadow,
    # say) is not a tile of it, and the space it bridged may be the gap before the winning tile
    in_row = [t for g in rest for t in g if t.back and len(g) > 1]
    if in_row:
        rest = [h for g in rest for h in (_split_groups([t for t in g if not t.back]) if len(g) > 1 else [g])
                if h]
    area = PlayerArea(seat="self")
    notes: list[str] = [f"face-down tile(s) {', '.join(_describe(t) for t in g)} are not a concealed kong "
                        f"(4 tiles): not placed" for g in loose_backs]
    notes += [f"face-down tiles {', '.join(_describe(t) for t in g)} lie far from the hand: not placed"
              for g in far_backs]
    loose_backs += far_backs
    notes += [f"face-down box {_describe(t)} inside the concealed row: not a tile of the hand" for t in in_row]
    loose_backs.append(in_row)
    notes += [f"box {_describe(t)} {why}" for t, why in shadows]
    loose_backs.append([t for t, _ in shadows])
    stray: list[_Tile] = [t for g in rest if len(g) == 1 for t in g if _isolated(t, core)]
    stray += [t for g in loose_backs for t in g]
    rest = [g for g in rest if not (len(g) == 1 and g[0] in stray)]

    mots = []
    for g in melds:
        mot, problem = _read_meld(g)
        mots.append(mot)
        if problem:
            notes.append(problem)
    n_melds = len(melds)
    expected = 13 - 3 * n_melds

    # one tile too many for the melds shown and one detection much less sure than the rest: drop it, and say so
    loose = [t for g in rest for t in g]
    if len(loose) == expected + 2 and len(loose) >= 3:
        weakest = min(loose, key=lambda t: t.det.confidence)
        median = float(np.median([t.det.confidence for t in loose]))
        if weakest.det.confidence < 0.5 and weakest.det.confidence < 0.7 * median:
            rest = [h for g in rest for h in ([[t for t in g if t is not weakest]] if weakest in g else [g]) if h]
            stray.append(weakest)
            notes.append(f"dropped the least sure detection {_describe(weakest)} "
                         f"(confidence {weakest.det.confidence:.2f}): one tile too many in the hand")
    multi = [g for g in rest if len(g) > 1]
    singles = [g[0] for g in rest if len(g) == 1]
    main = max(multi, key=len) if multi else None
    concealed = [t for g in multi for t in g]
    winning: Optional[_Tile] = None
    if singles:
        winning = min(singles, key=lambda t: _apart_cost(t, main))
        others = [t for t in singles if t is not winning]
        others.sort(key=lambda t: _apart_cost(t, main))
        while others and len(concealed) < expected:
            concealed.append(others.pop(0))
        stray += others
    elif main is not None and len(concealed) == expected + 1 and len(main) >= 2:
        # no tile stands apart but the hand has one tile too many: the winning tile was set apart by less
        # than a group gap. Take the last tile of the row if its gap is clearly the widest there (of two
        # tiles: wider than touching tiles' spacing).
        row = sorted(main, key=lambda t: t.u)
        d = [b.u - a.u for a, b in zip(row, row[1:])]
        typical = float(np.median(d[:-1])) if len(d) > 1 else (row[0].w + row[1].w) / 2
        if d[-1] > WIN_GAP * typical and d[-1] == max(d):
            winning = row[-1]
            concealed.remove(winning)
            notes.append(f"winning tile {_describe(winning)} taken from the end of the hand row: "
                         f"set apart by a narrow gap")
    concealed.sort(key=lambda t: (_row_index(fr.rows, t), t.u))
    # a concealed kong shown as 4 face-down tiles in the hand row cannot be part of the hand
    if any(t.back for t in concealed):
        notes.append(f"{sum(t.back for t in concealed)} face-down tile(s) among the concealed tiles")
    n_have = len(concealed) + (0 if winning is None else 1)
    if n_have != expected + 1:
        notes.append(f"hand shows {len(concealed)} concealed tile(s)"
                     f"{' + winning tile' if winning is not None else ''} with {n_melds} meld(s);"
                     f" a finished hand needs {expected} + 1")
    for t in stray:
        if not any(_describe(t) in n for n in notes):
            notes.append(f"tile {_describe(t)} is not part of the hand")

    area.concealed = tuple(t.kind for t in concealed if not t.back)
    area.concealed_face_down = sum(t.back for t in concealed)
    area.melds = tuple(mots)
    area.winning_tile = winning.kind if winning is not None else None
    area.winning_tile_apart = winning is not None
    far = [t for t in flowers if _isolated(t, core + flowers)]
    flowers = [t for t in flowers if t not in far]
    stray += far
    for t in far:
        notes.append(f"tile {_describe(t)} is not part of the hand")
    flowers.sort(key=lambda t: (round(t.v / max(t.w, 1e-6)), t.u))
    area.flowers = _distinct_flowers(flowers, notes)
    area.declared_win = True

    for t in concealed:
        placed[t.i] = Placed(t.det, "self", "concealed", t.side)
    for n, g in enumerate(melds):
        for t in g:
            placed[t.i] = Placed(t.det, "self", f"meld:{n}", t.side or t.added)
    if winning is not None:
        placed[winning.i] = Placed(winning.det, "self", "winning", winning.side)
    for t in flowers:
        placed[t.i] = Placed(t.det, "self", "flower", t.side)
    for t in stray:
        placed[t.i] = Placed(t.det, None, "unplaced", t.side)
    table = TableState(players=[area], unplaced=unplaced + notes)
    return Layout(table, [placed[i] for i in sorted(placed)], PHONE, math.degrees(theta))


def _row_index(rows: list[list[_Tile]], t: _Tile) -> int:
    for n, r in enumerate(rows):
        if t in r:
            return n
    return len(rows)


def _apart_cost(t: _Tile, main: Optional[list[_Tile]]) -> float:
    """How unlikely t is the winning tile set apart: it should sit just right of the concealed row."""
    if main is None:
        return 0.0
    end = main[-1]
    du = (t.u - end.u) / end.w
    dv = abs(t.v - end.v) / end.w
    return dv * 2 + (abs(du - 1.8) if du > 0 else 4 + abs(du))


def _structure_says_flip(fr: _Frame) -> bool:
    """With labels silent (rows near vertical in the image) two cues tell which way the rows read:
    the winning tile set apart lies right of the concealed row, and a sideways tile lies on the row's
    near edge (towards the player), so its centre is nearer the player than its neighbours'."""
    vote = 0.0
    groups = [g for g in fr.groups if not _is_meld_group(g)]
    multi = [g for g in groups if len(g) > 1]
    singles = [g[0] for g in groups if len(g) == 1]
    if multi and singles:
        main = max(multi, key=len)
        row = [t for t in singles if abs(t.v - main[0].v) < main[0].w]
        right = sum(t.u > main[-1].u for t in row)
        vote += float(np.sign(right - (len(row) - right)))
    offsets = []
    for g in fr.groups:
        if not _is_meld_group(g):
            continue
        ups = [t for t in g if not t.side]
        for t in g:
            if t.side and ups:
                offsets.append((t.v - float(np.mean([o.v for o in ups]))) / t.w)
    if offsets and abs(float(np.mean(offsets))) > 0.05:
        vote += float(np.sign(np.mean(offsets)))
    return vote < 0


# --------------------------------------------------------------------------------------------- hand


def table_to_hand(area: PlayerArea, situation: Situation | None = None) -> Hand:
    """Turn one player's area into a Hand for the rule engines.

    The winning tile is the one set apart; if none was set apart the last tile of the concealed row
    (reading order) is taken and ``situation.winning_tile_apart`` is set False.
    Raises HandError if a meld could not be read or there is no concealed part at all.
    """
    situation = situation or Situation()
    bad = [m for m in area.melds if m.meld is None]
    if bad:
        desc = " ".join("[" + " ".join("back" if t is None else T.code(t) for t in m.tiles) + "]" for m in bad)
        raise HandError(f"could not read meld(s) {desc}")
    concealed = list(area.concealed or ())
    winning = area.winning_tile
    apart = area.winning_tile_apart and winning is not None
    if winning is None:
        if not concealed:
            raise HandError("no concealed tiles and no winning tile")
        winning = concealed.pop()
    return Hand(tuple(concealed), tuple(m.meld for m in area.melds), winning, tuple(area.flowers),
                replace(situation, winning_tile_apart=apart))


def parse(dets: list[Detection], kind: str = PHONE, frame: Optional[tuple[int, int]] = None) -> Layout:
    """frame: the image's (width, height), when known."""
    if kind == PHONE:
        return parse_phone(dets, frame)
    if kind == OVERHEAD:
        return parse_overhead(dets)
    raise ValueError(f"unknown frame kind {kind!r} (phone or overhead)")


# --------------------------------------------------------------------------------------------- overhead

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


def parse_overhead(dets: list[Detection]) -> Layout:
    """Read an overhead frame of the whole table (self at the bottom of the frame, to within 45 degrees)."""
    if not dets:
        raise LayoutError("no tiles detected")
    kept, dropped = _dedupe(dets, weak_dup=True)
    placed = {i: Placed(dets[i], None, "duplicate") for i in dropped}
    unplaced = [f"duplicate detection of {T.code(dets[i].kind)} dropped" for i in dropped]
    # among a hundred tiles, a face-up box the detector is this unsure of is a shadow or a seam, not a tile;
    # a white dragon goes by its box alone: the face is blank in some sets, so the locator and the classifier
    # dispute it with a back (a sure box is a tile, face up), and pale cards and discs on the cloth read as one
    # (an unsure box is not a tile, however sure the classifier)
    faint = [i for i in kept if (dets[i].kind == T.WHITE and _box_score(dets[i]) < FAINT_BOX)
             or (dets[i].kind not in (T.BACK, T.WHITE) and dets[i].confidence < FAINT)]
    kept = [i for i in kept if i not in faint]
    placed.update({i: Placed(dets[i], None, "unplaced") for i in faint})
    unplaced += [f"faint detection of {T.code(dets[i].kind)} (confidence {dets[i].confidence:.2f}) not placed"
                 for i in faint]
    tiles = _tiles(dets, kept)
    phi = _nn_angle(np.array([(t.x, t.y) for t in tiles]), 4)
    _rotate(tiles, phi)
    # tile width: from neighbours along rows, whatever their direction
    k = _overhead_width_factor(tiles)
    for t in tiles:
        t.w = k * t.s
    us, vs = [t.u for t in tiles], [t.v for t in tiles]
    cu, cv = (min(us) + max(us)) / 2, (min(vs) + max(vs)) / 2
    frames = _seat_frames(tiles, phi, k, cu, cv)
    du, dv = _centre_correction(frames)
    if du or dv:
        frames = _seat_frames(tiles, phi, k, cu + du, cv + dv)
    # in the meld areas only: a tile lying loose on the table may overlap a discard or a hand
    pairs = [p for sr in frames.values() for p in _halves(_zones(sr)[2], HALF_GAP_MELDS)]
    if pairs:
        tiles, halves, half_notes = _merge_all(tiles, pairs)
        for t in tiles:
            t.w = k * t.s
        unplaced += half_notes
        for t in halves:
            placed[t.i] = Placed(t.det, None, "duplicate")
        frames = _seat_frames(tiles, phi, k, cu + du, cv + dv)
    river = _river_model(frames)
    players = []
    notes: list[str] = []
    flowers: list[tuple[PlayerArea, _Tile]] = []
    for seat in SEATS:
        area, assign, seat_notes = _read_seat(seat, frames[seat], river[seat])
        players.append(area)
        notes += [f"{seat}: {n}" for n in seat_notes]
        for t, group in assign:
            placed[t.i] = Placed(t.det, seat if group != "unplaced" else None, group, t.side)
        flowers += [(area, t) for t, group in assign if group == "flower"]
    # a set holds one of each flower, on the whole table
    kinds = _distinct_flowers([t for _, t in flowers], notes)
    for area in players:
        area.flowers = tuple(k for (a, _), k in zip(flowers, kinds) if a is area)
    table = TableState(players=players, unplaced=unplaced + notes)
    return Layout(table, [placed[i] for i in sorted(placed)], OVERHEAD, math.degrees(phi))


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
        if hand:
            f["hand"] = float(np.mean([t.v for t in hand]))
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
    d = np.hypot(pts[:, None, 0] - pts[None, :, 0], pts[:, None, 1] - pts[None, :, 1])
    np.fill_diagonal(d, np.inf)
    nn = d.min(axis=1) / s
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
    """(hand row, wall rows, meld/flower rows, river-zone rows) of one seat."""
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
    hand = backs[n] if backs else None
    walls = [r for r in backs if r is not hand]
    y_hand = _mean([t.v for t in hand]) if hand else (max(t.v for r in faces for t in r) + sr.w if faces else 0)
    meldz = [r for r in faces if _mean([t.v for t in r]) > y_hand - MELD_ZONE * sr.w]
    riverz = [r for r in faces if r not in meldz]
    return hand, walls, meldz, riverz


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
    return float(np.median([x for x in d if 0.9 * low <= x <= 1.1 * low]))


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


def _river_model(frames: dict[str, _SeatRows]) -> dict[str, Optional[_River]]:
    """Each seat's river grid: its own first row, if that row lies where the other seats' rivers start
    (the table is symmetric) or holds RIVER_OWN tiles or more (tiles lie exposed one by one, not in rows; the
    table's centre, and so where the others start, can be off by a tile); otherwise the median start of the
    others (the seat discarded nothing yet and the tiles found there are exposed ones)."""
    starts = {seat: _river_start(sr) for seat, sr in frames.items()}
    known = {s: v for s, v in starts.items() if v is not None}
    if not known:
        return {s: None for s in frames}
    y_med = float(np.median([v[0] / v[2] for v in known.values()]))
    x_med = float(np.median([v[1] / v[2] for v in known.values()]))
    out: dict[str, Optional[_River]] = {}
    for seat, sr in frames.items():
        st = starts[seat]
        pitch = sr.pitch
        if st is not None and (st[3] >= RIVER_OWN or abs(st[0] / pitch - y_med) < 1.2
                               and (len(known) < 3 or abs(st[1] / pitch - x_med) < 1.5)):
            y0, x0 = st[0] / pitch, st[1] / pitch
        else:
            y0, x0 = y_med, x_med
        out[seat] = _River(y0, x0, _col_pitch(sr) / pitch, _row_pitch(sr) / pitch)
    return out


def _col_pitch(sr: _SeatRows) -> float:
    _, _, _, riverz = _zones(sr)
    d = [b.u - a.u for r in riverz for a, b in zip(r, r[1:]) if b.u - a.u < 1.5 * sr.pitch]
    return float(np.median(d)) if len(d) >= 2 else sr.pitch


def _row_pitch(sr: _SeatRows) -> float:
    _, _, _, riverz = _zones(sr)
    ys = sorted(float(np.mean([t.v for t in r])) for r in riverz if len(r) >= 2)
    d = [b - a for a, b in zip(ys, ys[1:]) if b - a < 1.9 * sr.pitch]
    return float(np.median(d)) if d else ASPECT * sr.pitch


def _count_touching(row: list[_Tile], pitch: float) -> int:
    """How many touching tiles a row holds, from its length rather than its boxes: a standing hand seen from
    above is a bar of identical backs whose seams barely show, so boxes split or merge inside it, while its
    two ends are clear."""
    if len(row) < 2 or pitch <= 0:
        return len(row)
    us = sorted(t.u for t in row)
    # the bar's own clean seams say its spacing too (perspective shrinks a far hand against its river): both
    # estimates are noisy, their mean is the better one
    clean = [b - a for a, b in zip(us, us[1:]) if 0.85 * pitch < b - a < 1.2 * pitch]
    if len(clean) >= 3:
        pitch = (pitch + float(np.median(clean))) / 2
    length = us[-1] - us[0]
    n = int(round(length / pitch)) + 1
    if len(row) < GRID_MIN_BOXES:
        return n

    def misfit(k):        # how far the boxes sit from a grid of k touching tiles spanning the bar, in pitches
        p = length / (k - 1)
        return float(np.median([abs(u - us[0] - round((u - us[0]) / p) * p) / p for u in us]))

    # the boxes themselves sit on a grid of the bar's true count; a count one off drifts off it along the bar
    # (the pitch estimate is off by a tenth when perspective makes a far seat's river look smaller)
    options = [k for k in (n - 1, n + 1)
               if k >= 2 and GRID_PITCH[0] * pitch <= length / (k - 1) <= GRID_PITCH[1] * pitch]
    best = min(options, key=misfit, default=None)
    if best is not None and misfit(best) < GRID_BETTER * misfit(n):
        return best
    return n


def _main_run(row: list[_Tile], pitch: float) -> tuple[list[_Tile], list[_Tile]]:
    """Split a row where neighbours are HAND_GAP pitches or more apart: (the run with most boxes, the rest)."""
    row = sorted(row, key=lambda t: t.u)
    runs = [[row[0]]]
    for a, b in zip(row, row[1:]):
        if b.u - a.u >= HAND_GAP * pitch:
            runs.append([])
        runs[-1].append(b)
    main = max(runs, key=len)
    off = [t for r in runs if r is not main for t in r]
    # a weak box at an end with a tile's space or more before it is a shadow or a neighbour's tile, not the
    # bar's end (the bar's own boxes touch; a tile missed inside it leaves sure boxes on both sides)
    med = float(np.median([t.det.confidence for t in main]))
    for end, nxt in ((0, 1), (-1, -2)):
        if (len(main) >= 3 and abs(main[end].u - main[nxt].u) >= HAND_END_GAP * pitch
                and main[end].det.confidence < HAND_END_WEAK * med):
            off.append(main.pop(end))
    # the bar's boxes touch (a pitch apart) or skip a missed tile (two pitches): a box at an end half a tile
    # off that grid is not the bar's (an object or its shadow in line with it), unless it is a merged pair
    s_med = _median([t.s for t in main])
    for end, nxt in ((0, 1), (-1, -2)):
        while (len(main) >= 4 and main[end].s < END_PAIR * s_med
               and END_OFF_GRID[0] * pitch < abs(main[end].u - main[nxt].u) < END_OFF_GRID[1] * pitch):
            off.append(main.pop(end))
    return main, off


def _read_seat(seat: str, sr: _SeatRows, river: Optional[_River]):
    area = PlayerArea(seat=seat, concealed=None, winning_tile_apart=False)
    assign: list[tuple[_Tile, str]] = []
    notes: list[str] = []
    hand, walls, meldz, riverz = _zones(sr)
    if hand:
        # a row of backs where melds lie (inside the hand row, well outside the wall) holding three or four with
        # one across: a claimed set of blank white dragons the locator called face down (and the flowers beside
        # it), not a wall (a wall lies along)
        inner = _mean([t.v for t in hand]) - MELD_ZONE * sr.w
        for r in [r for r in walls if _mean([t.v for t in r]) > inner
                  and any(_blank_set(g) for g in _split_groups(r))]:
            walls.remove(r)
            meldz.append(r)
    exposed: list[_Tile] = []
    flowers: list[_Tile] = []
    for r in walls:
        for t in r:
            if t.back:
                assign.append((t, "wall"))
            elif T.is_flower(t.kind):
                # a flower lies face up wherever it is put: one in line with a wall is the seat's, not exposed
                flowers.append(t)
            else:
                assign.append((t, "exposed"))
                exposed.append(t)
    # melds and flowers
    mots = []
    for r in meldz:
        rests = []
        for g in _split_groups(r):
            flowers += [t for t in g if T.is_flower(t.kind)]
            rest = [t for t in g if not T.is_flower(t.kind)]
            if rest:
                rests.append(rest)
        for rest in _rejoin(rests):
            if len(rest) == 1 and not rest[0].back:
                # one face-up tile on its own where melds lie is no meld: a tile exposed there, or if the
                # detector is unsure of it, a shadow or a reflection
                t = rest[0]
                if t.det.confidence < LONE_WEAK:
                    notes.append(f"lone weak box {_describe(t)} in the meld area: not placed")
                    assign.append((t, "unplaced"))
                else:
                    exposed.append(t)
                    assign.append((t, "exposed"))
                continue
            if _lone_backs(rest):
                notes.append(f"face-down tile(s) {', '.join(_describe(t) for t in rest)} in the meld area are "
                             f"not a concealed kong (4 tiles): not placed")
                assign += [(t, "unplaced") for t in rest]
                continue
            chunks, spoiler = _split_melds(rest)
            if spoiler is not None:
                notes.append(f"box {_describe(spoiler)} in seat {seat}'s melds, which read without it: "
                             f"a shadow, not a tile")
                assign.append((spoiler, "unplaced"))
            for chunk in chunks:
                _promote_widest(chunk)
                mot, problem = _read_meld(chunk)
                n = len(mots)
                mots.append(mot)
                if problem:
                    notes.append(problem)
                for t in chunk:
                    assign.append((t, f"meld:{n}"))
    area.melds = tuple(mots)
    if hand:
        area.concealed_face_down, shown = _read_hand(seat, hand, sr.pitch, len(mots), assign, notes)
        exposed = shown + exposed
    flowers.sort(key=lambda t: t.u)
    area.flowers = tuple(t.kind for t in flowers)
    for t in flowers:
        assign.append((t, "flower"))
    # river and exposed tiles
    discards, exp2, fl2 = _read_river([t for r in riverz for t in r], river, sr.pitch, notes)
    area.discards = tuple(t.kind for t in discards)
    if fl2:
        area.flowers += tuple(t.kind for t in fl2)
        assign += [(t, "flower") for t in fl2]
    # a face-down tile off the river grid shows nothing: not an exposed tile, but nowhere a tile should be
    stray = [t for t in exp2 if t.back]
    exp2 = [t for t in exp2 if not t.back]
    for t in stray:
        notes.append(f"face-down tile in the river zone at ({t.x:.0f},{t.y:.0f}), not placed")
    exposed += exp2
    area.exposed = tuple(t.kind for t in exposed)
    assign += ([(t, "discard") for t in discards] + [(t, "exposed") for t in exp2]
               + [(t, "unplaced") for t in stray])
    return area, assign, notes


def _read_hand(seat: str, hand: list[_Tile], pitch: float, n_melds: int, assign: list, notes: list[str]):
    """A seat's hand row seen from above: (how many face-down tiles, the face-up tiles in it). Appends to
    ``assign`` and ``notes``."""
    # a hand is one bar: boxes set off from it by a wide gap are something else lying in line with it
    hand, off = _main_run(hand, pitch)
    for t in off:
        notes.append(f"{_describe(t)} in line with the hand row but apart from it: not placed")
        assign.append((t, "unplaced"))
    # the row's length counts the tiles; face-up ones in it (shown tiles) are not face-down ones
    n = _count_touching(hand, pitch)
    # a very weak box at an end that makes a drawn hand's size (14 - 3 x melds) out of a waiting one's, or an
    # impossible size out of a drawn one's: a shadow (the detector's colour check leaves a shadow found as a back
    # this unsure), not a tile; a merely weak end box is mostly a real tile half out of sight
    legal = (13 - 3 * n_melds, 14 - 3 * n_melds)
    ends = sorted(hand, key=lambda t: t.u)[:: max(1, len(hand) - 1)] if len(hand) >= 4 else []
    med = _median([t.det.confidence for t in hand])
    weak = min(ends, key=lambda t: t.det.confidence, default=None)
    if (weak is not None and weak.back and weak.det.confidence < HAND_END_WEAK_EXTRA * med
            and n != legal[0] and n - 1 in legal):
        hand = [t for t in hand if t is not weak]
        n -= 1
        notes.append(f"weak box {_describe(weak)} at the end of seat {seat}'s hand row: not counted "
                     f"({n} tiles with {n_melds} meld(s); one more would be {n + 1})")
        assign.append((weak, "unplaced"))
    backs = [t for t in hand if t.back]
    face_down = max(len(backs) and 1, n - (len(hand) - len(backs)))
    if face_down != len(backs):
        notes.append(f"seat {seat}: hand row of {len(backs)} face-down boxes is {face_down} tiles long")
    for t in hand:
        assign.append((t, "concealed" if t.back else "exposed"))
    return face_down, [t for t in hand if not t.back]


def _read_river(ts: list[_Tile], river: Optional[_River], w: float, notes: list[str]):
    """Discards in order (slots of a grid 6 wide, filled row by row) and the exposed tiles around them."""
    flowers = [t for t in ts if T.is_flower(t.kind)]
    ts = [t for t in ts if not T.is_flower(t.kind)]
    if river is None or not ts:
        return [], ts, flowers
    slots: dict[int, tuple[float, _Tile]] = {}
    off: list[_Tile] = []
    for t in sorted(ts, key=lambda t: (t.v, t.u)):
        c = (t.u / w - river.x0) / river.px
        r = (t.v / w - river.y0) / river.py
        ci, ri = round(c), round(r)
        res = abs(c - ci) + abs(r - ri) + (1.0 if t.back else 0.0)    # a face-up tile wins a shared slot
        tol = 0.2 if t.back else 0.35         # a 'back' must sit squarely in its slot to be taken as a discard
        if abs(c - ci) > tol or abs(r - ri) > tol or not 0 <= ci < RIVER_COLS or ri < 0:
            off.append(t)
            continue
        idx = ri * RIVER_COLS + ci
        if idx in slots:                     # two tiles on one slot: the better aligned one is the discard
            if slots[idx][0] <= res:
                off.append(t)
                continue
            off.append(slots[idx][1])
        slots[idx] = (res, t)
    slots = {k: v[1] for k, v in slots.items()}
    discards: list[_Tile] = []
    last = -1
    order = sorted(slots)
    for n, idx in enumerate(order):
        # two or more empty slots before it, or one empty slot before the very last tile: not in the river
        if idx - last > 2 or (idx - last == 2 and n == len(order) - 1):
            off.append(slots[idx])
            continue
        if idx - last == 2:
            notes.append(f"discard slot {last + 1} empty (a tile missed?)")
        discards.append(slots[idx])
        last = idx
    # discards lie face up: a 'face-down' tile in its slot of the river is a blank white dragon (in a set with
    # pale backs the two look alike)
    for n, t in enumerate(discards):
        if t.back:
            notes.append(f"face-down box {_describe(t)} in river slot {n}: read as a white dragon")
            t.det = replace(t.det, kind=T.WHITE, orientation=UPRIGHT)
    return discards, off, flowers

