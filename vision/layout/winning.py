"""The winning tile set apart, and which way the hand row reads."""
from __future__ import annotations

from typing import Optional

import numpy as np

from .base import current_params
from .geometry import Frame, Tile, split_groups
from .melds import is_meld_group


def row_index(rows: list[list[Tile]], t: Tile) -> int:
    for n, r in enumerate(rows):
        if t in r:
            return n
    return len(rows)


def apart_cost(t: Tile, main: Optional[list[Tile]]) -> float:
    """How unlikely t is the winning tile set apart: it should sit just right of the concealed row."""
    if main is None:
        return 0.0
    end = main[-1]
    du = (t.u - end.u) / end.w
    dv = abs(t.v - end.v) / end.w
    return dv * 2 + (abs(du - 1.8) if du > 0 else 4 + abs(du))


def structure_vote(fr: Frame) -> float:
    """With labels silent (rows near vertical in the image) two cues tell which way the rows read:
    the winning tile set apart lies right of the concealed row, and a sideways tile lies on the row's
    near edge (towards the player), so its centre is nearer the player than its neighbours'. > 0: the rows
    read as framed; < 0: turned half a turn; 0: neither cue tells."""
    vote = 0.0
    groups = [g for g in fr.groups if not is_meld_group(g)]
    multi = [g for g in groups if len(g) > 1]
    singles = [g[0] for g in groups if len(g) == 1]
    if multi and singles:
        main = max(multi, key=len)
        row = [t for t in singles if abs(t.v - main[0].v) < main[0].w]
        right = sum(t.u > main[-1].u for t in row)
        vote += float(np.sign(right - (len(row) - right)))
    offsets = []
    for g in fr.groups:
        if not is_meld_group(g):
            continue
        ups = [t for t in g if not t.side]
        for t in g:
            if t.side and ups:
                offsets.append((t.v - float(np.mean([o.v for o in ups]))) / t.w)
    if offsets and abs(float(np.mean(offsets))) > 0.05:
        vote += float(np.sign(np.mean(offsets)))
    return vote


def apart_by_gap(row: list[Tile]) -> Optional[Tile]:
    """A hand row's last tile when it was set apart by less than a group gap: the row's gap before it is clearly
    its widest (win_gap times the typical spacing; of two tiles, wider than touching tiles' spacing), or it was
    pushed across the row (win_push tile widths nearer the player or farther, the other tiles in line)."""
    lp = current_params()
    if len(row) < 2:
        return None
    row = sorted(row, key=lambda t: t.u)
    d = [b.u - a.u for a, b in zip(row, row[1:])]
    typical = float(np.median(d[:-1])) if len(d) > 1 else (row[0].w + row[1].w) / 2
    if d[-1] > lp.win_gap * typical and d[-1] == max(d):
        return row[-1]
    line = float(np.median([t.v for t in row[:-1]]))
    in_line = all(abs(t.v - line) < lp.win_push / 2 * t.w for t in row[:-1])
    return row[-1] if len(row) > 2 and in_line and abs(row[-1].v - line) > lp.win_push * row[-1].w else None


def laid_winning(row: list[Tile], expected: int) -> Optional[Tile]:
    """The winning tile of a hand laid face up in one row (its tiles outside melds, sorted along it): the last
    tile, when the row holds one tile more than the melds leave room for (``expected``) and that tile is set
    apart, a group of its own or after the row's widest gap. A hand laid down without a win shows none."""
    if len(row) != expected + 1 or len(row) < 2:
        return None
    if len(split_groups(row)[-1]) == 1:
        return row[-1]
    return apart_by_gap(row)
