"""The phone view: one player's finished hand photographed, read into the self seat."""
from __future__ import annotations

import math
from typing import Optional

import numpy as np
from mjtable.scoring import tiles as T
from mjtable.scoring.table import (
    MeldOnTable,
    PlayerArea,
    TableState,
)

from ..level import HAND_DOMINANT, densest_direction, off_by, off_densest
from ..types import Detection
from .base import PHONE, Layout, LayoutError, LayoutParams, Placed, current_params, parsing_with
from .duplicates import dedupe
from .flowers import flowers_beside_flowers, flowers_inside_rows, held_flowers, isolated
from .geometry import Frame, Tile, describe, direction_votes, frame_of, median, nn_angle, rotate, split_groups, tiles_of
from .melds import (
    halves,
    is_meld_group,
    lone_backs,
    merge_all,
    promote_widest,
    read_meld,
    split_melds,
    split_merged_pair,
    stack_added,
)
from .winning import apart_by_gap, apart_cost, row_index, structure_vote


def _cut_by_frame(dets: list[Detection], kept: list[int], frame: Optional[tuple[int, int]]) -> list[int]:
    """Weak boxes on the frame's edge, much narrower than a tile: a tile (or an object) cut by the frame."""
    lp = current_params()
    if frame is None or len(kept) < 2:
        return []
    w, h = frame
    med = median([min(b[2] - b[0], b[3] - b[1]) for b in (dets[i].box for i in kept)])
    out = []
    for i in kept:
        x1, y1, x2, y2 = dets[i].box
        if ((x1 <= 1 or y1 <= 1 or x2 >= w - 1 or y2 >= h - 1) and dets[i].confidence < lp.edge_weak
                and min(x2 - x1, y2 - y1) < lp.edge_cut * med):
            out.append(i)
    return out


def parse_phone(dets: list[Detection], frame: Optional[tuple[int, int]] = None,
                params: Optional[LayoutParams] = None) -> Layout:
    """Read a phone photo of one player's finished hand. frame: the image's (width, height), when known;
    params: the layout's parameters (None: those in force, the defaults outside a parse)."""
    with parsing_with(params):
        return _parse_phone(dets, frame)


def _parse_phone(dets: list[Detection], frame: Optional[tuple[int, int]]) -> Layout:
    """parse_phone's stages, in order: keep the boxes worth reading, frame them (angle, rows, flowers), group the
    rows into melds and the rest, set aside what is no tile of the hand, read the melds, pick the concealed tiles
    and the winning tile, then fill the self seat and say where every detection went."""
    if not dets:
        raise LayoutError("no tiles detected")
    kept, placed, unplaced = _phone_kept(dets, frame)
    kept, turned = _phone_turned_first(dets, kept)
    core, flowers, fr, theta, guessed = _phone_frame(dets, kept, placed, unplaced)
    groups, shadows = _phone_groups(core, fr, unplaced)
    groups, loose_backs, far_backs = _phone_backs_apart(groups, core, shadows)
    melds, rest = _phone_melds(groups, fr, unplaced)
    rest, in_row = _phone_backs_in_row(rest)
    rest, notes, stray = _phone_set_aside(rest, core, loose_backs, far_backs, in_row, shadows, turned)
    melds = _phone_loose_melds(melds, rest, stray, notes)
    mots = _phone_read_melds(melds, notes)
    n_melds = len(melds)
    expected = 13 - 3 * n_melds
    rest = _phone_drop_weakest(rest, expected, stray, notes)
    concealed, winning = _phone_hand(rest, expected, melds, fr, stray, notes)
    _phone_stray_notes(stray, notes)
    area, flowers = _phone_area(concealed, winning, mots, flowers, core, stray, notes)
    _phone_placed(placed, concealed, melds, winning, flowers, stray)
    table = TableState(players=[area], unplaced=unplaced + notes)
    return Layout(table, [placed[i] for i in sorted(placed)], PHONE, math.degrees(theta), guessed)


def _phone_kept(dets: list[Detection], frame: Optional[tuple[int, int]]
                ) -> tuple[list[int], dict[int, Placed], list[str]]:
    """Stage 1, the boxes worth reading. Reads the detections and the frame's size; returns the indices kept, the
    placements of the boxes dropped (duplicates, boxes cut by the frame) and the notes saying so."""
    kept, dropped = dedupe(dets)
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
    return kept, placed, unplaced


def _phone_frame(dets: list[Detection], kept: list[int], placed: dict[int, Placed], unplaced: list[str]
                 ) -> tuple[list[Tile], list[Tile], Frame, float, bool]:
    """Stage 2, the frame. Reads the kept detections; returns the core tiles (no flowers, half boxes merged), the
    flowers (rotated and sized into the frame), the frame and its angle, the hand's bottom edge down, and whether
    that way was a guess (no label but the reversible tiles' telling, and not both cues of the hand's structure
    agreeing).
    Places the merged half boxes as duplicates and adds the flower and half-box notes to unplaced."""
    tiles = tiles_of(dets, kept)
    unplaced += flowers_beside_flowers(tiles) + flowers_inside_rows(tiles)
    flowers = [t for t in tiles if T.is_flower(t.kind)]
    core = [t for t in tiles if not T.is_flower(t.kind)]
    if not core:                # flowers make no meld and no hand (read as melds, the audit could not take them)
        raise LayoutError(f"only flowers or seasons found ({len(flowers)}): no hand to read")
    theta = nn_angle(np.array([(t.x, t.y) for t in core]), 2)
    fr = frame_of(core, theta)
    vote = direction_votes(core, fr.theta)
    sure = direction_votes(core, fr.theta, reversible=False)     # the labels that are no guess
    cues = structure_vote(fr) if sure == 0 else 0.0
    if sure:                        # the labels that are no guess decide
        turned = sure < 0
    elif abs(cues) >= 2 or not vote:  # else both cues of the structure, agreeing, or one with the labels silent
        turned = cues < 0
    else:                           # else the reversible tiles' labels
        turned = vote < 0
    if turned:
        fr = frame_of(core, fr.theta + math.pi, refine=False)
    theta = fr.theta
    pairs = halves(fr.rows)
    merged: list[Tile] = []
    if pairs:
        core, merged, half_notes = merge_all(core, pairs)
        unplaced += half_notes
        fr = frame_of(core, theta, refine=False)
    for t in merged:
        placed[t.i] = Placed(t.det, None, "duplicate")
    rotate(flowers, theta)
    for t in flowers:
        t.w = fr.k * t.s
    return core, flowers, fr, theta, sure == 0 and abs(cues) < 2


def _phone_groups(core: list[Tile], fr: Frame, unplaced: list[str]
                  ) -> tuple[list[list[Tile]], list[tuple[Tile, str]]]:
    """Stage 3, the groups. Reads the core tiles and the frame's groups (which it changes: stacked tiles move to
    their meld); returns the groups, runs of melds split into melds, and the shadows found between melds with why.
    Notes on merged pairs go to unplaced."""
    # stacked tiles (added kong) leave their row and join the meld below them
    for t in stack_added(core, fr.theta):
        for g in fr.groups:
            if t in g:
                g.remove(t)
        host = min((g for g in fr.groups if any(o.side and o.kind == t.kind for o in g)),
                   key=lambda g: min(abs(o.u - t.u) + abs(o.v - t.v) for o in g))
        host.append(t)
    for g in fr.groups:
        split_merged_pair(g, fr.theta, unplaced)
    groups = []
    shadows: list[tuple[Tile, str]] = []
    for g in fr.groups:
        if g and any(t.side or t.back for t in g):
            parts, spoilers = split_melds(g)
            kept = [n for n, t in enumerate(g) if not any(t is o for o in spoilers)]
            for spoiler in spoilers:
                n = next(n for n, t in enumerate(g) if t is spoiler)
                where = "at the end of a meld" if not kept or not kept[0] < n < kept[-1] else "between melds"
                shadows.append((spoiler, f"{where}: a shadow, not a tile (the melds read without it)"))
            groups += parts
        elif g:
            groups.append(g)
    return groups, shadows


def _phone_turned_first(dets: list[Detection], kept: list[int]) -> tuple[list[int], list[tuple[list[Tile], float]]]:
    """Stage 1b, tiles lying turned from the rest, before the rows are found. Reads the kept detections' edge
    directions (Detection.angle); returns the indices left and the tiles set apart, each with how far it is
    turned. The tiles of a hand, its melds and its flowers lie along one direction (modulo 90 degrees): the
    densest window of LayoutParams.turned degrees among the known directions, when it holds most of them, each
    weighed by its detection's confidence (level.densest_direction; a weak box may be no tile); a tile more than
    that from it lies loose, pushed aside. Without directions (detections from a file), or without a clear
    densest window, nothing is set apart."""
    limit = current_params().turned
    off = off_densest([dets[i].angle for i in kept], limit, [dets[i].confidence for i in kept],
                      dominant=HAND_DOMINANT)
    if off is None:
        return kept, []
    apart = [i for i, o in zip(kept, off) if o > limit]
    if not apart:
        return kept, []
    return [i for i in kept if i not in apart], [(tiles_of(dets, apart), float(off[off > limit].min()))]


def _phone_backs_apart(groups: list[list[Tile]], core: list[Tile], shadows: list[tuple[Tile, str]]
                       ) -> tuple[list[list[Tile]], list[list[Tile]], list[list[Tile]]]:
    """Stage 4, face-down boxes that are no meld. Reads the groups and the core tiles; returns the groups left,
    the lone face-down groups and the face-down groups far from the hand. A face-down box beside one face-up tile
    leaves its group and joins the shadows."""
    loose_backs = [g for g in groups if lone_backs(g)]
    # face-down tiles far from every other tile: an object on the table, not a concealed kong of this hand
    far_backs = [g for g in groups if all(t.back for t in g) and g not in loose_backs
                 and all(isolated(t, [o for o in core if o not in g]) for t in g)]
    groups = [g for g in groups if g not in loose_backs and g not in far_backs]
    for g in groups:
        # one face-down box beside one face-up tile is no meld (a meld is three or four tiles): a shadow beside a
        # tile set apart, such as the winning tile, or a disc on the cloth, whichever way either lies
        if len(g) == 2 and sum(t.back for t in g) == 1:
            t = next(t for t in g if t.back)
            g.remove(t)
            shadows.append((t, "beside a lone tile: a meld is three or four tiles; a shadow, not a tile"))
    return groups, loose_backs, far_backs


def _phone_melds(groups: list[list[Tile]], fr: Frame, unplaced: list[str]
                 ) -> tuple[list[list[Tile]], list[list[Tile]]]:
    """Stage 5, melds and the rest. Reads the groups and the frame's rows; returns the meld groups and the other
    groups (the hand row, tiles apart). Notes on merged pairs inside melds go to unplaced."""
    # a set of three or four face-up tiles apart in a row of melds, one of them clearly the widest along the
    # row: a claimed meld whose sideways tile the labels missed (a face alike turned a quarter: 1p, 8s, 5z)
    is_meld = [is_meld_group(g) for g in groups]
    meld_rows = {row_index(fr.rows, g[0]) for g, m in zip(groups, is_meld) if m}
    for n, g in enumerate(groups):
        if not is_meld[n] and row_index(fr.rows, g[0]) in meld_rows and promote_widest(g):
            is_meld[n] = True
    melds = [g for g, m in zip(groups, is_meld) if m]
    rest = [g for g, m in zip(groups, is_meld) if not m]
    for g in melds:                 # a meld cut from a longer run of melds may be an added kong seen as one box
        split_merged_pair(g, fr.theta, unplaced)
    return melds, rest


def _phone_backs_in_row(rest: list[list[Tile]]) -> tuple[list[list[Tile]], list[Tile]]:
    """Stage 6, face-down boxes inside the hand row. Reads the groups that are no meld; returns them without
    those boxes (split where a box bridged a gap) and the boxes taken out."""
    # the concealed tiles of a finished hand are shown face up: a face-down box inside the hand row (a shadow,
    # say) is not a tile of it, and the space it bridged may be the gap before the winning tile
    in_row = [t for g in rest for t in g if t.back and len(g) > 1]
    if in_row:
        rest = [h for g in rest for h in (split_groups([t for t in g if not t.back]) if len(g) > 1 else [g])
                if h]
    return rest, in_row


def _phone_set_aside(rest: list[list[Tile]], core: list[Tile], loose_backs: list[list[Tile]],
                     far_backs: list[list[Tile]], in_row: list[Tile], shadows: list[tuple[Tile, str]],
                     turned: list[tuple[list[Tile], float]]) -> tuple[list[list[Tile]], list[str], list[Tile]]:
    """Stage 7, what is no tile of the hand. Reads the groups that are no meld, the core tiles and the boxes set
    aside by stages 1b, 3, 4 and 6; returns the groups left (lone tiles far from all others taken out), the notes
    on the boxes set aside, and the stray tiles (those boxes and the lone far tiles)."""
    notes: list[str] = [f"tile(s) {', '.join(describe(t) for t in g)} lie turned {a:.0f} degrees or more from "
                        f"the hand's tiles: loose tiles pushed aside, not part of the hand" for g, a in turned]
    notes += [f"face-down tile(s) {', '.join(describe(t) for t in g)} are not a concealed kong "
              f"(4 tiles): not placed" for g in loose_backs]
    notes += [f"face-down tiles {', '.join(describe(t) for t in g)} lie far from the hand: not placed"
              for g in far_backs]
    set_aside = loose_backs + far_backs + [g for g, _ in turned]
    notes += [f"face-down box {describe(t)} inside the concealed row: not a tile of the hand" for t in in_row]
    set_aside.append(in_row)
    notes += [f"box {describe(t)} {why}" for t, why in shadows]
    set_aside.append([t for t, _ in shadows])
    stray: list[Tile] = [t for g in rest if len(g) == 1 for t in g if isolated(t, core)]
    stray += [t for g in set_aside for t in g]
    rest = [g for g in rest if not (len(g) == 1 and g[0] in stray)]
    return rest, notes, stray


def _phone_loose_melds(melds: list[list[Tile]], rest: list[list[Tile]], stray: list[Tile], notes: list[str]
                       ) -> list[list[Tile]]:
    """Stage 7b, groups that make no meld. Reads the meld groups (each holding a sideways or face-down tile) and
    the groups that are no meld; returns the meld groups that are the hand's. A group of two or three tiles that
    reads as no meld at all (MeldOnTable.meld None: no chow or pung of any likely reading) lies loose when the
    hand is whole without it, its other groups holding at least the tiles its readable melds leave: it joins
    stray, with a note. Loose tiles pushed aside lie askew, some of them sideways to the hand, and two of them side
    by side look like a meld. Four tiles are left alone: a concealed kong laid all face down reads as no meld."""
    bad = [g for g in melds if len(g) in (2, 3) and read_meld(g)[0].meld is None]
    if not bad:
        return melds
    good = [g for g in melds if not any(g is b for b in bad)]
    if sum(len(g) for g in rest) < 13 - 3 * len(good) + 1:
        return melds
    for g in bad:
        stray.extend(g)
        notes.append(f"tiles {', '.join(describe(t) for t in g)} make no meld, and the hand is whole without them: "
                     f"loose tiles, not part of the hand")
    return good


def _phone_read_melds(melds: list[list[Tile]], notes: list[str]) -> list[MeldOnTable]:
    """Stage 8, the melds read. Reads the meld groups; returns one meld of the table per group, in order, and adds
    each meld's problem, if any, to notes."""
    mots = []
    for g in melds:
        mot, problem = read_meld(g)
        mots.append(mot)
        if problem:
            notes.append(problem)
    return mots


def _phone_drop_weakest(rest: list[list[Tile]], expected: int, stray: list[Tile], notes: list[str]
                        ) -> list[list[Tile]]:
    """Stage 9, one tile too many. Reads the groups that are no meld and the number of concealed tiles the melds
    leave; returns the groups, without the least sure detection when there is one tile too many and it is much
    less sure than the rest (then it joins stray, with a note)."""
    # one tile too many for the melds shown and one detection much less sure than the rest: drop it, and say so
    loose = [t for g in rest for t in g]
    if len(loose) == expected + 2 and len(loose) >= 3:
        weakest = min(loose, key=lambda t: t.det.confidence)
        med = float(np.median([t.det.confidence for t in loose]))
        if weakest.det.confidence < 0.5 and weakest.det.confidence < 0.7 * med:
            rest = [h for g in rest for h in ([[t for t in g if t is not weakest]] if weakest in g else [g]) if h]
            stray.append(weakest)
            notes.append(f"dropped the least sure detection {describe(weakest)} "
                         f"(confidence {weakest.det.confidence:.2f}): one tile too many in the hand")
    return rest


def _phone_hand(rest: list[list[Tile]], expected: int, melds: list[list[Tile]], fr: Frame, stray: list[Tile],
                notes: list[str]) -> tuple[list[Tile], Optional[Tile]]:
    """Stage 10, the concealed tiles and the winning tile. Reads the groups that are no meld, the number of
    concealed tiles expected, the melds and the frame's rows; returns the concealed tiles in reading order and
    the winning tile (None when none is seen). Single tiles beyond the hand join stray; notes say what is amiss.
    With no row of concealed tiles (four melds and a pair), the single tiles nearest the melds' row are the hand's
    (a step across the rows counts three times a step along them)."""
    n_melds = len(melds)
    multi = [g for g in rest if len(g) > 1]
    singles = [g[0] for g in rest if len(g) == 1]
    main = max(multi, key=len) if multi else None
    if main is None and melds and len(singles) > expected + 1:
        shown = [t for g in melds for t in g]
        near = sorted(singles, key=lambda t: min(math.hypot(t.u - m.u, 3 * (t.v - m.v)) for m in shown))
        stray += near[expected + 1:]
        singles = [t for t in singles if t in near[:expected + 1]]
    multi = _beyond_the_count(multi, main, expected, fr, stray, notes)
    concealed = [t for g in multi for t in g]
    winning: Optional[Tile] = None
    if singles:
        winning = min(singles, key=lambda t: apart_cost(t, main))
        others = [t for t in singles if t is not winning]
        others.sort(key=lambda t: apart_cost(t, main))
        while others and len(concealed) < expected:
            concealed.append(others.pop(0))
        stray += others
    elif main is not None and len(concealed) == expected + 1 and len(main) >= 2:
        # no tile stands apart but the hand has one tile too many: the winning tile was set apart by less
        # than a group gap. Take the last tile of the row if its gap is clearly the widest there.
        winning = apart_by_gap(main)
        if winning is not None:
            concealed.remove(winning)
            notes.append(f"winning tile {describe(winning)} taken from the end of the hand row: "
                         f"set apart by a narrow gap")
    concealed.sort(key=lambda t: (row_index(fr.rows, t), t.u))
    # a concealed kong shown as 4 face-down tiles in the hand row cannot be part of the hand
    if any(t.back for t in concealed):
        notes.append(f"{sum(t.back for t in concealed)} face-down tile(s) among the concealed tiles")
    n_have = len(concealed) + (0 if winning is None else 1)
    if n_have != expected + 1:
        notes.append(f"hand shows {len(concealed)} concealed tile(s)"
                     f"{' + winning tile' if winning is not None else ''} with {n_melds} meld(s);"
                     f" a finished hand needs {expected} + 1")
    return concealed, winning


def _beyond_the_count(multi: list[list[Tile]], main: Optional[list[Tile]], expected: int, fr: Frame,
                      stray: list[Tile], notes: list[str]) -> list[list[Tile]]:
    """The groups of two or more tiles that are no meld and belong to the concealed hand: those in the longest
    one's row (a hand spread in groups), then the others nearest it first while the hand has room for them
    (expected concealed tiles, and the winning tile where it is not set apart). A group beyond that count lies
    loose off the hand's row, as tiles pushed aside do: it joins stray, with a note."""
    if main is None:
        return multi
    r = row_index(fr.rows, main[0])
    kept = [g for g in multi if row_index(fr.rows, g[0]) == r]
    n = sum(len(g) for g in kept)
    off = sorted((g for g in multi if row_index(fr.rows, g[0]) != r),
                 key=lambda g: min(math.hypot(t.u - m.u, t.v - m.v) for t in g for m in main))
    for g in off:
        if n + len(g) <= expected + 1:
            kept.append(g)
            n += len(g)
        else:
            stray.extend(g)
            notes.append(f"tiles {', '.join(describe(t) for t in g)} lie off the hand's row, beyond the tiles a "
                         f"hand holds: not part of the hand")
    return [g for g in multi if any(g is k for k in kept)]


def _phone_stray_notes(stray: list[Tile], notes: list[str]) -> None:
    """Stage 11, the stray tiles said. Reads the stray tiles; adds to notes one line for each stray tile that no
    note names yet."""
    said = "\n".join(notes)                 # every note so far, searched once per tile
    for t in stray:
        d = describe(t)
        if d not in said:
            notes.append(f"tile {d} is not part of the hand")
            said += "\n" + notes[-1]


def _phone_area(concealed: list[Tile], winning: Optional[Tile], mots: list[MeldOnTable], flowers: list[Tile],
                core: list[Tile], stray: list[Tile], notes: list[str]) -> tuple[PlayerArea, list[Tile]]:
    """Stage 12, the self seat. Reads the concealed tiles, the winning tile, the melds read and the flowers;
    returns the player's area (a declared win) and the flowers kept. Flowers far from every tile join stray, with
    a note; notes on the flowers themselves go to notes."""
    area = PlayerArea(seat="self")
    area.concealed = tuple(t.kind for t in concealed if not t.back)
    area.concealed_face_down = sum(t.back for t in concealed)
    area.melds = tuple(mots)
    area.winning_tile = winning.kind if winning is not None else None
    area.winning_tile_apart = winning is not None
    far = _flowers_apart(flowers, [t for t in core if t not in stray], stray)
    flowers = [t for t in flowers if t not in far]
    stray += far
    for t in far:
        notes.append(f"tile {describe(t)} is not part of the hand")
    flowers = _reading_order(flowers)
    kinds, dup = held_flowers(flowers, notes, "not part of the hand")
    stray += [t for i, t in enumerate(flowers) if i in dup]
    area.flowers = tuple(k for i, k in enumerate(kinds) if i not in dup)
    area.declared_win = True
    return area, [t for i, t in enumerate(flowers) if i not in dup]


def _reading_order(tiles: list[Tile]) -> list[Tile]:
    """Tiles in reading order: rows from the far one (a jump across the rows of more than half a tile starts a
    new row), each left to right."""
    rows: list[list[Tile]] = []
    for t in sorted(tiles, key=lambda t: t.v):
        if rows and t.v - rows[-1][-1].v <= 0.5 * max(t.w, 1e-6):
            rows[-1].append(t)
        else:
            rows.append([t])
    return [t for r in rows for t in sorted(r, key=lambda t: t.u)]


def _flowers_apart(flowers: list[Tile], hand: list[Tile], stray: list[Tile]) -> list[Tile]:
    """The flowers that lie far from the hand: neither near one of its tiles (the concealed row, the melds, the
    tiles not set apart as stray) nor near a flower that is, in a chain (a row of flowers laid beside the hand);
    and those nearer a stray tile than any of the hand's whose edges lie askew to the hand's
    (LayoutParams.flower_askew); and a flower alone, with no flower beside it (LayoutParams.flower_row), turned
    further (LayoutParams.flower_askew_alone) with a stray tile near it. A flower among loose tiles pushed aside is
    no flower of the hand: a player lays flowers square, in a row beside the hand. The hand's direction is its
    tiles', each weighed by its confidence, as stage 1b finds the photo's (level.densest_direction)."""
    def dist(t: Tile, others: list[Tile]) -> float:
        return min((math.hypot(o.x - t.x, o.y - t.y) for o in others), default=math.inf)

    def loose(t: Tile) -> bool:
        off = off_by([t.det.angle], ref)[0] if t.det.angle is not None else 0.0
        alone = dist(t, [f for f in flowers if f is not t]) > lp.flower_row * t.w
        nearer = dist(t, stray) < dist(t, hand)
        return (nearer and off > lp.flower_askew
                or alone and off > lp.flower_askew_alone and dist(t, stray) <= lp.isolated * t.w)

    lp = current_params()
    known = [t for t in hand if t.det.angle is not None]
    ref = densest_direction([t.det.angle for t in known], lp.turned, [t.det.confidence for t in known],
                            dominant=HAND_DOMINANT) if known else None
    among = [] if ref is None else [t for t in flowers if loose(t)]
    todo = [t for t in flowers if t not in among]
    near = hand
    while todo:
        step = [t for t in todo if not isolated(t, near)]
        if not step:
            break
        todo = [t for t in todo if t not in step]
        near = step
    return among + todo


def _phone_placed(placed: dict[int, Placed], concealed: list[Tile], melds: list[list[Tile]],
                  winning: Optional[Tile], flowers: list[Tile], stray: list[Tile]) -> None:
    """Stage 13, where every box went. Reads the tiles of each part of the hand and the stray tiles; records in
    placed, by detection index, each one's seat and role (a later role overrides an earlier one)."""
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
