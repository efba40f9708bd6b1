"""Melds and the seats they were claimed from: reading a group of tiles as chows, pungs and kongs, mending a misread
tile, added kongs stacked on a claimed tile.
"""
from __future__ import annotations

import itertools
import math
from collections import Counter
from dataclasses import replace
from typing import Optional

import numpy as np
from mjtable.scoring import tiles as T
from mjtable.scoring.hand import CHOW, KONG, PUNG, Meld
from mjtable.scoring.table import (
    MeldOnTable,
    source_of_sideways,
)

from ..types import SIDEWAYS
from .base import current_params
from .geometry import Near, Tile, describe, label_axis, median


def read_meld(g: list[Tile], guess: bool = True) -> tuple[MeldOnTable, Optional[str]]:
    """Interpret a group as a meld. Returns the meld on the table and a problem message (or None).
    guess: allow the readings that complete a group from part of it (not for a piece cut from a longer run).

    The stages: the group as laid (flat tiles, stacked tiles, the sideways one), the refusals no reading can
    mend, then a concealed kong (_read_concealed_kong) or a claimed meld (_read_claimed)."""
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
        return _read_concealed_kong(mot, flat, added, sides, shown, guess)
    if sideways is None:
        return mot, f"meld {desc}: no sideways tile"
    return _read_claimed(mot, flat, added, shown, sideways, guess)


def _read_concealed_kong(mot: MeldOnTable, flat: list[Tile], added: list[Tile], sides: list[int],
                         shown: list[int], guess: bool) -> tuple[MeldOnTable, Optional[str]]:
    """A group with a face-down tile, or four tiles none sideways: a concealed kong (four tiles, at least one
    face down, the face-up ones alike). Reads the meld as laid (mot), its flat and stacked tiles, the places of
    its sideways tiles and the kinds shown; returns the meld read and its problem (or None): completed from part
    of it (_kong_from_part), refused or mended (_kong_problem), or read as laid (_kong_as_laid)."""
    n = len(flat) + len(added)
    face_down = mot.tiles.count(None)
    read = _kong_from_part(mot, added, sides, shown, n, face_down, guess)
    if read is None:
        read = _kong_problem(mot, flat, sides, shown, n, face_down)
    if read is None:
        read = _kong_as_laid(mot, shown[0], face_down)
    return read


def _kong_from_part(mot: MeldOnTable, added: list[Tile], sides: list[int], shown: list[int], n: int,
                    face_down: int, guess: bool) -> Optional[tuple[MeldOnTable, Optional[str]]]:
    """A concealed kong one of whose tiles was not found, or a claimed set of white dragons taken for backs.
    Reads the meld as laid, its stacked tiles, sideways places, kinds shown, tile count and face-down count;
    returns the meld completed with its note, or None when neither reading applies."""
    tiles = mot.tiles
    desc = f"[{_codes(tiles)}]"
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
    return None


def _kong_problem(mot: MeldOnTable, flat: list[Tile], sides: list[int], shown: list[int], n: int,
                  face_down: int) -> Optional[tuple[MeldOnTable, Optional[str]]]:
    """What keeps a group from being a concealed kong. Reads the meld as laid, its flat tiles, sideways places,
    kinds shown, tile count and face-down count; returns the meld with its problem, the meld mended from the
    detections' candidates when faces differ (with the problem and the change), or None when it is a kong."""
    desc = f"[{_codes(mot.tiles)}]"
    problem = None
    if sides or n != 4:
        problem = f"meld {desc}: face-down tiles but not a concealed kong of 4"
    elif not shown:
        problem = f"concealed kong {desc}: no tile face up, cannot tell which"
    elif len(set(shown)) != 1 or not face_down:
        problem = (f"concealed kong {desc}: face-up tiles differ" if face_down
                   else f"meld {desc}: no sideways tile")
        fix = _repair_meld(flat, _concealed_kong) or (_odd_face(flat) if face_down else None)
        if fix is not None:
            kinds, changed = fix
            tiles = tuple(None if k == T.BACK else k for k in kinds)
            shown = [k for k in tiles if k is not None]
            return (replace(mot, tiles=tiles, meld=Meld(KONG, shown[0], concealed=True)),
                    f"{problem} as read; read as [{_codes(tiles)}] ({changed})")
    if problem:
        return mot, problem
    return None


def _kong_as_laid(mot: MeldOnTable, k: int, face_down: int) -> tuple[MeldOnTable, Optional[str]]:
    """A concealed kong of k. Reads the meld as laid and its face-down count; returns the kong, its faces and
    backs set right (with a note) when one back or one face was misread."""
    tiles = mot.tiles
    desc = f"[{_codes(tiles)}]"
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


def _read_claimed(mot: MeldOnTable, flat: list[Tile], added: list[Tile], shown: list[int], sideways: int,
                  guess: bool) -> tuple[MeldOnTable, Optional[str]]:
    """A claimed meld (one sideways tile, every tile face up). Reads the meld as laid, its flat and stacked tiles,
    the kinds shown and the sideways place; returns the chow, pung or kong with its source seat (mended from the
    candidates, or from the odd tile out when guess, with a note), or the meld with its problem."""
    tiles = mot.tiles
    desc = f"[{_codes(tiles)}]"
    note = None
    kind = _set_kind(shown)
    if kind is None:
        fix = _repair_meld(flat + added, lambda ks: T.BACK not in ks and _set_kind(ks) is not None)
        if guess and (fix is None or _changes(flat + added, fix[0]) > 1):
            fix = _odd_one_out(flat + added) or fix     # one tile mended before two (no chow holds alike tiles)
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


def _changes(ts: list[Tile], kinds: list[int]) -> int:
    """How many of the tiles a reading gives another kind."""
    return sum(t.kind != k for t, k in zip(ts, kinds))


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


def _codes(tiles) -> str:
    return " ".join("back" if t is None else T.code(t) for t in tiles)


def _concealed_kong(kinds: list[int]) -> bool:
    """Four tiles shown as a concealed kong: at least one face down, the face-up ones one playing kind."""
    faces = {k for k in kinds if k != T.BACK}
    return len(kinds) == 4 and T.BACK in kinds and len(faces) == 1 and 0 <= min(faces) < T.N_KINDS


def likeliest(options: list, valid) -> tuple[Optional[list[int]], float]:
    """The likeliest choice of one (kind, probability) per tile that ``valid`` accepts, and its probability."""
    best, best_p = None, 0.0
    for combo in itertools.product(*options):
        p = math.prod(q for _, q in combo)
        if p > best_p and valid([k for k, _ in combo]):
            best, best_p = [k for k, _ in combo], p
    return best, best_p


def _repair_meld(ts: list[Tile], valid) -> Optional[tuple[list[int], str]]:
    """The most likely reading that ``valid`` accepts, from the detections' candidate kinds (a face-down tile
    is kind BACK): (kinds in order, what changed), or None."""
    lp = current_params()
    options = [t.det.candidates or ((t.kind, 1.0),) for t in ts]
    if len(options) > 4 or all(len(o) == 1 and o[0][0] == t.kind for o, t in zip(options, ts)):
        return None         # nothing else to read (a locator's face-up vote may leave the kind off the list)
    read_p = math.prod(dict(o).get(t.kind, 1e-3) for o, t in zip(options, ts))
    best, best_p = likeliest(options, valid)
    if best is None or best_p < lp.repair_ratio * read_p:
        return None
    changed = ", ".join(f"{T.code(t.kind)}->{T.code(k)} p={dict(o)[k]:.2f}"
                        for t, k, o in zip(ts, best, options) if k != t.kind)
    return best, changed


def _odd_one_out(ts: list[Tile]) -> Optional[tuple[list[int], str]]:
    """A claimed meld of 3 or 4 face-up tiles, all alike but one read unsurely: no chow holds two alike tiles,
    so it is a pung (kong) of them and the odd tile was misread. (kinds in order, what changed), or None."""
    lp = current_params()
    kinds = [t.kind for t in ts]
    if len(ts) not in (3, 4) or T.BACK in kinds:
        return None
    k, n = Counter(kinds).most_common(1)[0]
    odd = next((t for t in ts if t.kind != k), None)
    if n != len(ts) - 1 or odd is None:
        return None
    p = dict(odd.det.candidates).get(odd.kind, odd.det.confidence)   # no candidates: a file's confidence
    if p >= lp.odd_unsure:
        return None
    return [k] * len(ts), f"{T.code(odd.kind)}->{T.code(k)} p={p:.2f}: only a pung holds two alike tiles"


def _odd_face(ts: list[Tile]) -> Optional[tuple[list[int], str]]:
    """A concealed kong's two faces read as two kinds, one surely and one not: its faces are alike, so the
    unsure one was misread (its candidates may not hold the sure one's kind). (kinds in order, what changed),
    or None."""
    lp = current_params()
    faces = [t for t in ts if t.kind != T.BACK]
    if len(faces) != 2 or faces[0].kind == faces[1].kind:
        return None
    p = [dict(t.det.candidates).get(t.kind, t.det.confidence) for t in faces]
    sure, odd = (faces[0], faces[1]) if p[0] >= p[1] else (faces[1], faces[0])
    if max(p) < lp.odd_unsure or min(p) >= lp.odd_unsure:
        return None
    return ([sure.kind if t is odd else t.kind for t in ts],
            f"{T.code(odd.kind)}->{T.code(sure.kind)} p={min(p):.2f}: a concealed kong's faces are alike")


def _chunk_ok(g: list[Tile]) -> bool:
    """A run of tiles that reads as exactly one meld (as read, or repaired from the candidates; not the
    readings that complete a group from part of it, which are for a group on its own, never a piece cut from
    a longer run)."""
    if len(g) not in (3, 4):
        return False
    mot = read_meld(g, guess=False)[0]
    return mot.meld is not None and len(mot.tiles) + sum(t.added for t in g) == len(g)


def _gap_after(a: Tile, b: Tile) -> float:
    lp = current_params()
    ext = (a.w * (lp.aspect if a.side else 1) + b.w * (lp.aspect if b.side else 1)) / 2
    return ((b.u - a.u) - ext) / ((a.w + b.w) / 2)


def _partition_melds(g: list[Tile]) -> Optional[list[list[Tile]]]:
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


def _melds_of(g: list[Tile]) -> Optional[list[list[Tile]]]:
    """The melds a run reads as: itself if it is one, else its split into melds; None if neither."""
    return [g] if _chunk_ok(g) else _partition_melds(g)


def _melds_ok(g: list[Tile]) -> bool:
    """A run that reads as one meld or splits into melds."""
    return _melds_of(g) is not None


def split_melds(g: list[Tile]) -> tuple[list[list[Tile]], list[Tile]]:
    """A run where melds lie, as melds: (the melds, or [g] when it reads as none; the boxes left out to read
    it). A run that reads as no melds may without one box, or two: much less sure than the run (weak_end x the
    median), or face down (an object or a shadow the locator took for a back beside a meld, a dark card read as
    two); of the three least sure such boxes, the least sure one that lets it read is left out, else (a run of
    five or more) the least sure pair."""
    lp = current_params()
    parts = _melds_of(g)
    if parts is not None or len(g) < 4:
        return parts or [g], []
    med = median([t.det.confidence for t in g])
    odd = sorted((t for t in g if t.det.confidence < lp.weak_end * med or t.back),
                 key=lambda t: t.det.confidence)[:3]
    for out in [[t] for t in odd] + [list(p) for p in itertools.combinations(odd, 2) if len(g) >= 5]:
        parts = _melds_of([o for o in g if not any(o is t for t in out)])
        if parts is not None:
            return parts, out
    return [g], []


def rejoin(groups: list[list[Tile]]) -> list[list[Tile]]:
    """Neighbouring groups in a row of melds that are no melds on their own but are together, and lie less
    than rejoin_gap tile widths apart, are one: a gap opened inside a meld (a box too narrow for its tile, a
    sideways tile not seen as one)."""
    lp = current_params()
    out: list[list[Tile]] = []
    for g in groups:
        if (out and not (_melds_ok(out[-1]) and _melds_ok(g)) and _gap_after(out[-1][-1], g[0]) < lp.rejoin_gap
                and not any(t.back for t in out[-1] + g) and _melds_ok(out[-1] + g)):
            out[-1] = out[-1] + g
        else:
            out.append(list(g))
    return out


def lone_backs(g: list[Tile]) -> bool:
    """Face-down tiles alone in a group: a concealed kong only as four; fewer or more belong nowhere, unless
    they are three with one lying across (a claimed pung of blank white dragons, blank_set)."""
    return all(t.back for t in g) and len(g) != 4 and not blank_set(g)


def blank_set(g: list[Tile]) -> bool:
    """Three or four backs with exactly one lying across their row: no face-down tile lies sideways in a meld,
    so this is a claimed pung or kong of white dragons, whose face is blank in some sets."""
    return 3 <= len(g) <= 4 and all(t.back for t in g) and sum(t.side for t in g) == 1


def _weak_mark(t: Tile, g: list[Tile]) -> bool:
    """A box of group g much less sure than the group (weak_end x the median) that is the group's only back, or a
    face-up box whose classifier's likeliest kind is a back: no mark of a meld (a concealed kong shows two backs
    or four)."""
    if t.det.confidence >= current_params().weak_end * median([o.det.confidence for o in g]):
        return False
    if t.back:
        return sum(o.back for o in g) == 1
    c = t.det.candidates
    return bool(c) and c[0][0] == T.BACK


def is_meld_group(g: list[Tile]) -> bool:
    """A group laid out as a meld: it holds a sideways or face-down tile, or it is four tiles the classifier
    finds likelier to be a concealed kong with pale backs read as faces than what it read. A weak mark marks no
    meld (_weak_mark): a box on the edges of upright tiles, found in a photo turned level or stretched back, lies
    across the row or is read as a back."""
    if 2 <= len(g) <= 5 and any((t.back or t.side) and not _weak_mark(t, g) for t in g):
        return True
    return len(g) == 4 and _repair_meld(g, _concealed_kong) is not None


def _extent(t: Tile, theta: float) -> tuple[float, float]:
    """The box's extent along the row (u) and across it (v) in the row frame."""
    x1, y1, x2, y2 = t.det.box
    c, s = math.cos(theta), math.sin(theta)
    us = [x * c + y * s for x in (x1, x2) for y in (y1, y2)]
    vs = [-x * s + y * c for x in (x1, x2) for y in (y1, y2)]
    return max(us) - min(us), max(vs) - min(vs)


def _merged_added_pair(g: list[Tile], theta: float) -> Optional[Tile]:
    """An added kong (加杠) whose claimed tile and the tile stacked on it came out as ONE box: two upright tiles
    of one kind beside a box longer along the row than theirs (a tile lying sideways) and also taller (a second
    tile on it). Turns that box into the claimed tile and returns a second tile for the added one."""
    lp = current_params()
    if len(g) != 3 or any(t.back or t.added for t in g):
        return None
    ext = [_extent(t, theta) for t in g]
    for i, t in enumerate(g):
        others = [o for j, o in enumerate(g) if j != i]
        if others[0].kind != others[1].kind or any(o.side for o in others) or not 0 <= others[0].kind < T.N_KINDS:
            continue
        du = float(np.mean([e[0] for j, e in enumerate(ext) if j != i]))
        dv = float(np.mean([e[1] for j, e in enumerate(ext) if j != i]))
        if ext[i][0] >= lp.merged_wide * du and ext[i][1] >= lp.merged_tall * dv:
            kind = others[0].kind
            t.det = replace(t.det, kind=kind, orientation=SIDEWAYS)
            t.side = True
            return Tile(t.i, t.det, t.x, t.y, t.s, t.u, t.v - 0.5 * t.w, t.w, side=True, added=True)
    return None


def split_merged_pair(g: list[Tile], theta: float, notes: list[str]) -> None:
    """_merged_added_pair on a group: the second tile joins it, and a note says so."""
    pair = _merged_added_pair(g, theta)
    if pair is not None:
        g.append(pair)
        notes.append(f"one box {describe(pair)} covers the claimed tile of a kong and the tile added on it (加杠): "
                     f"read as two {T.code(pair.kind)}")


def _wide_in_row(t: Tile, tiles: list[Tile], theta: float) -> bool:
    """A face-up box not marked sideways but as long along the row as a sideways tile (merged_wide times its
    upright neighbours): a claimed tile whose label missed that it lies across (or one box over it and more).
    ``tiles``: all tiles, or those near t (Near.around, 2.5 t.w)."""
    lp = current_params()
    if t.side or t.back:
        return False
    ups = [_extent(n, theta)[0] for n in tiles if n is not t and not n.side and not n.back
           and abs(n.v - t.v) < 0.5 * t.w and 0 < abs(n.u - t.u) < 2.5 * t.w]
    return bool(ups) and _extent(t, theta)[0] >= lp.merged_wide * median(ups)


def stack_added(tiles: list[Tile], theta: float) -> list[Tile]:
    """Tiles stacked on a claimed sideways tile (an added kong, 加杠): the same kind, lying the same way,
    just beyond it (farther from the player). Marks them (added, sideways) and returns them. The stacked tile
    may already be read as sideways (when it shares the meld's row) or not (a row of its own). The claimed tile
    may be labelled upright if its box is as long as a sideways tile's and a sideways-labelled tile lies on it."""
    lp = current_params()
    out = []
    # every test below bounds how far apart two tiles lie, by 2.5 times the wider one's width at most
    grid = Near(tiles, 2.5 * max((t.w for t in tiles), default=0.0))
    for t in tiles:
        if t.added or t in out:
            continue
        near = grid.around(t, grid.cell)
        wide = _wide_in_row(t, near, theta)
        if not t.side and not wide:
            continue
        # the meld's other tiles, beside the sideways one in its row
        beside = {n.kind for n in near if n is not t and not n.back and abs(n.v - t.v) < 0.5 * t.w
                  and 0 < abs(n.u - t.u) < 1.6 * t.w}
        for o in near:
            if o is t or o.added or o in out or t.back or o.back or (wide and not o.side):
                continue
            # the claimed tile under the added one may show only a sliver: its box is smaller than a tile, and
            # either box's size bounds how far apart they may lie
            w, lo = max(t.w, o.w), min(t.w, o.w)
            if not (abs(o.u - t.u) < 0.4 * w and lp.stack_near * lo < t.v - o.v < 1.6 * w):
                continue
            same_way = (wide or label_axis(o.det.orientation) == label_axis(t.det.orientation)
                        if label_axis(o.det.orientation) is not None else True)
            if o.kind == t.kind:
                if not same_way:
                    continue
            elif abs(o.u - t.u) < lp.stack_square * w:
                # the claimed tile under the added one shows only its edge, the added one lies on it: two boxes
                # squarely one on the other are one kind, the meld's (shown beside them), or else the surer one's
                # if the other is much less sure and they lie the same way
                weak, sure = (t, o) if t.det.confidence < o.det.confidence else (o, t)
                kinds = {o.kind, t.kind} & beside
                if len(kinds) == 1:
                    kind = kinds.pop()
                elif same_way and weak.det.confidence < lp.stack_weak * sure.det.confidence:
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


def halves(rows: list[list[Tile]], gap: Optional[float] = None) -> list[tuple[Tile, Tile]]:
    """Neighbouring face-up boxes in a row whose centres are too close for two tiles (touching tiles' centres
    are a tile width apart or more): one tile, mostly a sideways one, found as two overlapping halves. ``gap``:
    how close (x the row's tile width) they lie, half_gap unless told."""
    lp = current_params()
    if gap is None:
        gap = lp.half_gap
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


def _merge_halves(a: Tile, b: Tile) -> tuple[Tile, Tile]:
    """(one tile over both boxes, the box dropped): the surer box's reading over the union of the two."""
    keep, drop = (a, b) if a.det.confidence >= b.det.confidence else (b, a)
    x1, y1 = min(a.det.box[0], b.det.box[0]), min(a.det.box[1], b.det.box[1])
    x2, y2 = max(a.det.box[2], b.det.box[2]), max(a.det.box[3], b.det.box[3])
    det = replace(keep.det, box=(x1, y1, x2, y2), orientation_p=())
    t = Tile(keep.i, det, (x1 + x2) / 2, (y1 + y2) / 2, math.sqrt((x2 - x1) * (y2 - y1)))
    t.w = max(a.w, b.w)
    return t, drop


def merge_all(tiles: list[Tile], pairs) -> tuple[list[Tile], list[Tile], list[str]]:
    """Tiles with each pair of halves merged; the dropped boxes; a note for each."""
    gone = {id(x) for p in pairs for x in p}
    merged, dropped, notes = [], [], []
    for a, b in pairs:
        t, d = _merge_halves(a, b)
        merged.append(t)
        dropped.append(d)
        notes.append(f"boxes {describe(a)} and {describe(b)} lie over one tile (a sideways tile found as two "
                     f"halves): read as one {T.code(t.kind)}")
    return [t for t in tiles if id(t) not in gone] + merged, dropped, notes


def promote_widest(g: list[Tile]) -> bool:
    """A set of three or four face-up tiles where melds lie, none marked sideways, one of them clearly the
    widest along the row: a claimed meld whose sideways tile the labels missed (a face alike turned a quarter:
    1p, 8s, 5z). Marks that tile sideways; True if it did."""
    lp = current_params()
    if not 3 <= len(g) <= 4 or any(t.side or t.back or t.added for t in g) or _set_kind([t.kind for t in g]) is None:
        return False
    lean = sorted(g, key=lambda t: -t.lean)
    if lean[0].lean >= lp.lean_min and lean[0].lean - lean[1].lean >= lp.lean_margin:
        lean[0].side = True
        return True
    return False
