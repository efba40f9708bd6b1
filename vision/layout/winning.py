"""The winning tile set apart, and which way the hand row reads."""
from __future__ import annotations

from typing import Optional

import numpy as np

from .melds import _is_meld_group
from .rows import _Frame, _Tile


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
