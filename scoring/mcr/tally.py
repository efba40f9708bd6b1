"""The tally the three scoring paths share (``engine.score``, ``fast._fast`` and the compiled core ``ccore``).

* the fan table: ``ROWS`` (fan id -> row), ``FAN_TABLE`` (table order: by value, high first, then the 1998
  number) and ``ORDER`` (fan id -> its place in it), one shared ``FanHit`` per fan and count (``hit``);
* each profile's plan (``profile_plan``): its predicates grouped by what they read and its 不计 lists;
* the 不计 step (``apply_excludes``), the points, 幺九刻减计 (``add_implied``);
* the result: the decomposition text (``describe``) and the ``ScoreResult`` with flowers, minimum and
  payments (``finish``);
* the quick paths' checks of plain input (``plain_input``, ``plain_flowers``, ``SIT_FIELDS``).

Its tables (``fan_hits``' and ``describe``'s) are bounded; ``clear_caches`` empties them.
"""

from __future__ import annotations

from dataclasses import fields
from functools import cache
from operator import attrgetter

from .. import tiles as T
from ..hand import Situation
from ..notation import format_meld, format_tiles
from ..result import FanHit, ScoreResult
from . import fans_chows, fans_flowers, fans_limits, fans_pungs, fans_situation, fans_special, fans_waits  # noqa: F401
from .fantable import all_rows
from .profiles import Profile
from .shapes import CHOW_SET

MIN_POINTS = 8
NOT_WIN = "not a winning shape (no 4 sets + pair, 七对, 十三幺, 全不靠 or 组合龙 reading)"
CACHE_LIMIT = 1 << 15  # the bound of every per-content table of the scorers
ROWS = all_rows()
# Table order: by value, high first, then the 1998 number (the order 不计 lists are applied in).
FAN_TABLE = tuple(sorted(ROWS.values(), key=lambda r: (-r.value, r.number)))
ORDER = {r.id: i for i, r in enumerate(FAN_TABLE)}
SIT_FIELDS = attrgetter(*(f.name for f in fields(Situation)))  # a Situation's content, cheaper than its hash
_HITS: dict[str, dict[int, FanHit]] = {r.id: {} for r in FAN_TABLE}
_FANS: dict = {}  # ((fan id, count), ...) -> (FanHit, ...)


def hit(fid: str, count: int) -> FanHit:
    """FanHit objects are immutable: share one per (fan, count)."""
    h = _HITS[fid].get(count)
    if h is None:
        r = ROWS[fid]
        h = _HITS[fid][count] = FanHit(r.id, r.name_cn, r.name_en, r.value, count)
    return h


@cache
def profile_plan(prof: Profile):
    """Predicates grouped by what they read, and the 不计 lists active in a profile, in table order."""
    rows = [r for r in FAN_TABLE if r.predicate is not None and (prof.extra_fans or not r.house)]
    groups: dict = {}
    for r in rows:
        groups.setdefault(r.group, []).append((r.id, r.predicate))
    excl = tuple(
        (
            r.id,
            tuple(e for e in r.excludes if e not in prof.excludes_remove.get(r.id, ()))
            + tuple(prof.excludes_add.get(r.id, ()))
            + (r.implied if prof.house_non_repetition else ()),
        )
        for r in rows
    )
    return tuple((g, tuple(p)) for g, p in groups.items()), {fid: ex for fid, ex in excl if ex}


def clear_caches() -> None:
    """Empty the fan-hit and text tables (the shared FanHit objects and the profiles' plans stay)."""
    _FANS.clear()
    _TEXTS.clear()


def apply_excludes(found: dict, excl: dict) -> dict:
    """The 不计 lists (``excl``: fan id -> its list) applied to ``found`` in place: the fans found are taken in
    table order, from the highest down, and a fan still counted when its turn comes cancels its list."""
    for fid in sorted(found, key=ORDER.__getitem__):
        ex = excl.get(fid)
        if ex is not None and fid in found:
            for e in ex:
                if e.__class__ is str:
                    found.pop(e, None)
                else:
                    k, n = e
                    if k in found:
                        found[k] -= n
                        if found[k] <= 0:
                            del found[k]
    if not found:
        found["chicken_hand"] = 1
    return found


def fan_items(found: dict) -> tuple:
    """``((fan id, count), ...)`` in table order."""
    return tuple((k, found[k]) for k in sorted(found, key=ORDER.__getitem__))


def fan_hits(items: tuple) -> tuple:
    """The shared ``FanHit`` objects of ``fan_items``' result (a bounded table)."""
    hits = _FANS.get(items)
    if hits is None:
        if len(_FANS) > CACHE_LIMIT:
            _FANS.clear()
        hits = _FANS[items] = tuple(hit(k, n) for k, n in items)
    return hits


def points(found: dict) -> int:
    return sum(ROWS[k].value * n for k, n in found.items())


def add_implied(found: dict, pungs, sit) -> bool:
    """Counts 幺九刻减计 in ``found`` (the honour pungs scored by a 2+ point pung fan inside 字一色/混幺九, each
    pung once) when there is any; True if it did."""
    n = _implied(pungs, sit, found)
    if n:
        found["implied_terminal_pung"] = n
    return bool(n)


def _implied(pungs, sit, found: dict) -> int:
    n = found.get("dragon_pung", 0) + 2 * ("two_dragons_pungs" in found)
    if "big_three_winds" in found:
        return n + 3
    return n + sum(
        1
        for w in set(pungs)
        if 27 <= w <= 30
        and ((w == sit.prevalent_wind and "prevalent_wind" in found) or (w == sit.seat_wind and "seat_wind" in found))
    )


_SUIT = "mpsz"
_TEXTS: dict = {}  # set, pair, meld or winning tile -> its notation (a bounded table of small strings)


def _group_text(tiles) -> str:
    return "".join(str(t % 9 + 1) for t in tiles) + _SUIT[tiles[0] // 9]


def describe(cand, melds, concealed, win) -> str:
    """The chosen reading in notation, e.g. ``123m 456p 789s 111z 55m [345m<] +5m`` (each set, pair, meld and
    winning tile written once, then looked up)."""
    texts = _TEXTS
    if len(texts) > CACHE_LIMIT:
        texts.clear()
    parts = []
    if cand.form in ("regular", "knitted_straight"):
        if cand.form == "knitted_straight":
            parts.append(format_tiles(cand.knit) + "(组合龙)")
        for st in cand.sets:  # (kind, first tile)
            parts.append(texts.get(st) or texts.setdefault(st, _set_text(*st)))
        pair = ("pair", cand.pair)
        parts.append(texts.get(pair) or texts.setdefault(pair, _group_text((cand.pair, cand.pair))))
    else:
        label = {"seven_pairs": "七对", "thirteen_orphans": "十三幺", "honors_knitted": "全不靠"}[cand.form]
        parts.append(format_tiles(sorted(concealed + (win,))) + f"({label})")
    for m in melds:
        key = (m.kind, m.tile, m.concealed, m.source, m.added)
        parts.append(texts.get(key) or texts.setdefault(key, format_meld(m)))
    won = ("win", win)
    parts.append(texts.get(won) or texts.setdefault(won, " +" + T.code(win)))
    return " ".join(parts[:-1]) + parts[-1]


def _set_text(kind: int, t: int) -> str:
    return _group_text((t, t + 1, t + 2) if kind == CHOW_SET else (t, t, t))


def finish(prof: Profile, fans: list, base: int, n_flowers: int, self_drawn: bool, desc: str, notes) -> ScoreResult:
    """The ScoreResult of a hand's best reading (``fans`` its fan hits, ``base`` their points): the flowers added,
    the 8-point minimum, the payments. Written once for the three paths (``score``, ``fast``, ``ccore``)."""
    if n_flowers:
        fans.append(hit("flowers", n_flowers))
    total = base + n_flowers
    if base < MIN_POINTS:
        return ScoreResult(
            "mcr",
            prof.name,
            False,
            fans,
            total,
            base,
            {},
            reason=f"under the {MIN_POINTS}-point minimum: {base} points (flowers do not count)",
            decomposition=desc,
            notes=list(notes),
        )
    if self_drawn:
        payments = {"each": MIN_POINTS + total}
    else:
        payments = {"discarder": MIN_POINTS + total, "other": MIN_POINTS}
    return ScoreResult("mcr", prof.name, True, fans, total, base, payments, decomposition=desc, notes=list(notes))


def plain_input(hand) -> bool:
    """Plain input, the only kind the quick paths take: tuples of tiles and melds, an ``int`` winning tile, a
    ``Situation``."""
    return (
        hand.concealed.__class__ is tuple
        and hand.melds.__class__ is tuple
        and hand.winning_tile.__class__ is int
        and hand.flowers.__class__ is tuple
        and hand.situation.__class__ is Situation
    )


def plain_flowers(flowers: tuple) -> bool:
    """Distinct flower tiles (ints 34..41), at most 8: what the fast paths take without the reference's checks."""
    return not (
        len(set(flowers)) != len(flowers)
        or len(flowers) > 8
        or not all(f.__class__ is int and 34 <= f < 42 for f in flowers)
    )
