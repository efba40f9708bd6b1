"""Flowers and seasons: which boxes are flowers (not a suit tile read as one), and each counted once."""
from __future__ import annotations

import itertools
import math
from dataclasses import replace

import numpy as np
from mjtable.scoring import tiles as T

from .base import current_params
from .geometry import Near, Tile, describe
from .melds import likeliest


def distinct_flowers(flowers: list[Tile], notes: list[str]) -> tuple[int, ...]:
    """The flowers' kinds. A set holds one of each flower: if two read the same, the most likely distinct
    reading among the candidate kinds is taken (and reported); without one, the reading stays as it is. A tile
    the classifier read first as another kind, made a flower by the layout (``rivers._flowers_of_own_art``, from
    its family's chance; ``flowers_beside_flowers``), yields to those it read as flowers: it takes the likeliest of
    its flowers (Detection.flower, else its candidates) that they leave."""
    kinds = tuple(t.kind for t in flowers)
    if len(set(kinds)) == len(kinds) or len(kinds) > 8:
        return kinds
    distinct = lambda ks: len(set(ks)) == len(ks)                                  # noqa: E731
    # tiles the classifier read as some other kind first, made flowers by the layout, yield to those it read so
    later = [i for i, t in enumerate(flowers) if t.det.candidates and not T.is_flower(t.det.candidates[0][0])]
    first = [i for i in range(len(flowers)) if i not in later]
    best = list(kinds)
    if not distinct([kinds[i] for i in first]):
        options = [[(k, p) for k, p in (flowers[i].det.candidates or ((kinds[i], 1.0),)) if T.is_flower(k)]
                   or [(kinds[i], 1.0)] for i in first]
        chosen, _ = likeliest(options, distinct)
        for i, k in zip(first, chosen or [kinds[i] for i in first]):
            best[i] = k
    used = {best[i] for i in first}
    options = [[(k, p) for k, p in _flower_options(flowers[i]) if k not in used][:4] or [(kinds[i], 1.0)]
               for i in later]
    chosen, _ = likeliest(options, distinct) if later else (None, 0.0)
    for i, k in zip(later, chosen or []):
        best[i] = k
    if tuple(best) == kinds:
        return kinds
    notes.append("flowers read " + " ".join(T.code(k) for k in kinds) + ": each flower is unique; read as "
                 + " ".join(T.code(k) for k in best))
    return tuple(best)


def weak_duplicates(flowers: list[Tile], kinds: tuple[int, ...]) -> list[int]:
    """The flowers (indices) still read as the same flower as another after distinct_flowers that are weak
    (under LayoutParams.weak_flower) and less sure than the surest of them: a set holds one of each, and a weak
    box that no other flower fits is a card, a coin or a shadow read as one."""
    lp = current_params()
    out = []
    for k in set(kinds):
        same = [i for i, x in enumerate(kinds) if x == k]
        if len(same) > 1:
            keep = max(same, key=lambda i: flowers[i].det.confidence)
            out += [i for i in same if i != keep and flowers[i].det.confidence < lp.weak_flower]
    return sorted(out)


def held_flowers(flowers: list[Tile], notes: list[str], outcome: str) -> tuple[tuple[int, ...], list[int]]:
    """(each flower's kind, distinct_flowers; the indices of the weak duplicates, weak_duplicates), each duplicate
    said in notes: "... so it is <outcome>" (not placed, not part of the hand)."""
    kinds = distinct_flowers(flowers, notes)
    dup = weak_duplicates(flowers, kinds)
    notes += [f"weak flower box {describe(flowers[i])} reads as {T.code(kinds[i])}, as a surer box does: a set holds "
              f"one of each flower, so it is {outcome}" for i in dup]
    return kinds, dup


def _flower_options(t: Tile) -> list[tuple[int, float]]:
    """The flowers a tile may be with their probabilities, likeliest first: Detection.flower, else its
    candidates' flowers."""
    return [(k, p) for k, p in (t.det.flower or t.det.candidates or ((t.kind, 1.0),)) if T.is_flower(k)]


def isolated(t: Tile, others: list[Tile]) -> bool:
    lp = current_params()
    return all(math.hypot(o.x - t.x, o.y - t.y) > lp.isolated * t.w for o in others if o is not t)


def flowers_inside_rows(tiles: list[Tile]) -> list[str]:
    """A weak flower box in a row of suit tiles (touching one on each side, or at the row's end touching one and
    no flower) belongs to the hand or its melds (two stacked tiles of an added kong found as one box, a
    sideways tile misread, say): it is read as its likeliest suit tile. Returns notes."""
    lp = current_params()
    notes = []
    grid = Near(tiles, 1.4 * max((t.s for t in tiles), default=0.0), uv=False)     # _touching's reach at most
    for t in tiles:
        if T.is_flower(t.kind) and t.det.confidence < lp.weak_flower and _inside_a_row(t, grid.around(t, grid.cell)):
            where = describe(t)
            k = read_as_suit_tile(t)
            if k is not None:
                notes.append(f"weak flower box {where} lies in a row of suit tiles: read as {T.code(k)}")
    return notes


def read_as_suit_tile(t: Tile) -> int | None:
    """A box misread as a flower, read as its likeliest suit (or honour) tile among its candidates; that kind, or
    None (the box left as it is) when it has none."""
    k = next((k for k, _ in t.det.candidates if 0 <= k < T.N_KINDS), None)
    if k is not None:
        t.det = replace(t.det, kind=k)
    return k


def _touching(t: Tile, tiles: list[Tile], flowers: bool, reach: float = 1.4) -> list[Tile]:
    """Face-up tiles near this one (centres closer than ``reach`` x the larger scale): flowers, or suit tiles.
    Touching tiles' centres lie about 1.0 scale apart (an upright and a sideways one), tiles set apart by a
    gap 1.3 or more."""
    return [o for o in tiles if o is not t and T.is_flower(o.kind) == flowers and not o.back
            and math.hypot(o.x - t.x, o.y - t.y) < reach * max(o.s, t.s)]


def _inside_a_row(t: Tile, tiles: list[Tile]) -> bool:
    """Suit tiles touch this one on opposite sides, or one touches it closely and no flower is near."""
    lp = current_params()
    if _touching(t, tiles, flowers=False, reach=lp.touch_close) and not _touching(t, tiles, flowers=True):
        return True
    near = _touching(t, tiles, flowers=False)
    for a, b in itertools.combinations(near, 2):
        va, vb = np.array([a.x - t.x, a.y - t.y]), np.array([b.x - t.x, b.y - t.y])
        if float(va @ vb) < -0.8 * float(np.linalg.norm(va) * np.linalg.norm(vb)):
            return True
    return False


def flowers_beside_flowers(tiles: list[Tile]) -> list[str]:
    """A tile touching a flower whose reading gives a flower some chance is a flower too (flowers lie together,
    apart from the hand; their faces are pictures the classifier may take for a suit tile). Returns notes."""
    lp = current_params()
    notes = []
    grew = True
    while grew:
        grew = False
        flowers = [t for t in tiles if T.is_flower(t.kind)]
        for t in tiles:
            if T.is_flower(t.kind) or t.back:
                continue
            options = [(k, p) for k, p in t.det.candidates if T.is_flower(k) and p >= lp.flower_beside]
            if options and any(math.hypot(f.x - t.x, f.y - t.y) < 1.2 * max(f.s, t.s) for f in flowers):
                k = options[0][0]
                notes.append(f"tile {describe(t)} touches the flowers and may be {T.code(k)} "
                             f"(p={options[0][1]:.2f}): read as {T.code(k)}")
                t.det = replace(t.det, kind=k)
                grew = True
    return notes
