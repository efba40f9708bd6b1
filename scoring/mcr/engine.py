"""``score(hand, profile)``: try every reading of the hand, count its fans, keep the highest total."""
from __future__ import annotations

from functools import lru_cache

from .. import tiles as T
from ..hand import Hand
from ..notation import format_meld, format_tiles
from ..result import FanHit, ScoreResult
from . import fans_chows, fans_flowers, fans_limits, fans_pungs, fans_situation, fans_special, fans_waits  # noqa: F401
from . import shapes
from .context import Ctx, _structure, melds_key
from .fantable import all_rows
from .fans_situation import situation_flags
from .profiles import Profile, get_profile
from .shapes import CHOW_SET, all_waits, candidates

MIN_POINTS = 8
ROWS = all_rows()
# Table order: by value, high first, then the 1998 number (the order 不计 lists are applied in).
FAN_TABLE = tuple(sorted(ROWS.values(), key=lambda r: (-r.value, r.number)))
_HITS = {r.id: {} for r in FAN_TABLE}
_ORDER = {r.id: i for i, r in enumerate(FAN_TABLE)}


def _hit(fid: str, count: int) -> FanHit:
    """FanHit objects are immutable: share one per (fan, count)."""
    h = _HITS[fid].get(count)
    if h is None:
        r = ROWS[fid]
        h = _HITS[fid][count] = FanHit(r.id, r.name_cn, r.name_en, r.value, count)
    return h


@lru_cache(maxsize=None)
def _plan(prof: Profile):
    """Predicates grouped by what they read, and the 不计 lists active in a profile, in table order."""
    rows = [r for r in FAN_TABLE if r.predicate is not None and (prof.extra_fans or not r.house)]
    groups: dict = {}
    for r in rows:
        groups.setdefault(r.group, []).append((r.id, r.predicate))
    excl = tuple((r.id, tuple(e for e in r.excludes if e not in prof.excludes_remove.get(r.id, ()))
                  + tuple(prof.excludes_add.get(r.id, ()))) for r in rows)
    return tuple((g, tuple(p)) for g, p in groups.items()), tuple((fid, ex) for fid, ex in excl if ex)


_GROUP_CACHE: dict = {}      # (profile, group) -> {group key: ((fan id, count), ...)}
_EXCL_CACHE: dict = {}       # (profile, found items) -> found after the 不计 lists
_CACHE_LIMIT = 1 << 15


def clear_caches() -> None:
    """Free every cache of the engine (each is bounded: about 32k entries)."""
    for f in (shapes.candidates, shapes.regular_waits, shapes.seven_pairs_waits, shapes.all_waits,
              fans_chows.chow_combo, fans_pungs.pung_combo):
        f.cache_clear()
    _GROUP_CACHE.clear()
    _EXCL_CACHE.clear()
    _best.cache_clear()
    _describe.cache_clear()
    _structure.cache_clear()


def _run(preds, ctx) -> tuple:
    out = []
    for fid, pred in preds:
        n = pred(ctx)
        if n:
            out.append((fid, int(n)))
    return tuple(out)


def _apply_excludes(found: dict, excl) -> dict:
    for fid, ex in excl:
        if fid in found:
            for e in ex:
                if isinstance(e, str):
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


def evaluate(ctx: Ctx, prof: Profile) -> dict:
    """Fan id -> count for one reading, after the 不计 lists (applied from the highest fan down; a fan
    that is itself not counted does not cancel anything). Group results are cached on their group key."""
    groups, excl = _plan(prof)
    if len(_EXCL_CACHE) > _CACHE_LIMIT:
        _EXCL_CACHE.clear()
    items: list = []
    for g, preds in groups:
        if g == "hand":
            items.extend(_run(preds, ctx))
            continue
        cache = _GROUP_CACHE.get((prof, g))
        if cache is None or len(cache) > _CACHE_LIMIT:
            cache = _GROUP_CACHE[(prof, g)] = {}
        key = ctx.group_key(g)
        got = cache.get(key)
        if got is None:
            got = cache[key] = _run(preds, ctx)
        items.extend(got)
    ekey = (prof, tuple(items))          # deterministic order: groups and rows are in table order
    found = _EXCL_CACHE.get(ekey)
    if found is None:
        found = _EXCL_CACHE[ekey] = _apply_excludes(dict(items), excl)
    found = dict(found)
    if prof.deduct_implied_pungs and ("all_honors" in found or "all_terminals_and_honors" in found):
        n = _implied_pungs(ctx, found)
        if n:
            found["implied_terminal_pung"] = n
    return found


def _implied_pungs(ctx: Ctx, found: dict) -> int:
    """Honour pungs scored by a 2+ point pung fan inside 字一色/混幺九 (each pung once)."""
    n = found.get("dragon_pung", 0) + 2 * ("two_dragons_pungs" in found)
    if "big_three_winds" in found:
        return n + 3
    sit = ctx.sit
    return n + sum(1 for w in set(ctx.pungs) if 27 <= w <= 30 and (
        (w == sit.prevalent_wind and "prevalent_wind" in found) or (w == sit.seat_wind and "seat_wind" in found)))


def _points(found: dict) -> int:
    return sum(ROWS[k].value * n for k, n in found.items())


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


_SUIT = "mpsz"


def _group_text(tiles) -> str:
    return "".join(str(t % 9 + 1) for t in tiles) + _SUIT[tiles[0] // 9]


@lru_cache(maxsize=1 << 15)
def _describe(cand, melds, concealed, win) -> str:
    """The chosen reading in notation, e.g. ``123m 456p 789s 111z 55m [345m<] +5m``."""
    parts = []
    if cand.form in ("regular", "knitted_straight"):
        if cand.form == "knitted_straight":
            parts.append(format_tiles(cand.knit) + "(组合龙)")
        for kind, t in cand.sets:
            parts.append(_group_text((t, t + 1, t + 2) if kind == CHOW_SET else (t, t, t)))
        parts.append(_group_text((cand.pair, cand.pair)))
    else:
        label = {"seven_pairs": "七对", "thirteen_orphans": "十三幺", "honors_knitted": "全不靠"}[cand.form]
        parts.append(format_tiles(sorted(concealed + (win,))) + f"({label})")
    parts += [format_meld(m) for m in melds]
    return " ".join(parts) + " +" + T.code(win)


@lru_cache(maxsize=1 << 15)
def _best(key, prof: Profile):
    """Best reading for a hand, cached on its content (flowers left out: they only add points)."""
    hand = Hand(*key)
    standing = _counts(hand.concealed)
    win_counts = list(standing)
    win_counts[hand.winning_tile] += 1
    cands = candidates(bytes(win_counts), len(hand.melds))
    if not cands:
        return None
    flags, notes = situation_flags(hand, prof)
    flags_key = tuple(flags.values())
    mkey = melds_key(hand.melds)
    for kind, t, _, kong in mkey:
        if kind == CHOW_SET:
            win_counts[t] += 1
            win_counts[t + 1] += 1
            win_counts[t + 2] += 1
        else:
            win_counts[t] += 4 if kong else 3
    counts_all = bytes(win_counts)                      # every tile, kongs as 4
    best = None
    for cand in cands:
        ctx = Ctx(hand, cand, counts_all, standing, prof, notes, mkey)
        ctx.flags = flags
        ctx.flags_key = flags_key
        found = evaluate(ctx, prof)
        pts = _points(found)
        if best is None or pts > best[0]:
            best = (pts, found, cand)
    pts, found, cand = best
    hits = tuple(_hit(k, found[k]) for k in sorted(found, key=_ORDER.__getitem__))
    return pts, hits, _describe(cand, hand.melds, hand.concealed, hand.winning_tile), tuple(notes)


def _key(hand: Hand):
    return (tuple(sorted(hand.concealed)), hand.melds, hand.winning_tile, (), hand.situation)


def score(hand: Hand, profile="default") -> ScoreResult:
    """Score a finished hand under an MCR rule profile. Never raises for a bad hand (only for an unknown
    profile name): a hand that is impossible or not a winning shape gives ``is_win=False`` and a reason."""
    prof = get_profile(profile)
    try:
        problems = _problems(hand)
    except (TypeError, ValueError, AttributeError, IndexError) as e:   # not even shaped like a Hand
        return ScoreResult("mcr", prof.name, False, reason=f"impossible hand: malformed input ({e})")
    if problems:
        return ScoreResult("mcr", prof.name, False, reason="impossible hand: " + "; ".join(problems))
    best = _best(_key(hand), prof)
    if best is None:
        return ScoreResult("mcr", prof.name, False,
                           reason="not a winning shape (no 4 sets + pair, 七对, 十三幺, 全不靠 or 组合龙 reading)")
    base, hits, desc, notes = best
    fans = list(hits)
    n_flowers = len(hand.flowers)
    if n_flowers:
        fans.append(_hit("flowers", n_flowers))
    total = base + n_flowers
    if base < MIN_POINTS:
        return ScoreResult("mcr", prof.name, False, fans, total, base, {},
                           reason=f"under the {MIN_POINTS}-point minimum: {base} points (flowers do not count)",
                           decomposition=desc, notes=list(notes))
    if hand.situation.self_drawn:
        payments = {"each": MIN_POINTS + total}
    else:
        payments = {"discarder": MIN_POINTS + total, "other": MIN_POINTS}
    return ScoreResult("mcr", prof.name, True, fans, total, base, payments, decomposition=desc, notes=list(notes))


def is_winning_shape(hand: Hand) -> bool:
    """True if the hand is possible and its tiles form a winning shape (points not considered)."""
    try:
        if _problems(hand):
            return False
    except (TypeError, ValueError, AttributeError, IndexError):
        return False
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
