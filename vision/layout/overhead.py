"""The overhead view: a camera above the table, four seats read with their rivers."""
from __future__ import annotations

import math
from dataclasses import replace
from typing import Optional

import numpy as np
from mjtable.scoring import tiles as T
from mjtable.scoring.table import (
    SEATS,
    PlayerArea,
    TableState,
)

from ..perspective import beyond, depth_from_shapes, flatten, in_photo, nearest, plane_from_tiles, unflatten
from ..types import Detection
from .base import OVERHEAD, Layout, LayoutError, LayoutParams, Placed, current_params, parsing_with
from .duplicates import dedupe
from .flowers import held_flowers
from .geometry import Tile, box_score, describe, nn_angle, rotate, tiles_of
from .melds import halves, merge_all
from .rivers import read_seat, river_model
from .seatcheck import seat_notes
from .seats import centre_correction, overhead_width_factor, seat_frames, table_clutter, zones


def parse_overhead(dets: list[Detection], params: Optional[LayoutParams] = None) -> Layout:
    """Read a frame of the whole table (self at the bottom of the frame, to within 45 degrees): from above, or
    photographed from the self seat, when the tiles' spacing shows a perspective or their shapes a squashed depth
    (undone first, vision.perspective). params: the layout's parameters (None: those in force, the defaults
    outside a parse)."""
    with parsing_with(params):
        return _parse_table(dets)


def _parse_table(dets: list[Detection]) -> Layout:
    """parse_overhead's reading: the table's plane first (a seat's perspective undone), then _parse_overhead."""
    if not dets:
        raise LayoutError("no tiles detected")
    H, how = plane_from_tiles(dets), "the perspective is undone from the tiles' spacing"
    if H is None:
        H, how = depth_from_shapes(dets), "the depth is stretched back from the tiles' shapes"
    if H is None:
        return _parse_overhead(dets)
    far = beyond(H, dets)
    on_table = [d for d, f in zip(dets, far) if not f]
    if not on_table:
        return _parse_overhead(dets)
    layout = _parse_overhead(flatten(on_table, H), on_table)
    layout.table.unplaced = [in_photo(H, n) for n in layout.table.unplaced]
    notes = [f"read as a table photographed from a seat: {how}"]
    if far.any():
        notes.append(f"{int(far.sum())} detection(s) beyond the table's far edge not placed")
        layout.placed += [Placed(d, None, "unplaced") for d, f in zip(dets, far) if f]
    layout.table.unplaced[:0] = notes
    return layout


def _apart(dets: list[Detection], kept: list[int]) -> list[int]:
    """The boxes of a whole table that lie apart from all of it: each more than LayoutParams.table_apart median
    tile sizes from every other box (a paper, a coin or a phone beside the table, read as a tile). They would
    stretch the table's extent, whose middle sets the seats. Only among many boxes (table_apart_min). dets: as
    found in the photo (mapped onto the table's plane, a seat view's far tiles would lie spread apart)."""
    lp = current_params()
    if len(kept) < lp.table_apart_min:
        return []
    size = float(np.median([math.sqrt(max(dets[i].width, 1e-6) * max(dets[i].height, 1e-6)) for i in kept]))
    _, dist = nearest(np.array([dets[i].center for i in kept], float))
    return [i for i, near in zip(kept, dist) if near > lp.table_apart * size]


def _table_flowers(players: list[PlayerArea], flowers: list[tuple[PlayerArea, Tile]], placed: dict[int, Placed],
                   notes: list[str]) -> None:
    """Each seat's flowers, on the whole table: a set holds one of each (flowers.distinct_flowers), and a weak box
    left the same flower as a surer one is not placed (flowers.weak_duplicates; placed and notes say so)."""
    kinds, dup = held_flowers([t for _, t in flowers], notes, "not placed")
    for i in dup:
        t = flowers[i][1]
        placed[t.i] = Placed(t.det, None, "unplaced")
    for area in players:
        area.flowers = tuple(k for i, ((a, _), k) in enumerate(zip(flowers, kinds)) if a is area and i not in dup)


def _parse_overhead(dets: list[Detection], photo: list[Detection] | None = None) -> Layout:
    """The reading proper; ``photo``: the detections as found in the photo when ``dets`` are them mapped onto the
    table's plane (placed tiles and the seat notes are given in the photo's terms). A table seen from straight
    above is read with _above's parameters."""
    with parsing_with(current_params() if photo is not None else _above(current_params())):
        return _read_table(dets, photo)


def _above(lp: LayoutParams) -> LayoutParams:
    """The parameters for a table seen from straight above, where every face shows whole and the seats' rows lie
    where they are: a face-down box needs no bar (a small frame's backs are weak and real; a seat view's stripes
    and shadows read as backs), a flower box must be surer (faint_flower_above; clutter reads as pictures too, a
    seat view's far flowers read weakly), and weak clusters beyond a standing hand are paper
    (paper_beyond_standing; a seat view's depth, undone from the tiles, can put a far seat's flowers there)."""
    return replace(lp, faint_back=0.0, faint_flower=lp.faint_flower_above, paper_beyond_standing=True)


def _read_table(dets: list[Detection], photo: list[Detection] | None) -> Layout:
    """_parse_overhead's reading, with the view's parameters in force."""
    lp = current_params()
    kept, dropped = dedupe(dets, weak_dup=True)
    placed = {i: Placed(dets[i], None, "duplicate") for i in dropped}
    unplaced = [f"duplicate detection of {T.code(dets[i].kind)} dropped" for i in dropped]
    # among a hundred tiles, a face-up box the detector is this unsure of is a shadow or a seam, not a tile;
    # a white dragon goes by its box alone: the face is blank in some sets, so the locator and the classifier
    # dispute it with a back (a sure box is a tile, face up), and pale cards and discs on the cloth read as one
    # (an unsure box is not a tile, however sure the classifier)
    # a table photographed from a seat shows the cloth's edge, the room and the player's side of the table, whose
    # stripes and shadows the locator half takes for backs: there a face-down box must be surer too (from above,
    # a small frame's backs are weak and real: _above)
    faint = [i for i in kept if (dets[i].kind == T.WHITE and box_score(dets[i]) < lp.faint_box)
             or (dets[i].kind not in (T.BACK, T.WHITE) and dets[i].confidence < lp.faint)
             or (dets[i].kind == T.BACK and dets[i].confidence < lp.faint_back)]
    kept = [i for i in kept if i not in faint]
    placed.update({i: Placed(dets[i], None, "unplaced") for i in faint})
    unplaced += [f"faint detection of {T.code(dets[i].kind)} (confidence {dets[i].confidence:.2f}) not placed"
                 for i in faint]
    if not kept:
        raise LayoutError(f"no tiles: the {len(dets)} detection(s) are duplicates or too faint to place")
    apart = _apart(photo or dets, kept)
    kept = [i for i in kept if i not in apart]
    placed.update({i: Placed(dets[i], None, "unplaced") for i in apart})
    unplaced += [f"box {describe(t)} lies apart from every tile of the table: not placed"
                 for t in tiles_of(dets, apart)]
    tiles = tiles_of(dets, kept)
    phi = nn_angle(np.array([(t.x, t.y) for t in tiles]), 4)
    rotate(tiles, phi)
    # tile width: from neighbours along rows, whatever their direction
    k = overhead_width_factor(tiles)
    for t in tiles:
        t.w = k * t.s
    us, vs = [t.u for t in tiles], [t.v for t in tiles]
    cu, cv = (min(us) + max(us)) / 2, (min(vs) + max(vs)) / 2
    frames = seat_frames(tiles, phi, k, cu, cv)
    du, dv = centre_correction(frames)
    if du or dv:
        frames = seat_frames(tiles, phi, k, cu + du, cv + dv)
    # in the meld areas only: a tile lying loose on the table may overlap a discard or a hand
    pairs = [p for sr in frames.values() for p in halves(zones(sr).meldz, lp.half_gap_melds)]
    if pairs:
        tiles, merged, half_notes = merge_all(tiles, pairs)
        for t in tiles:
            t.w = k * t.s
        unplaced += half_notes
        for t in merged:
            placed[t.i] = Placed(t.det, None, "duplicate")
        frames = seat_frames(tiles, phi, k, cu + du, cv + dv)
    clutter = table_clutter(frames)
    if clutter:
        unplaced.append(f"weak boxes {', '.join(describe(t) for t in clutter)} in and beyond a hand laid face up, "
                        f"in groups of no sure tile: paper or a card, not placed")
        placed.update({t.i: Placed(t.det, None, "unplaced") for t in clutter})
    river = river_model(frames)
    players = []
    notes: list[str] = []
    flowers: list[tuple[PlayerArea, Tile]] = []
    for seat in SEATS:
        area, assign, read_notes = read_seat(seat, frames[seat], river[seat])
        players.append(area)
        notes += [f"{seat}: {n}" for n in read_notes]
        for t, group in assign:
            placed[t.i] = Placed(t.det, seat if group != "unplaced" else None, group, t.side)
        flowers += [(area, t) for t, group in assign if group == "flower"]
    _table_flowers(players, flowers, placed, notes)
    placed_list = [placed[i] for i in sorted(placed)]
    if photo is not None:
        placed_list = [replace(p, det=photo[i] if p.det is dets[i] else unflatten(p.det, dets[i], photo[i]))
                       for i, p in zip(sorted(placed), placed_list)]
    table = TableState(players=players, unplaced=unplaced + notes + seat_notes(placed_list))
    return Layout(table, placed_list, OVERHEAD, math.degrees(phi))
