"""Glue between ``fast.score`` and the compiled core ``_ccore`` (``_ccore.c``).

The core reproduces ``fast._fast`` for one hand: the readings, every fan predicate, the 不计 lists, 无番和, the
implied-pung adjustment, the best reading and its decomposition text (``tally.describe``). This module gives it
its tables once (each fan's row in ``tally.FAN_TABLE``, its value and its shared ``FanHit`` objects, the
notation's meld marks; per profile the active fans, the 不计 lists from ``tally.profile_plan`` and the profile's
switches), checks the Situation flags in Python (``fans_situation.flags_for``, cached per Situation content and
profile: one mask for each combination of the tile facts the checks read, filled in when a hand first needs it)
and builds the ``ScoreResult`` exactly as ``_fast`` does.

``score(hand, prof)`` returns None for anything it does not take (the extension missing or switched off, a
profile it cannot cover, input that is not plain, a hand that fails a check); ``fast.score`` then runs the
Python path. ``MJTABLE_NO_CCORE=1`` in the environment switches the core off (for measuring the Python path).
"""

from __future__ import annotations

import os
from dataclasses import fields
from operator import attrgetter

from .. import tiles as T
from ..hand import ACROSS, LEFT, RIGHT, Meld, Situation
from ..notation import _MARK_OF
from ..result import ScoreResult
from . import fans_situation, suit_table
from .profiles import PUNG_FANS, Profile
from .tally import CACHE_LIMIT, FAN_TABLE, NOT_WIN, ORDER, SIT_FIELDS, finish, hit, plain_flowers, profile_plan

try:
    from . import _ccore  # type: ignore[attr-defined]  # optional C extension, no stubs; absent if not built
except ImportError:  # not built: the Python path scores every hand
    _ccore = None

_FLAG_FIELDS = (
    "last_tile",
    "kong_replacement",
    "robbing_kong",
    "last_copy",
    "winning_tile_apart",
    "heavenly_win",
    "earthly_win",
    "human_win",
)
_FLAGS = attrgetter(*_FLAG_FIELDS)
# the checked flags (fans_situation.flags_for) as the core's mask bits
_FLAG_BITS = (
    ("last_tile", 1),
    ("kong_replacement", 2),
    ("robbing_kong", 4),
    ("last_copy", 8),
    ("heavenly", 16),
    ("earthly", 32),
    ("human", 64),
)
_GROUPS = frozenset(("tiles", "sets", "winds", "situation", "waits"))
# the Profile fields the core knows; a profile class with any other field is left to the Python path
_PROFILE_FIELDS = frozenset(
    (
        "name",
        "description",
        "waits_by_shape",
        "require_apart",
        "knitted_all_chows",
        "knitted_tile_hog",
        "fifth_copy_waits",
        "extra_fans",
        "excludes_add",
        "excludes_remove",
        "deduct_implied_pungs",
        "house_non_repetition",
        "concealed_kongs_add",
        "kong_parts",
        "pungs_not_pairs",
        "differences",
    )
)
_MISSING = object()


def _init() -> bool:
    if _ccore is None or os.environ.get("MJTABLE_NO_CCORE", "") not in ("", "0"):
        return False
    try:
        _ccore.init(
            suit_table.BITS,
            Meld,
            tuple(ORDER[f] for f in _ccore.FANS),
            tuple(r.value for r in FAN_TABLE),
            lambda row, n: hit(FAN_TABLE[row].id, n),
            tuple(_MARK_OF[s] for s in (LEFT, ACROSS, RIGHT)),
        )
    except (KeyError, ValueError, TypeError):  # a fan the table does not hold: the core is out of date
        return False
    return True


ON = _init()
_SLOTS: dict = {}  # Profile -> slot in the core, or -1 when the Python path scores it
_SITS: list = []  # per slot: Situation fields -> [masks, notes per facts, sit word] or None
_FLOWERS: dict = {}  # flowers tuple -> valid


def available() -> bool:
    """True if the compiled core is built, importable and switched on."""
    return ON


def _slot(prof: Profile) -> int:
    """The profile's slot in the core (set up on first use), or -1 if the core does not cover it."""
    slot = _SLOTS.get(prof)
    if slot is None:
        slot = _set_up(prof)
        if slot >= 0 or len(_SLOTS) < 1024:  # profiles made on the fly: not every one is remembered
            _SLOTS[prof] = slot
    return slot


def _set_up(prof: Profile) -> int:
    """Give the core the profile's active fans, 不计 lists and switches in a new slot; -1 if it cannot take it."""
    if not ON or {f.name for f in fields(prof)} != _PROFILE_FIELDS or len(_SITS) >= _ccore.MAX_PROFILES:
        return -1
    try:
        groups, excl = profile_plan(prof)
        if not {g for g, _ in groups} <= _GROUPS:
            return -1
        active = tuple(fid for _, preds in groups for fid, _ in preds)
        excludes = tuple(
            (ORDER[fid], tuple((ORDER[e], 0) if e.__class__ is str else (ORDER[e[0]], e[1]) for e in ex))
            for fid, ex in excl.items()
        )
        switches = (
            prof.waits_by_shape,
            prof.require_apart,
            prof.knitted_all_chows,
            prof.knitted_tile_hog,
            prof.fifth_copy_waits,
            prof.deduct_implied_pungs,
            prof.concealed_kongs_add,
            prof.kong_parts,
            sum(1 << PUNG_FANS.index(fid) for fid in set(prof.pungs_not_pairs)),  # ValueError: unknown fan
        )
        _ccore.set_profile(len(_SITS), active, excludes, switches)
    except (KeyError, ValueError, TypeError, AttributeError):  # a fan the core does not compute, odd lists
        return -1
    _SITS.append({})
    return len(_SITS) - 1


def _situation(sit: Situation, prof: Profile):
    """``[masks, notes, sit word]`` for the core: the checked flags, one mask per combination of the tile facts
    (winning tile standing, copies in the melds 0..4, a declared kong, any meld; 0xFF until a hand needs it, see
    ``_check``), their notes, and the raw self-drawn / set-apart / seat / prevalent values; None if a field is
    not plain (the Python path judges the hand)."""
    sd, seat, prev = sit.self_drawn, sit.seat_wind, sit.prevalent_wind
    if (
        sd.__class__ is not bool
        or seat.__class__ is not int
        or prev.__class__ is not int
        or seat not in T.WINDS
        or prev not in T.WINDS
        or any(v.__class__ is not bool for v in _FLAGS(sit))
    ):
        return None
    word = sd | sit.winning_tile_apart << 1 | (seat - 27) << 2 | (prev - 27) << 4
    return [bytearray(b"\xff" * 40), [None] * 40, word]


def _check(ent: list, facts: int, sit: Situation, prof: Profile) -> bool:
    """Fill in the mask and notes of ``facts`` (the core's index of the tile facts) in ``ent``; False if a flag
    is not plain."""
    rest, has_melds = divmod(facts, 2)
    in_hand_melds, has_kong = divmod(rest, 2)
    in_hand, in_melds = divmod(in_hand_melds, 5)
    f, notes = fans_situation.flags_for(sit, prof, bool(in_hand), in_melds, bool(has_kong), bool(has_melds))
    m = 0
    for k, bit in _FLAG_BITS:
        v = f[k]
        if v.__class__ is not bool:
            return False
        if v:
            m |= bit
    ent[1][facts] = notes
    ent[0][facts] = m
    return True


def _flowers_ok(flowers: tuple) -> bool:
    """``_fast``'s check of the flowers (distinct flower tiles, at most 8), remembered per tuple."""
    ok = plain_flowers(flowers)
    if len(_FLOWERS) > 4096:
        _FLOWERS.clear()
    _FLOWERS[flowers] = ok
    return ok


def score(hand, prof: Profile):
    """The ScoreResult that ``fast._fast`` gives, or None if the core does not take the hand."""
    slot = _SLOTS.get(prof)
    if slot is None:
        slot = _slot(prof)
    if slot < 0:
        return None
    sit = hand.situation
    flowers = hand.flowers
    if sit.__class__ is not Situation or flowers.__class__ is not tuple:
        return None
    if flowers and not _FLOWERS.get(flowers) and not _flowers_ok(flowers):
        return None
    table = _SITS[slot]
    key = SIT_FIELDS(sit)
    ent = table.get(key, _MISSING)
    if ent is _MISSING:
        ent = _situation(sit, prof)
        if len(table) > CACHE_LIMIT:
            table.clear()
        table[key] = ent
    if ent is None:
        return None
    melds = hand.melds
    got = _ccore.score(hand.concealed, hand.winning_tile, melds, ent[0], ent[2], slot)
    if got.__class__ is int:  # these tile facts' flags are not checked yet
        if not _check(ent, got, sit, prof):
            return None
        got = _ccore.score(hand.concealed, hand.winning_tile, melds, ent[0], ent[2], slot)
    if got is None:
        return None
    if got is False:
        return ScoreResult("mcr", prof.name, False, reason=NOT_WIN)
    base, fans, desc, facts = got
    return finish(prof, fans, base, len(flowers), sit.self_drawn, desc, ent[1][facts])


def clear_caches() -> None:
    """Empty the Situation and flower tables (the profiles' set-up and the shared FanHit objects stay)."""
    for table in _SITS:
        table.clear()
    _FLOWERS.clear()
