"""``score(hand, profile)``, the reference path: validate the hand with every reason, try every reading of it,
count its fans (each predicate group's result cached on the part of the hand it reads), keep the highest total.
Also ``evaluate`` (one reading's fans), ``is_winning_shape`` and ``waits``. The fan table, the profiles' plans,
the 不计 step and the ``ScoreResult`` are the tally's (``tally.py``), shared with ``fast`` and ``ccore``."""

from __future__ import annotations

from collections import OrderedDict
from functools import lru_cache
from itertools import count

from .. import tiles as T
from ..hand import KONG, Hand, Meld, Situation
from ..result import ScoreResult
from . import fans_chows, fans_pungs, fans_situation, shapes, tally
from .context import Ctx, _structure, melds_key
from .profiles import Profile, get_profile
from .shapes import all_waits, candidates
from .tally import (
    CACHE_LIMIT,
    NOT_WIN,
    SIT_FIELDS,
    add_implied,
    apply_excludes,
    describe,
    fan_hits,
    fan_items,
    finish,
    plain_input,
    points,
    profile_plan,
)

_HAND, _TILES, _SETS, _WINDS, _SITUATION, _WAITS = range(6)
_SLOT = {"hand": _HAND, "tiles": _TILES, "sets": _SETS, "winds": _WINDS, "situation": _SITUATION, "waits": _WAITS}
_SERIAL = count()  # ids of plans, tile contents, Situations and group results (never reused)

# A note on the caches: the keys and values of the per-hand result cache and of the group / 不计 caches are
# built from ints, strings, bytes and tuples of them (tile contents, Situations, profiles and group results
# are referred to by serial ids), so that the garbage collector untracks them. An entry that stays tracked
# makes every full collection longer and brings the next one closer; with tracked entries, full collections
# took about half the time of scoring a stream of hands whose tiles had been seen before.


class _Plan:
    """One profile's predicates grouped by what they read, each group with its result cache
    (group key -> (result id, ((fan id, count), ...))), the cache of results after the 不计 lists
    (tuple of the groups' result ids -> see ``_count``) and the checked Situation flags."""

    __slots__ = ("prof", "serial", "groups", "excl", "after", "flags")

    def __init__(self, prof: Profile):
        groups, self.excl = profile_plan(prof)
        self.prof = prof
        self.serial = next(_SERIAL)
        self.groups: tuple[tuple[int, tuple, dict], ...] = tuple((_SLOT[g], preds, {}) for g, preds in groups)
        self.after: dict = {}
        self.flags: dict = {}


_PLANS: dict = {}  # profile -> _Plan
_IDS: dict = {}  # group result -> id (the 不计 cache is keyed on these)
_SIT_IDS: dict = {}  # Situation -> id (the per-hand cache is keyed on these)
_MISSING = object()


def _get_plan(prof: Profile) -> _Plan:
    p = _PLANS.get(prof)
    if p is None:
        if len(_PLANS) > 64:  # only if many Profile objects are made on the fly
            _PLANS.clear()
        p = _PLANS[prof] = _Plan(prof)
    return p


class _ResultCache:
    """The per-hand result cache: (tiles id, Situation id, profile id) -> best reading or None; LRU, bounded
    (``cache_clear()`` empties it, as ``functools.lru_cache``)."""

    __slots__ = ("data", "maxsize")

    def __init__(self, maxsize: int):
        self.data: OrderedDict = OrderedDict()
        self.maxsize = maxsize

    def cache_clear(self) -> None:
        self.data.clear()

    def __len__(self) -> int:
        return len(self.data)


_best = _ResultCache(1 << 15)


def clear_caches() -> None:
    """Free every cache of the engine (each is bounded: about 32k entries)."""
    for f in (
        shapes.candidates,
        shapes.all_waits,
        fans_chows.chow_combo,
        fans_pungs.pung_combo,
        _tiles,
        _flowers_ok,
        _structure,
    ):
        f.cache_clear()
    for p in _PLANS.values():
        for _, _, memo in p.groups:
            memo.clear()
        p.after.clear()
        p.flags.clear()
    for d in (_IDS, _SIT_IDS):
        d.clear()
    tally.clear_caches()
    _best.cache_clear()


def _run(preds, ctx) -> tuple:
    out = []
    for fid, pred in preds:
        n = pred(ctx)
        if n:
            out.append((fid, int(n)))
    return tuple(out)


def _result(items: tuple) -> tuple:
    """``(id, items)`` for a group result; equal results share an id."""
    rid = _IDS.get(items)
    if rid is None:
        if len(_IDS) > CACHE_LIMIT:
            _IDS.clear()
        rid = _IDS[items] = next(_SERIAL)
    return rid, items


def _cached_count(plan: _Plan, keys: tuple):
    """``_count(plan, keys, ...)`` when all of it is cached (every group result and the 不计 step), else None."""
    ids = []
    for slot, _, memo in plan.groups:
        got = memo.get(keys[slot])  # keys[_HAND] is None: a "hand" group is never cached
        if got is None:
            return None
        ids.append(got[0])
    return plan.after.get(tuple(ids))


def _count(plan: _Plan, keys: tuple, make_ctx) -> tuple:
    """``(points, fan items in table order, 字一色 or 混幺九 counted, fan items as found)`` for one reading:
    each group's result from its cache (keyed on ``keys[slot]``; the predicates run on ``make_ctx()`` only on
    a miss), then the 不计 lists (applied from the highest fan down; a fan that is itself not counted does not
    cancel anything), cached on the groups' results."""
    ids = []
    got_all = []
    ctx = None
    got: tuple | None
    for slot, preds, memo in plan.groups:
        if slot == _HAND:
            if ctx is None:
                ctx = make_ctx()
            got = _result(_run(preds, ctx))
        else:
            key = keys[slot]
            got = memo.get(key)
            if got is None:
                if ctx is None:
                    ctx = make_ctx()
                if len(memo) > CACHE_LIMIT:
                    memo.clear()
                got = memo[key] = _result(_run(preds, ctx))
        ids.append(got[0])
        got_all.append(got)
    ekey = tuple(ids)  # deterministic order: groups and rows are in table order
    after = plan.after
    out = after.get(ekey)
    if out is None:
        found = apply_excludes(dict(it for _, items in got_all for it in items), plan.excl)
        if len(after) > CACHE_LIMIT:
            after.clear()
        out = after[ekey] = (
            points(found),
            fan_items(found),
            "all_honors" in found or "all_terminals_and_honors" in found,
            tuple(found.items()),
        )
    return out


def _ctx_keys(ctx: Ctx) -> tuple:
    return tuple(None if g == "hand" else ctx.group_key(g) for g in sorted(_SLOT, key=_SLOT.__getitem__))


def evaluate(ctx: Ctx, prof: Profile) -> dict:
    """Fan id -> count for one reading, after the 不计 lists (applied from the highest fan down; a fan
    that is itself not counted does not cancel anything). Group results are cached on their group key."""
    found = dict(_count(_get_plan(prof), _ctx_keys(ctx), lambda: ctx)[3])
    if prof.deduct_implied_pungs and ("all_honors" in found or "all_terminals_and_honors" in found):
        add_implied(found, ctx.pungs, ctx.sit)
    return found


def _problems(hand: Hand) -> list:
    out = hand.problems()
    sit = hand.situation
    for name in ("seat_wind", "prevalent_wind"):
        if getattr(sit, name) not in T.WINDS:
            out.append(f"{name} must be a wind tile id (27..30), got {getattr(sit, name)!r}")
    if len(hand.flowers) > 8:
        out.append("more than 8 flowers")
    return out


def _counts(tiles) -> bytes:
    c = [0] * 34
    for t in tiles:
        c[t] += 1
    return bytes(c)


class _Tiles:
    """What scoring needs from the hand's tiles alone — the standing multiset, the winning tile and the
    declared sets — computed once per tile content (``_tiles``, bounded) and shared by every hand holding
    those tiles, whatever its Situation. ``serial`` stands for the tile content in the per-hand cache."""

    __slots__ = (
        "serial",
        "concealed",
        "win",
        "melds",
        "mkey",
        "standing",
        "counts_all",
        "cands",
        "n_melds",
        "n_claimed",
        "n_kongs",
        "in_hand",
        "in_melds",
        "has_kong",
        "_discard",
        "_drawn",
        "_desc",
    )
    serial: int
    concealed: tuple[int, ...]
    win: int
    melds: tuple[Meld, ...]
    mkey: tuple
    standing: bytes
    counts_all: bytes  # every tile, kongs as 4
    cands: tuple
    n_melds: int
    n_claimed: int
    n_kongs: int
    in_hand: bool
    in_melds: int
    has_kong: bool
    _discard: tuple | None  # readings(False), filled on first use
    _drawn: tuple | None  # readings(True), filled on first use
    _desc: dict

    def readings(self, self_drawn) -> tuple:
        """Per candidate reading: ``(index, candidate as a plain tuple, tiles key, sets key, pungs, structure)``
        (``structure`` as ``context._structure`` gives it). The sets depend on self-drawn (a standing pung of
        the winning tile is exposed when won on a discard)."""
        if self_drawn is True:
            r = self._drawn
            if r is None:
                r = self._drawn = self._readings(True)
            return r
        if self_drawn is False:
            r = self._discard
            if r is None:
                r = self._discard = self._readings(False)
            return r
        return self._readings(self_drawn)

    def _readings(self, self_drawn) -> tuple:
        out = []
        for i, cand in enumerate(self.cands):
            st = _structure.__wrapped__(cand, self.mkey, self.win, self_drawn)
            _, chows, pungs, kc, ke, n_cp, _, _ = st
            out.append(
                (
                    i,
                    tuple(cand),
                    (cand.form, self.counts_all, kc + ke),
                    (cand.form, chows, pungs, cand.pair, n_cp, kc, ke),
                    pungs,
                    st,
                )
            )
        return tuple(out)

    def describe(self, i: int) -> str:
        d = self._desc.get(i)
        if d is None:
            d = self._desc[i] = describe(self.cands[i], self.melds, self.concealed, self.win)
        return d


@lru_cache(maxsize=1 << 15)
def _tiles(concealed: bytes, win: int, melds: tuple):
    """``_Tiles`` for ``concealed`` (sorted tile ids as bytes), ``win`` and ``melds``, or None when the tiles
    fail a check of ``Hand.problems`` (the caller then runs the full validation for the reasons)."""
    if not 0 <= win < 34 or (concealed and concealed[-1] >= 34):
        return None
    for m in melds:
        try:
            m.validate()
        except ValueError:
            return None
    n_kong = sum(m.kind == KONG for m in melds)
    if len(concealed) + 1 + sum(len(m.tiles) for m in melds) != 14 + n_kong:
        return None
    standing = _counts(concealed)
    wc = list(standing)
    wc[win] += 1
    counts_all = list(wc)
    for m in melds:
        for t in m.tiles:
            counts_all[t] += 1
    if max(counts_all) > 4:
        return None
    mkey = melds_key(melds)
    ti = _Tiles()
    ti.serial = next(_SERIAL)
    ti.concealed = tuple(concealed)
    ti.win = win
    ti.melds = melds
    ti.mkey = mkey
    ti.standing = standing
    ti.counts_all = bytes(counts_all)  # every tile, kongs as 4
    ti.cands = candidates(bytes(wc), len(melds))
    ti.n_melds = len(melds)
    ti.n_claimed = sum(1 for *_, c, kong in mkey if not c)
    ti.n_kongs = n_kong
    ti.has_kong = n_kong > 0
    ti.in_hand = standing[win] > 0
    ti.in_melds = sum(m.tiles.count(win) for m in melds)
    ti._discard = ti._drawn = None
    ti._desc = {}
    return ti


@lru_cache(maxsize=1 << 12)
def _flowers_ok(flowers: tuple) -> bool:
    return len(flowers) <= 8 and len(set(flowers)) == len(flowers) and all(T.is_flower(f) for f in flowers)


def _checked(hand) -> _Tiles | None:
    """The hand's ``_Tiles`` when a quick check shows ``_problems(hand)`` is empty, else None.

    Only plain input takes this path (tuples, exact ``int`` tiles, ``Meld``/``Situation`` objects): anything
    else goes through the full validation, so odd input is judged exactly as before."""
    if not plain_input(hand):
        return None
    concealed = hand.concealed
    melds = hand.melds
    win = hand.winning_tile
    flowers = hand.flowers
    sit = hand.situation
    for m in melds:
        if m.__class__ is not Meld or m.tile.__class__ is not int:
            return None
    for t in concealed:
        if t.__class__ is not int:
            return None
    if sit.seat_wind not in T.WINDS or sit.prevalent_wind not in T.WINDS:
        return None
    if flowers and not _flowers_ok(flowers):
        return None
    return _tiles(bytes(sorted(concealed)), win, melds)


def _best_reading(ti: _Tiles, sit: Situation, sid: int, plan: _Plan):
    """``(points, fan items, decomposition, notes)`` of the best reading (就高不就低), or None if the tiles have
    no winning reading. Flowers are left out: they only add points."""
    if not ti.cands:
        return None
    prof = plan.prof
    fkey = (sid, ti.in_hand, ti.in_melds, ti.has_kong, ti.n_melds > 0)
    got = plan.flags.get(fkey)
    if got is None:
        f, notes = fans_situation.flags_for(sit, prof, ti.in_hand, ti.in_melds, ti.has_kong, ti.n_melds > 0)
        if len(plan.flags) > CACHE_LIMIT:
            plan.flags.clear()
        got = plan.flags[fkey] = (f, tuple(f.values()), notes)
    flags, flags_key, notes = got
    self_drawn = sit.self_drawn
    sit_key = (ti.n_claimed, self_drawn, flags_key)
    waits_rest = (
        ti.standing,
        ti.win,
        ti.n_claimed,
        ti.n_kongs,
        ti.n_melds,
        self_drawn,
        sit.winning_tile_apart,
        flags["heavenly"],
    )
    seat, prevalent = sit.seat_wind, sit.prevalent_wind
    implied = prof.deduct_implied_pungs
    best = None
    for i, cand, tiles_key, sets_key, pungs, structure in ti.readings(self_drawn):
        keys = (None, tiles_key, sets_key, (pungs, seat, prevalent), sit_key, (cand,) + waits_rest)
        got = _cached_count(plan, keys)
        if got is None:

            def make_ctx(i=i, structure=structure):
                ctx = Ctx(
                    Hand(ti.concealed, ti.melds, ti.win, (), sit),
                    ti.cands[i],
                    ti.counts_all,
                    ti.standing,
                    prof,
                    list(notes),
                    ti.mkey,
                    structure,
                )
                ctx.flags = flags
                ctx.flags_key = flags_key
                return ctx

            got = _count(plan, keys, make_ctx)
        pts, items, honours, _ = got
        if implied and honours:
            found = dict(items)
            if add_implied(found, pungs, sit):
                pts, items = points(found), fan_items(found)
        if best is None or pts > best[0]:
            best = (pts, items, i)
    assert best is not None  # ti.cands is not empty: one reading per candidate, the first one sets best
    pts, items, i = best
    return pts, items, ti.describe(i), notes


def _sit_id(sit) -> int:
    """An id for the Situation's content (a ``Situation`` is looked up by its field values: same equality,
    cheaper than the dataclass's ``__eq__``/``__hash__``)."""
    key = SIT_FIELDS(sit) if sit.__class__ is Situation else sit
    sid = _SIT_IDS.get(key)
    if sid is None:
        if len(_SIT_IDS) > CACHE_LIMIT:
            _SIT_IDS.clear()
        sid = _SIT_IDS[key] = next(_SERIAL)
    return sid


def score(hand: Hand, profile="default") -> ScoreResult:
    """Score a finished hand under an MCR rule profile. Never raises for a bad hand (only for an unknown
    profile name): a hand that is impossible or not a winning shape gives ``is_win=False`` and a reason."""
    prof = get_profile(profile)
    try:
        ti = _checked(hand)
    except Exception:  # odd input: judged by the full validation below
        ti = None
    if ti is None:
        try:
            problems = _problems(hand)
        except (TypeError, ValueError, AttributeError, IndexError) as e:  # not even shaped like a Hand
            return ScoreResult(
                "mcr",
                prof.name,
                False,
                reason=f"impossible hand: malformed input ({e})",
                problems=[f"malformed input ({e})"],
            )
        if problems:
            return ScoreResult(
                "mcr", prof.name, False, reason="impossible hand: " + "; ".join(problems), problems=problems
            )
        ti = _tiles(bytes(sorted(hand.concealed)), hand.winning_tile, hand.melds)
    sit = hand.situation
    plan = _PLANS.get(prof) or _get_plan(prof)
    sid = _sit_id(sit)
    key = (ti.serial, sid, plan.serial)
    data = _best.data
    best = data.get(key, _MISSING)
    if best is _MISSING:
        best = data[key] = _best_reading(ti, sit, sid, plan)
        if len(data) > _best.maxsize:
            data.popitem(last=False)
    else:
        try:
            data.move_to_end(key)
        except KeyError:  # evicted meanwhile by another thread: the result is still right
            pass
    if best is None:
        return ScoreResult("mcr", prof.name, False, reason=NOT_WIN)
    base, items, desc, notes = best
    return finish(prof, list(fan_hits(items)), base, len(hand.flowers), sit.self_drawn, desc, notes)


def is_winning_shape(hand: Hand) -> bool:
    """True if the hand is possible and its tiles form a winning shape (points not considered)."""
    try:
        if _problems(hand):
            return False
    except (TypeError, ValueError, AttributeError, IndexError):
        return False
    assert hand.winning_tile is not None  # Hand.problems reports a missing winning tile
    c = list(_counts(hand.concealed))
    c[hand.winning_tile] += 1
    return bool(candidates(bytes(c), len(hand.melds)))


def waits(hand_counts, melds=()) -> list:
    """Tile ids that would complete a waiting hand: ``hand_counts`` are the standing tiles (34 counts, or a
    list of tile ids), ``melds`` the declared sets. A tile whose four copies are all in the hand is not a wait."""
    hc = list(hand_counts)
    if len(hc) != 34:
        if not all(isinstance(t, int) and 0 <= t < 34 for t in hc):
            raise ValueError(f"waits: expected 34 tile counts or playing tile ids (0..33), got {hand_counts!r}")
        hc = list(_counts(hc))
    if not all(isinstance(n, int) and 0 <= n <= 4 for n in hc):
        raise ValueError(f"waits: a tile count must be 0..4, got {hc!r}")
    used = list(hc)
    for m in melds:
        for t in m.tiles:
            used[t] += 1
    return [t for t in all_waits(bytes(hc), len(melds)) if used[t] < 4]
