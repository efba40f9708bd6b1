"""``score(hand, profile)``: the MCR scorer. It runs the fan predicates of ``fans_*`` (the only definition of the
fans) on one light context per hand, without per-hand caches, and hands anything it does not take to the reference
path ``engine.score``.

Per hand: one pass over the tiles checks plain input (tuples of ``int`` tiles, ``Meld`` and ``Situation`` objects)
and counts it, keeping each suit's base-5 key; the readings come from the per-suit table (``suit_table``, through
``shapes.regular_from_keys``); the Situation flags are checked once (cached on the flags and the four tile facts
they depend on). Then, on one context object reused for every reading:

* the predicates of the ``tiles`` group run once per form (they read the tile counts, the same for every reading),
  those of ``situation`` once per hand, those of ``sets``, ``winds`` and ``waits`` per reading, each only if the
  reading meets its row's ``needs`` and ``forms`` (``fantable``);
* the fans found go through the 不计 lists, taken from the highest fan found down (``_after``);
* the reading with the highest total is kept, the first of equal ones, as in ``engine``.

Anything else (input that is not plain, a hand that fails a check: the reference path then gives every reason,
a profile whose predicates read the whole hand) goes to ``engine.score`` unchanged, so both paths give the same
``ScoreResult``; ``tests/test_mcr_fast.py`` compares them on random hands under every profile.

``score`` first offers the hand to the compiled core (``ccore``, the C extension ``_ccore``), which computes the
same in one call; ``_fast`` scores what the core does not take and is the reference ``tests/test_mcr_ccore.py``
compares it with.
"""

from __future__ import annotations

from itertools import compress
from typing import Any

from .. import tiles as T
from ..hand import CHOW, KONG, Hand, Meld, Situation
from ..result import ScoreResult
from . import ccore, engine, fans_situation
from .profiles import Profile, get_profile
from .shapes import (
    CHOW_SET,
    PUNG_SET,
    _honors_knitted,
    _knitted_straight,
    _seven_pairs,
    _thirteen_orphans,
    regular_from_keys,
)
from .tally import (
    CACHE_LIMIT,
    NOT_WIN,
    ROWS,
    SIT_FIELDS,
    add_implied,
    apply_excludes,
    describe,
    fan_hits,
    fan_items,
    finish,
    plain_flowers,
    plain_input,
    points,
    profile_plan,
)

_TILES = range(34)
_VALUE = {r.id: r.value for r in ROWS.values()}
_R5 = tuple(5 ** (t % 9) if t < 27 else 0 for t in range(34))
_SUIT = tuple(t // 9 for t in range(34))
_SOURCES = frozenset(("left", "across", "right"))
_WINDS = frozenset(T.WINDS)


class _Ctx:
    """What the predicates read (``context.Ctx``'s attributes), filled once per hand and per reading."""

    __slots__ = (
        "hand",
        "cand",
        "form",
        "pair",
        "knit",
        "sit",
        "prof",
        "win",
        "self_drawn",
        "counts",
        "standing",
        "notes",
        "sets",
        "chows",
        "pungs",
        "kongs_concealed",
        "kongs_exposed",
        "n_concealed_pungs",
        "n_claimed",
        "n_melds",
        "n_kongs",
        "cache",
        "kinds",
        "flags",
        "flags_key",
        "meld_sets",
    )
    hand: Hand
    cand: Any
    form: str
    pair: int | None
    knit: Any
    sit: Situation
    prof: Profile
    win: int
    self_drawn: bool
    counts: Any
    standing: Any
    notes: Any
    sets: list | None
    chows: tuple[int, ...]
    pungs: tuple[int, ...]
    kongs_concealed: int
    kongs_exposed: int
    n_concealed_pungs: int
    n_claimed: int
    n_melds: int
    n_kongs: int
    cache: dict
    kinds: frozenset[int]
    flags: dict
    flags_key: tuple
    meld_sets: list

    def all_sets_and_pair(self):
        out = list(self.meld_sets)
        out += self.cand.sets
        if self.pair is not None:
            out.append(("pair", self.pair))
        return out


_GROUPS = ("tiles", "sets", "winds", "waits")


class _Plan:
    """A profile's predicates by group and its 不计 lists (``tally.profile_plan``), with tables keyed on few values: the
    predicates that can score for a reading's form and numbers of chows, pungs, kongs and concealed pungs (their
    rows' ``needs`` and ``forms``), the Situation flag checks and the situation group's result."""

    __slots__ = ("prof", "rows", "situation", "excl", "flags", "chosen", "sit_found")

    def __init__(self, prof: Profile):
        groups, excl = profile_plan(prof)
        self.excl = excl
        by = dict(groups)
        self.prof = prof
        self.situation = by.pop("situation", ())
        self.rows = tuple(
            tuple((fid, pred, ROWS[fid].needs, ROWS[fid].forms) for fid, pred in by.pop(g, ())) for g in _GROUPS
        )
        if by:  # a "hand" group: only the reference path runs it
            raise ValueError(f"fast path: predicate groups {sorted(by)} are not handled")
        if any(
            needs != (0, 0, 0, 0)
            for _, _, needs, _ in self.rows[0] + tuple((fid, p, ROWS[fid].needs, ()) for fid, p in self.situation)
        ):
            raise ValueError("fast path: tiles and situation predicates are run once per form / hand: no needs")
        self.flags: dict = {}
        self.chosen: dict = {}
        self.sit_found: dict = {}

    def choose(self, key: tuple) -> tuple:
        """Per group, the predicates that can score for ``key`` = (form, chows, pungs, kongs, concealed pungs)."""
        form, nc, np_, nk, ncp = key
        got = self.chosen[key] = tuple(
            tuple(
                (fid, pred)
                for fid, pred, (a, b, k, d), forms in rows
                if (not forms or form in forms) and nc >= a and np_ >= b and nk >= k and ncp >= d
            )
            for rows in self.rows
        )
        return got


_PLANS: dict = {}


def clear_caches() -> None:
    for p in _PLANS.values():
        for d in (p.flags, p.chosen, p.sit_found):
            d.clear()
    ccore.clear_caches()


def _after(found: list, excl: dict) -> tuple:
    """``(points, fan items in table order, 字一色 or 混幺九 counted)`` after the 不计 lists
    (``tally.apply_excludes``)."""
    got = apply_excludes(dict(found), excl)
    items = fan_items(got)
    return (sum(_VALUE[k] * n for k, n in items), items, "all_honors" in got or "all_terminals_and_honors" in got)


def _run(preds, c, out: list) -> None:
    for fid, pred in preds:
        n = pred(c)
        if n:
            out.append((fid, int(n)))


def score(hand, profile="default") -> ScoreResult:
    """Score a finished hand under an MCR rule profile. Never raises for a bad hand (only for an unknown
    profile name): a hand that is impossible or not a winning shape gives ``is_win=False`` and a reason.

    The compiled core (``ccore``) scores the hand when it is built and covers the profile; ``_fast`` is the
    Python path for the rest and the reference the core is tested against."""
    prof = get_profile(profile)
    if ccore.ON:
        try:
            res = ccore.score(hand, prof)
        except Exception:  # odd input: the Python path judges it
            res = None
        if res is not None:
            return res
    try:
        res = _fast(hand, prof)
    except Exception:  # odd input that passed the quick checks: judged by the reference path
        res = None
    return engine.score(hand, prof) if res is None else res


def _fast(hand, prof: Profile):
    """The ScoreResult, or None for anything the reference path must judge (odd or impossible input). The stages:
    ``_read_concealed`` and ``_read_melds`` (one pass over the tiles: checks, counts, suit keys), ``_readings``,
    ``_read_situation`` (the flags, the situation group) and ``_best`` (each reading's fans, the highest total)."""
    plan = _PLANS.get(prof)
    if plan is None:
        plan = _new_plan(prof)
    concealed = hand.concealed
    win = hand.winning_tile
    flowers = hand.flowers
    sit = hand.situation
    if not plain_input(hand) or not 0 <= win < 34 or sit.seat_wind not in _WINDS or sit.prevalent_wind not in _WINDS:
        return None
    if flowers and not plain_flowers(flowers):
        return None
    got = _read_concealed(concealed, win)
    if got is None:
        return None
    wc, standing, keys = got
    counts = list(wc)  # every tile, kongs as 4
    c = _Ctx()
    from_melds = _read_melds(c, hand.melds, win, counts)
    if from_melds is None or len(concealed) + 1 + 3 * c.n_melds != 14 or max(counts) > 4:
        return None
    cands = _readings(keys, wc, c.n_melds)
    if not cands:
        return ScoreResult("mcr", prof.name, False, reason=NOT_WIN)
    c.hand = hand
    c.sit = sit
    c.prof = prof
    c.win = win
    c.counts = counts
    c.standing = standing
    situation = _read_situation(plan, c, from_melds[3])
    base, items, i = _best(plan, c, cands, situation, from_melds)
    desc = describe(cands[i], hand.melds, tuple(sorted(concealed)), win)
    return finish(prof, list(fan_hits(items)), base, len(flowers), c.self_drawn, desc, c.notes)


def _new_plan(prof: Profile) -> _Plan:
    if len(_PLANS) > 64:
        _PLANS.clear()
    plan = _PLANS[prof] = _Plan(prof)
    return plan


def _read_concealed(concealed, win: int):
    """``(counts of the standing tiles and the winning tile, counts of the standing tiles, base-5 key per suit)``,
    or None if a tile is not a plain tile id."""
    wc = [0] * 34  # standing tiles with the winning tile
    keys = [0, 0, 0, 0]  # base-5 key per suit (the 4th, honours, stays 0)
    for t in concealed:
        if t.__class__ is not int or not 0 <= t < 34:
            return None
        wc[t] += 1
        keys[_SUIT[t]] += _R5[t]
    standing = list(wc)
    wc[win] += 1
    keys[_SUIT[win]] += _R5[win]
    return wc, standing, keys


def _read_melds(c: _Ctx, melds, win: int, counts: list):
    """The melds' tiles added to ``counts``, their numbers and sets on ``c``; ``(chows, pungs and kongs, concealed
    kongs, copies of the winning tile)`` of the melds, or None if a meld is not plain or fails a check."""
    n_kongs = kc = n_claimed = n_cp_melds = in_melds = 0
    meld_chows, meld_pungs, meld_sets = [], [], []
    for m in melds:
        if m.__class__ is not Meld:
            return None
        kind, t, concealed_m = m.kind, m.tile, m.concealed
        if t.__class__ is not int or not 0 <= t < 34:
            return None
        if concealed_m is True:
            if kind != KONG or m.claimed is not None and m.claimed != t:
                return None
        elif concealed_m is False and m.source in _SOURCES:
            n_claimed += 1
        else:
            return None
        if kind == CHOW:
            if t >= 27 or t % 9 > 6 or m.claimed is not None and not t <= m.claimed <= t + 2:
                return None
            counts[t] += 1
            counts[t + 1] += 1
            counts[t + 2] += 1
            meld_chows.append(t)
            meld_sets.append((CHOW_SET, t))
            in_melds += t <= win <= t + 2
        else:
            if m.claimed is not None and m.claimed != t:
                return None
            if kind == KONG:
                counts[t] += 4
                n_kongs += 1
                if concealed_m:
                    kc += 1
                    n_cp_melds += 1
            elif kind == "pung":
                counts[t] += 3
            else:
                return None
            meld_pungs.append(t)
            meld_sets.append((PUNG_SET, t))
            if t == win:
                in_melds += 3 if kind != KONG else 4
    c.n_claimed = n_claimed
    c.n_melds = len(melds)
    c.n_kongs = n_kongs
    c.kongs_concealed = kc
    c.kongs_exposed = n_kongs - kc
    c.meld_sets = meld_sets
    return meld_chows, meld_pungs, n_cp_melds, in_melds


def _readings(keys: list, wc: list, n_melds: int) -> list:
    """The readings of the tiles, in the order of ``shapes.candidates``."""
    cands = regular_from_keys(keys, wc)
    if not n_melds:
        mx = max(wc)
        if mx <= 2 or mx == 4:
            cands += _seven_pairs(wc)
        if mx <= 2 and wc[0] and wc[33]:
            cands += _thirteen_orphans(wc)
        if mx == 1:
            cands += _honors_knitted(wc)
    if n_melds <= 1 and wc.count(0) <= 25:
        cands += _knitted_straight(wc, n_melds)
    return cands


def _read_situation(plan: _Plan, c: _Ctx, in_melds: int) -> list:
    """The Situation flags checked once (cached on the Situation and the tile facts they read) and set on ``c``
    with the rest of the hand's context; the situation group's fans (cached on what they read)."""
    sit = c.sit
    prof = c.prof
    n_kongs, n_melds = c.n_kongs, c.n_melds
    self_drawn = sit.self_drawn
    in_hand = c.standing[c.win] > 0
    fkey = (SIT_FIELDS(sit), in_hand, in_melds, n_kongs > 0, n_melds > 0)
    got = plan.flags.get(fkey)
    if got is None:
        f, notes = fans_situation.flags_for(sit, prof, in_hand, in_melds, n_kongs > 0, n_melds > 0)
        if len(plan.flags) > CACHE_LIMIT:
            plan.flags.clear()
        got = plan.flags[fkey] = (f, tuple(f.values()), notes)
    flags, flags_key, notes = got
    c.self_drawn = self_drawn
    c.notes = notes
    c.kinds = frozenset(compress(_TILES, c.counts))
    c.flags = flags
    c.flags_key = flags_key
    c.cache = {}
    skey = (c.n_claimed, self_drawn, flags_key)
    situation = plan.sit_found.get(skey)
    if situation is None:
        situation = []
        _run(plan.situation, c, situation)
        if len(plan.sit_found) > CACHE_LIMIT:
            plan.sit_found.clear()
        plan.sit_found[skey] = situation
    return situation


def _best(plan: _Plan, c: _Ctx, cands: list, situation: list, from_melds: tuple) -> tuple:
    """``(points, fan items, index)`` of the reading with the highest total, the first of equal ones: per reading,
    its sets on ``c``, the predicates that can score for it (the tiles group once per form), the 不计 lists."""
    meld_chows, meld_pungs, n_cp_melds, _ = from_melds
    win, self_drawn, n_kongs, sit = c.win, c.self_drawn, c.n_kongs, c.sit
    by_form: dict = {}
    excl = plan.excl
    implied = c.prof.deduct_implied_pungs
    best = None
    for i, cand in enumerate(cands):
        form = c.form = cand.form
        c.cand = cand
        c.pair = cand.pair
        c.knit = cand.knit
        c.cache = {}
        chows = list(meld_chows)
        pungs = list(meld_pungs)
        n_cp = n_cp_melds
        if cand.sets:
            win_in_chow = False
            for kind, t in cand.sets:
                if kind == CHOW_SET:
                    chows.append(t)
                    if t <= win <= t + 2:
                        win_in_chow = True
            for kind, t in cand.sets:
                if kind == PUNG_SET:
                    pungs.append(t)
                    if form != "regular" or self_drawn or t != win or win_in_chow:
                        n_cp += 1
        chows.sort()
        pungs.sort()
        c.chows = tuple(chows)
        c.pungs = tuple(pungs)
        c.n_concealed_pungs = n_cp
        c.sets = None
        ckey = (form, len(chows), len(pungs), n_kongs, n_cp)
        chosen = plan.chosen.get(ckey) or plan.choose(ckey)
        found = by_form.get(form)
        if found is None:
            found = by_form[form] = []
            _run(chosen[0], c, found)
        found = found + situation
        _run(chosen[1], c, found)
        _run(chosen[2], c, found)
        _run(chosen[3], c, found)
        pts, items, honours = _after(found, excl)
        if implied and honours:
            done = dict(items)
            if add_implied(done, c.pungs, sit):
                pts, items = points(done), fan_items(done)
        if best is None or pts > best[0]:
            best = (pts, items, i)
    assert best is not None  # cands is not empty (_fast returned NOT_WIN before): the first one sets best
    return best
