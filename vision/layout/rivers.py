"""The overhead view's zones of a seat: hand, melds, flowers, the discard river and exposed tiles."""
from __future__ import annotations

from dataclasses import replace
from typing import Optional

import numpy as np
from mjtable.scoring import tiles as T
from mjtable.scoring.table import (
    PlayerArea,
)

from ..types import UPRIGHT
from .base import current_params
from .flowers import flowers_beside_flowers, read_as_suit_tile
from .geometry import Tile, describe, mean, median, split_groups
from .melds import blank_set, is_meld_group, lone_backs, promote_widest, read_meld, rejoin, split_melds
from .seats import River, SeatRows, is_laid, river_start, zones
from .winning import laid_winning


def river_model(frames: dict[str, SeatRows]) -> dict[str, Optional[River]]:
    """Each seat's river grid: its own first row, if that row lies where the other seats' rivers start
    (the table is symmetric) or holds river_own tiles or more (tiles lie exposed one by one, not in rows; the
    table's centre, and so where the others start, can be off by a tile); otherwise the median start of the
    others (the seat discarded nothing yet and the tiles found there are exposed ones)."""
    lp = current_params()
    riverz = {seat: zones(sr).riverz for seat, sr in frames.items()}
    starts = {seat: river_start(sr, riverz[seat]) for seat, sr in frames.items()}
    known = {s: v for s, v in starts.items() if v is not None}
    if not known:
        return {s: None for s in frames}
    y_med = float(np.median([v[0] / v[2] for v in known.values()]))
    x_med = float(np.median([v[1] / v[2] for v in known.values()]))
    out: dict[str, Optional[River]] = {}
    for seat, sr in frames.items():
        st = starts[seat]
        pitch = sr.pitch
        if st is not None and (st[3] >= lp.river_own or abs(st[0] / pitch - y_med) < 1.2
                               and (len(known) < 3 or abs(st[1] / pitch - x_med) < 1.5)):
            y0, x0 = st[0] / pitch, st[1] / pitch
        else:
            y0, x0 = y_med, x_med
        rz = riverz[seat]
        out[seat] = River(y0, x0, _col_pitch(rz, pitch) / pitch, _row_pitch(rz, pitch) / pitch,
                          _row_shear(rz, pitch) / pitch)
    return out


def _col_pitch(riverz: list[list[Tile]], pitch: float) -> float:
    d = [b.u - a.u for r in riverz for a, b in zip(r, r[1:]) if b.u - a.u < 1.5 * pitch]
    return float(np.median(d)) if len(d) >= 2 else pitch


def _row_shear(riverz: list[list[Tile]], pitch: float) -> float:
    """How far (pixels) a river row's tiles lie along from those of the row before, each matched to the nearest
    there within half a pitch (median): 0 from straight above; a table photographed from a seat keeps some skew
    once its perspective is undone, and a third row of discards falls between the slots without it."""
    rows = sorted((r for r in riverz if len(r) >= 2), key=lambda r: float(np.mean([t.v for t in r])))
    d = []
    for a, b in zip(rows, rows[1:]):
        if float(np.mean([t.v for t in b]) - np.mean([t.v for t in a])) >= 1.9 * pitch:
            continue
        for t in b:
            du = min((t.u - o.u for o in a), key=abs)
            if abs(du) < 0.5 * pitch:
                d.append(du)
    return float(np.median(d)) if len(d) >= 3 else 0.0


def _row_pitch(riverz: list[list[Tile]], pitch: float) -> float:
    lp = current_params()
    ys = sorted(float(np.mean([t.v for t in r])) for r in riverz if len(r) >= 2)
    d = [b - a for a, b in zip(ys, ys[1:]) if b - a < 1.9 * pitch]
    return float(np.median(d)) if d else lp.aspect * pitch


def count_touching(row: list[Tile], pitch: float) -> int:
    """How many touching tiles a row holds, from its length rather than its boxes: a standing hand seen from
    above is a bar of identical backs whose seams barely show, so boxes split or merge inside it, while its
    two ends are clear."""
    lp = current_params()
    if len(row) < 2 or pitch <= 0:
        return len(row)
    us = sorted(t.u for t in row)
    # boxes evenly spaced, or spaced closer and closer as the bar recedes (a side seat seen from a seat), are one
    # box a tile: none split, merged or missing, whatever the pitch says
    gaps = np.diff(us)
    steps = gaps[1:] / np.maximum(gaps[:-1], 1e-6)
    if (len(steps) and (steps <= lp.seam_steps).all() and (steps >= 1 / lp.seam_steps).all()
            and (gaps >= lp.seam_gaps[0] * pitch).all() and (gaps <= lp.seam_gaps[1] * pitch).all()):
        return len(row)
    # the bar's own clean seams say its spacing too (perspective shrinks a far hand against its river): both
    # estimates are noisy, their mean is the better one
    clean = [b - a for a, b in zip(us, us[1:]) if 0.85 * pitch < b - a < 1.2 * pitch]
    if len(clean) >= 3:
        pitch = (pitch + float(np.median(clean))) / 2
    length = us[-1] - us[0]
    n = int(round(length / pitch)) + 1
    if len(row) < lp.grid_min_boxes:
        return n

    def misfit(k):        # how far the boxes sit from a grid of k touching tiles spanning the bar, in pitches
        p = length / (k - 1)
        return float(np.median([abs(u - us[0] - round((u - us[0]) / p) * p) / p for u in us]))

    # the boxes themselves sit on a grid of the bar's true count; a count one off drifts off it along the bar
    # (the pitch estimate is off by a tenth when perspective makes a far seat's river look smaller)
    options = [k for k in (n - 1, n + 1)
               if k >= 2 and lp.grid_pitch[0] * pitch <= length / (k - 1) <= lp.grid_pitch[1] * pitch]
    best = min(options, key=misfit, default=None)
    if best is not None and misfit(best) < lp.grid_better * misfit(n):
        return best
    return n


def main_run(row: list[Tile], pitch: float) -> tuple[list[Tile], list[Tile]]:
    """Split a row where neighbours are hand_gap pitches or more apart: (the run with most boxes, the rest)."""
    lp = current_params()
    row = sorted(row, key=lambda t: t.u)
    runs = [[row[0]]]
    for a, b in zip(row, row[1:]):
        if b.u - a.u >= lp.hand_gap * pitch:
            runs.append([])
        runs[-1].append(b)
    main = max(runs, key=len)
    off = [t for r in runs if r is not main for t in r]
    # a weak box at an end with a tile's space or more before it is a shadow or a neighbour's tile, not the
    # bar's end (the bar's own boxes touch; a tile missed inside it leaves sure boxes on both sides)
    med = float(np.median([t.det.confidence for t in main]))
    for end, nxt in ((0, 1), (-1, -2)):
        if (len(main) >= 3 and abs(main[end].u - main[nxt].u) >= lp.hand_end_gap * pitch
                and main[end].det.confidence < lp.hand_end_weak * med):
            off.append(main.pop(end))
    # the bar's boxes touch (a pitch apart) or skip a missed tile (two pitches): a box at an end half a tile
    # off that grid is not the bar's (an object or its shadow in line with it), unless it is a merged pair
    s_med = median([t.s for t in main])
    for end, nxt in ((0, 1), (-1, -2)):
        while (len(main) >= 4 and main[end].s < lp.end_pair * s_med
               and lp.end_off_grid[0] * pitch < abs(main[end].u - main[nxt].u) < lp.end_off_grid[1] * pitch):
            off.append(main.pop(end))
    return main, off


def read_seat(seat: str, sr: SeatRows, river: Optional[River]):
    lp = current_params()
    area = PlayerArea(seat=seat, concealed=None, winning_tile_apart=False)
    assign: list[tuple[Tile, str]] = []
    notes: list[str] = []
    hand, walls, meldz, riverz, clutter = zones(sr)
    assign += [(t, "unplaced") for t in clutter]     # none once table_clutter has run
    if hand:
        # a row of backs where melds lie (inside the hand row, well outside the wall) holding three or four with
        # one across: a claimed set of blank white dragons the locator called face down (and the flowers beside
        # it), not a wall (a wall lies along)
        inner = mean([t.v for t in hand]) - lp.meld_zone * sr.w
        for r in [r for r in walls if mean([t.v for t in r]) > inner
                  and any(blank_set(g) for g in split_groups(r))]:
            walls.remove(r)
            meldz.append(r)
    # a face-up tile in line with a wall that sits in the next slots of the river grid is a discard (a river's
    # new row begun beside the wall), not a tile exposed there
    moved = [t for r in walls for t in r
             if not t.back and not T.is_flower(t.kind) and _river_slot(t, river, sr.pitch) is not None]
    if moved:
        walls = [[t for t in r if t not in moved] for r in walls]
        riverz = riverz + [moved]
    exposed, flowers = _read_walls(walls, assign)
    mots: list = []
    for r in meldz:
        fl, exp = _read_meld_row(seat, r, mots, assign, notes)
        flowers += fl
        exposed += exp
    if is_laid(hand):
        flowers += _read_laid_hand(seat, area, hand, mots, assign, notes)
    area.melds = tuple(mots)
    if hand and not is_laid(hand):
        area.concealed_face_down, shown = _read_hand(seat, hand, sr.pitch, len(mots), assign, notes)
        exposed = shown + exposed
    # river and exposed tiles
    discards, exp2, fl2, unread = _read_river([t for r in riverz for t in r], river, sr.pitch, notes)
    area.discards = tuple(t.kind for t in discards)
    # a flower's face is a picture, which clutter (a score sheet, a coin, a phone's screen) and shadows read as
    # too: a box read as a flower must be surer than other faces to be placed (one in a river slot is read as
    # the discard there first)
    faint = [t for t in flowers + fl2 if t.det.confidence < lp.faint_flower]
    for t in faint:
        notes.append(f"faint flower box {describe(t)} (confidence {t.det.confidence:.2f}) not placed")
    flowers = sorted([t for t in flowers if t not in faint], key=lambda t: t.u) + [t for t in fl2 if t not in faint]
    area.flowers = tuple(t.kind for t in flowers)
    assign += [(t, "flower") for t in flowers] + [(t, "unplaced") for t in faint]
    # a face-down tile off the river grid shows nothing: not an exposed tile, but nowhere a tile should be
    stray = [t for t in exp2 if t.back]
    exp2 = [t for t in exp2 if not t.back]
    for t in stray:
        notes.append(f"face-down tile in the river zone at ({t.x:.0f},{t.y:.0f}), not placed")
    exposed += exp2
    area.exposed = tuple(t.kind for t in exposed)
    assign += ([(t, "discard") for t in discards] + [(t, "exposed") for t in exp2]
               + [(t, "unplaced") for t in stray + unread])
    return area, assign, notes


def _read_walls(walls: list[list[Tile]], assign: list) -> tuple[list[Tile], list[Tile]]:
    """A seat's walls: their backs are the wall; (face-up tiles in line with them, exposed; flowers there, which
    lie face up wherever they are put: the seat's, not exposed). Appends to ``assign``."""
    exposed: list[Tile] = []
    flowers: list[Tile] = []
    for r in walls:
        for t in r:
            if t.back:
                assign.append((t, "wall"))
            elif T.is_flower(t.kind):
                flowers.append(t)
            else:
                assign.append((t, "exposed"))
                exposed.append(t)
    return exposed, flowers


def _read_meld_row(seat: str, row: list[Tile], mots: list, assign: list, notes: list[str]):
    """A row where melds and flowers lie: its melds appended to ``mots``; (its flowers, tiles exposed there)."""
    lp = current_params()
    flowers: list[Tile] = []
    exposed: list[Tile] = []
    rests = []
    for g in split_groups(row):
        if any(T.is_flower(t.kind) for t in g):
            notes += _weak_beside_flowers(g)
        flowers += [t for t in g if T.is_flower(t.kind)]
        rest = [t for t in g if not T.is_flower(t.kind)]
        if rest:
            rests.append(rest)
    for rest in rejoin(rests):
        if len(rest) == 1 and not rest[0].back:
            # one face-up tile on its own where melds lie is no meld: a tile exposed there, or if the
            # detector is unsure of it, a flower of a set's own art, a shadow or a reflection
            t = rest[0]
            if t.det.confidence < lp.lone_weak:
                if not _flowers_of_own_art(rest, flowers, notes):
                    notes.append(f"lone weak box {describe(t)} in the meld area: not placed")
                    assign.append((t, "unplaced"))
            else:
                exposed.append(t)
                assign.append((t, "exposed"))
            continue
        if lone_backs(rest):
            notes.append(f"face-down tile(s) {', '.join(describe(t) for t in rest)} in the meld area are "
                         f"not a concealed kong (4 tiles): not placed")
            assign += [(t, "unplaced") for t in rest]
            continue
        if all(t.det.confidence < lp.lone_weak for t in rest) and not is_meld_group(rest):
            # face-up boxes the detector is unsure of, with no sideways or face-down tile to mark a meld: flowers
            # of a set's own art, or shadows or objects at the table's edge, as a lone weak box is
            read = {id(t) for t in _flowers_of_own_art(rest, flowers, notes)}
            rest = [t for t in rest if id(t) not in read]
            if rest:
                notes.append(f"weak boxes {', '.join(describe(t) for t in rest)} in the meld area, no meld's "
                             f"mark: not placed")
                assign += [(t, "unplaced") for t in rest]
            continue
        _read_melds(seat, rest, mots, assign, notes)
    return flowers, exposed


def _weak_beside_flowers(group: list[Tile]) -> list[str]:
    """In a group of the meld area that holds flowers, a face-up box the detector is unsure of (under lone_weak)
    that touches a flower and whose reading gives a flower some chance (flower_beside) is a flower too: flowers
    lie together, and their faces are pictures the classifier may take for a suit tile
    (flowers.flowers_beside_flowers, the phone layout's rule, for the weak ones alone). Returns notes."""
    lp = current_params()
    weak = [t for t in group if not t.back and not T.is_flower(t.kind) and t.det.confidence < lp.lone_weak]
    return flowers_beside_flowers([t for t in group if T.is_flower(t.kind)] + weak) if weak else []


def _flowers_of_own_art(weak: list[Tile], flowers: list[Tile], notes: list[str]) -> list[Tile]:
    """Of weak face-up boxes in the meld area with no meld's mark, those likelier to be some flower or season
    than the kind they were read as (Detection.flower): a set's flowers are pictures of its own, which the
    classifier spreads over many kinds. Each is read as its likeliest flower, which it is not sure of (its seat
    is read with doubt), and appended to ``flowers``. Returns them. A box less sure than a flower must be to be
    placed (LayoutParams.faint_flower, faint_flower_above from straight above: clutter reads as pictures too) is
    not read so."""
    lp = current_params()
    out = []
    for t in weak:
        p = sum(q for _, q in t.det.flower)
        if t.back or not t.det.flower or p < max(t.det.kind_p, 1e-9) or t.det.confidence < lp.faint_flower:
            continue
        k = t.det.flower[0][0]
        notes.append(f"weak box {describe(t)} in the meld area is likelier a flower or season (p={p:.2f}) than "
                     f"{T.code(t.kind)}: read as {T.code(k)}")
        t.det = replace(t.det, kind=k)
        flowers.append(t)
        out.append(t)
    return out


def _read_melds(seat: str, group: list[Tile], mots: list, assign: list, notes: list[str]) -> None:
    """A run of tiles laid as melds, read into ``mots`` (a box the melds read without is a shadow)."""
    chunks, spoilers = split_melds(group)
    for spoiler in spoilers:
        notes.append(f"box {describe(spoiler)} in seat {seat}'s melds, which read without it: "
                     f"a shadow, not a tile")
        assign.append((spoiler, "unplaced"))
    for chunk in chunks:
        promote_widest(chunk)
        mot, problem = read_meld(chunk)
        n = len(mots)
        mots.append(mot)
        if problem:
            notes.append(problem)
        for t in chunk:
            assign.append((t, f"meld:{n}"))


def _read_laid_hand(seat: str, area: PlayerArea, hand: list[Tile], mots: list, assign: list,
                    notes: list[str]) -> list[Tile]:
    """A hand laid face up in a row, in sets or spread: its concealed tiles, its melds laid in the same row
    (appended to ``mots``, after those of the meld row), the winning tile set apart at its end; sets ``area``'s
    hand and returns the flowers in the row."""
    groups = split_groups(sorted(hand, key=lambda t: t.u))
    flowers = [t for g in groups for t in g if T.is_flower(t.kind)]
    loose: list[Tile] = []
    for g in ([t for t in g if not T.is_flower(t.kind)] for g in groups):
        if g and is_meld_group(g) and not lone_backs(g):
            _read_melds(seat, g, mots, assign, notes)
        elif g and lone_backs(g) and len(groups) > 1:
            # a hand laid down shows its faces: face-down boxes set apart in its row (no concealed kong) are a
            # stripe or an object lying across the row, or a wall's end
            notes.append(f"face-down box(es) {', '.join(describe(t) for t in g)} apart in seat {seat}'s hand laid "
                         f"face up: not placed")
            assign += [(t, "unplaced") for t in g]
        else:
            loose += g
    expected = 13 - 3 * len(mots)
    # a weak box at an end that makes the row a tile too long for its melds: not a tile (a hand laid down shows
    # its faces; a concealed kong lies among the melds; paper beside it reads weakly)
    too_long = len(loose) not in (expected, expected + 1) and len(loose) - 1 in (expected, expected + 1)
    shadow = _weak_end_box(loose, faces=True) if too_long else None
    if shadow is not None:
        loose = [t for t in loose if t is not shadow]
        notes.append(f"weak {'face-down ' if shadow.back else ''}box {describe(shadow)} at the end of seat {seat}'s "
                     f"hand laid face up: not counted ({len(loose)} tiles with {len(mots)} meld(s))")
        assign.append((shadow, "unplaced"))
    winning = laid_winning(loose, expected)
    concealed = [t for t in loose if t is not winning]
    area.concealed = tuple(t.kind for t in concealed if not t.back)
    area.concealed_face_down = sum(t.back for t in concealed)
    area.winning_tile = None if winning is None else winning.kind
    area.winning_tile_apart = winning is not None
    if len(loose) not in (expected, expected + 1):
        notes.append(f"seat {seat}: hand laid face up shows {len(loose)} tile(s) with {len(mots)} meld(s); "
                     f"a hand needs {expected}, or {expected + 1} with the winning tile")
    assign += [(t, "concealed") for t in concealed]
    if winning is not None:
        assign.append((winning, "winning"))
    return flowers


def _weak_end_box(row: list[Tile], faces: bool = False) -> Optional[Tile]:
    """The less sure of a hand row's two end boxes when it is under hand_end_weak_extra x the row's median
    confidence and face down in a row of 4 or more (the detector's colour check leaves a shadow found as a back
    this unsure), or, with ``faces`` (a hand laid face up), face up and under laid_sure (printed paper beside a
    hand of one or two tiles): a shadow or an object at the row's end, not a tile, where the row's count says one
    too many; a merely weak end box is mostly a real tile half out of sight."""
    lp = current_params()
    if len(row) < 2:
        return None
    ends = sorted(row, key=lambda t: t.u)[:: len(row) - 1]
    weak = min(ends, key=lambda t: t.det.confidence)
    med = median([t.det.confidence for t in row])
    if weak.det.confidence >= lp.hand_end_weak_extra * med:
        return None
    paper = faces and not weak.back and weak.det.confidence < lp.laid_sure
    return weak if (weak.back and len(row) >= 4) or paper else None


def _read_hand(seat: str, hand: list[Tile], pitch: float, n_melds: int, assign: list, notes: list[str]):
    """A seat's hand row seen from above: (how many face-down tiles, the face-up tiles in it). Appends to
    ``assign`` and ``notes``."""
    # a hand is one bar: boxes set off from it by a wide gap are something else lying in line with it
    hand, off = main_run(hand, pitch)
    for t in off:
        notes.append(f"{describe(t)} in line with the hand row but apart from it: not placed")
        assign.append((t, "unplaced"))
    # the row's length counts the tiles; face-up ones in it (shown tiles) are not face-down ones
    n = count_touching(hand, pitch)
    # a very weak back at an end that makes a drawn hand's size (14 - 3 x melds) out of a waiting one's, or an
    # impossible size out of a drawn one's, is not a tile (_weak_end_box)
    legal = (13 - 3 * n_melds, 14 - 3 * n_melds)
    weak = _weak_end_box(hand)
    if weak is not None and n != legal[0] and n - 1 in legal:
        hand = [t for t in hand if t is not weak]
        n -= 1
        notes.append(f"weak box {describe(weak)} at the end of seat {seat}'s hand row: not counted "
                     f"({n} tiles with {n_melds} meld(s); one more would be {n + 1})")
        assign.append((weak, "unplaced"))
    backs = [t for t in hand if t.back]
    face_down = max(len(backs) and 1, n - (len(hand) - len(backs)))
    if face_down != len(backs):
        notes.append(f"seat {seat}: hand row of {len(backs)} face-down boxes is {face_down} tiles long")
    for t in hand:
        assign.append((t, "concealed" if t.back else "exposed"))
    return face_down, [t for t in hand if not t.back]


def _river_slot(t: Tile, river: Optional[River], w: float) -> Optional[tuple[float, float, int, int]]:
    """Where a tile lies on a seat's river grid, its column and row (fractional) and the nearest slot's, when it is
    near enough that slot to be taken as its discard: a face-up tile within 0.35 of a slot's pitch, a 'back'
    within 0.2 (it must sit squarely in its slot); else None."""
    if river is None:
        return None
    r = (t.v / w - river.y0) / river.py
    c = (t.u / w - river.x0 - river.shear * r) / river.px
    ci, ri = round(c), round(r)
    tol = 0.2 if t.back else 0.35
    if abs(c - ci) > tol or abs(r - ri) > tol or not 0 <= ci < current_params().river_cols or ri < 0:
        return None
    return c, r, ci, ri


def _read_river(ts: list[Tile], river: Optional[River], w: float, notes: list[str]):
    """Discards in order (slots of a grid 6 wide, filled row by row), the exposed tiles around them, the flowers,
    and the boxes not placed (weak flower boxes in a slot with no other reading)."""
    lp = current_params()
    flowers = [t for t in ts if T.is_flower(t.kind)]
    ts = [t for t in ts if not T.is_flower(t.kind)]
    if river is None or not ts:
        return [], ts, flowers, []
    # a weak flower box squarely in a slot of the river grid is a discard misread (flowers are set aside and
    # replaced, never thrown): it is read as its likeliest suit tile, or not placed when its candidates hold none
    # (the slot of a discard whose face is not read is taken all the same: the discards after it are in the river)
    unread: list[Tile] = []
    blank: set[int] = set()
    for t in [t for t in flowers if t.det.confidence < lp.weak_flower]:
        slot = _river_slot(t, river, w)
        if slot is None:
            continue
        where = describe(t)
        k = read_as_suit_tile(t)
        flowers.remove(t)
        if k is not None:
            notes.append(f"weak flower box {where} lies in a river slot: read as the discard {T.code(k)}")
            ts.append(t)
        else:
            notes.append(f"weak flower box {where} lies in a river slot: a discard whose face is not read, "
                         f"not placed")
            unread.append(t)
            blank.add(slot[3] * lp.river_cols + slot[2])
    slots: dict[int, tuple[float, Tile]] = {}
    off: list[Tile] = []
    for t in sorted(ts, key=lambda t: (t.v, t.u)):
        slot = _river_slot(t, river, w)
        if slot is None:
            off.append(t)
            continue
        c, r, ci, ri = slot
        res = abs(c - ci) + abs(r - ri) + (1.0 if t.back else 0.0)    # a face-up tile wins a shared slot
        idx = ri * lp.river_cols + ci
        if idx in slots:                     # two tiles on one slot: the better aligned one is the discard
            if slots[idx][0] <= res:
                off.append(t)
                continue
            off.append(slots[idx][1])
        slots[idx] = (res, t)
    slots = {k: v[1] for k, v in slots.items()}
    discards: list[Tile] = []
    last = -1
    order = sorted(set(slots) | blank)
    for n, idx in enumerate(order):
        # two or more empty slots before it, or one empty slot before the very last tile: not in the river
        if idx - last > 2 or (idx - last == 2 and n == len(order) - 1):
            if idx in slots:
                off.append(slots[idx])
            continue
        if idx - last == 2:
            notes.append(f"discard slot {last + 1} empty (a tile missed?)")
        if idx in slots:
            discards.append(slots[idx])
        last = idx
    # discards lie face up: a 'face-down' tile in its slot of the river is a blank white dragon (in a set with
    # pale backs the two look alike)
    for n, t in enumerate(discards):
        if t.back:
            notes.append(f"face-down box {describe(t)} in river slot {n}: read as a white dragon")
            t.det = replace(t.det, kind=T.WHITE, orientation=UPRIGHT)
    return discards, off, flowers, unread
