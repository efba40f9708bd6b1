"""Sichuan Mahjong (SBR 2025) scoring: 108 tiles, void suit (定缺), 10 fans, base = 2^fans capped at 3 fans.

Source: shared/rules/sichuan-sbr-2025.txt, 第九条 (win shapes, 缺一门) and 第十条二 (fans, base, payments).

    from mjtable.scoring.sichuan import score
    res = score(hand)          # ScoreResult(rules="sichuan", total = fans, base = 2^min(fans, 3))

The fan table is data (``FANS``); each fan has one small predicate over a ``_Ctx`` (the hand read one way:
standard 4 sets + pair, or seven pairs). Both readings are tried and the higher one is kept.

Points the text settles (and a quick summary might get wrong):
* 根 = four identical tiles not konged, each kind once (a pung melded + the 4th in hand is a 根);
  a four inside seven pairs counts as two pairs *and* one 根 (例3).
* 金钩钩 always comes with 大对子 (the text: 至少 2 番).
* 杠上花 is a self-draw (pays base + 1 each); 海底 covers the last wall tile and the discard after it.
* 查大叫 charges the base (2^fans, capped) of the best wait, not the fan count; situational fans excluded;
  a wait on a tile the player holds all four of is no wait; a three-suit shape is never tenpai.
* 例4 of 第十条二（六） reads "根 1 番 大对子 1 番", which cannot happen under the text's own definitions
  (four unkonged copies cannot all sit in pungs + a pair); the test rebuilds it as 大对子 only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from mjtable.errors import shown

from . import tiles as T
from .hand import CHOW, KONG, PUNG, Hand, Meld, Situation
from .result import FanHit, ScoreResult

PROFILES = ("sbr2025",)
FAN_CAP = 3  # 第十条二（三）三番封顶
SUIT_CN = {T.MAN: "万", T.PIN: "饼", T.SOU: "条"}


class SichuanError(ValueError):
    """Bad input for the Sichuan engine (unknown profile, non-Sichuan data); the message says what."""


@dataclass(frozen=True)
class _Ctx:
    """One reading of a complete hand."""

    hand: Hand
    counts: tuple[int, ...]  # all 14(+kongs) tiles, per kind
    seven_pairs: bool
    all_pungs: bool  # standard shape whose every set is a pung/kong
    situational: bool = True  # False when pricing a hypothetical win (查大叫)


def _n_kongs(c: _Ctx) -> int:
    return sum(m.kind == KONG for m in c.hand.melds)


def _n_roots(c: _Ctx) -> int:
    """根: four identical tiles that were not konged (each kind once)."""
    konged = {m.tile for m in c.hand.melds if m.kind == KONG}
    return sum(1 for t, n in enumerate(c.counts) if n == 4 and t not in konged)


def _golden_hook(c: _Ctx) -> bool:
    h = c.hand
    return (
        len(h.melds) == 4
        and all(m.kind in (PUNG, KONG) for m in h.melds)
        and len(h.concealed) == 1
        and h.winning_tile == h.concealed[0]
    )


def _one_suit(c: _Ctx) -> bool:
    return len({T.suit(t) for t, n in enumerate(c.counts) if n}) == 1


def _sit(flag: Callable[[Situation], bool]) -> Callable[[_Ctx], int]:
    return lambda c: int(c.situational and flag(c.hand.situation))


@dataclass(frozen=True)
class FanDef:
    id: str
    name_cn: str
    name_en: str
    value: int
    count: Callable[[_Ctx], int]  # how many times the fan applies (0 = not)
    situational: bool = False  # not counted when pricing 查大叫 (第十条三（四）)


# 第十条二（六）: the 10 fans, in the order of the text.
FANS: tuple[FanDef, ...] = (
    FanDef("gang", "杠", "Kong", 1, _n_kongs),
    FanDef("gen", "根", "Root (four unkonged)", 1, _n_roots),
    FanDef("da_dui_zi", "大对子", "All Pungs", 1, lambda c: int(c.all_pungs)),
    FanDef("jin_gou_gou", "金钩钩", "Golden Hook (single wait, four melds)", 1, lambda c: int(_golden_hook(c))),
    FanDef("qing_yi_se", "清一色", "Full Flush", 2, lambda c: int(_one_suit(c))),
    FanDef("qi_dui", "七对", "Seven Pairs", 2, lambda c: int(c.seven_pairs)),
    FanDef("gang_shang_hua", "杠上花", "Win on Kong Replacement", 1, _sit(lambda s: s.kong_replacement), True),
    FanDef(
        "gang_shang_pao",
        "杠上炮",
        "Win on Discard after Kong",
        1,
        _sit(lambda s: s.after_kong_discard and not s.self_drawn and not s.kong_replacement),
        True,
    ),
    FanDef("qiang_gang", "抢杠", "Robbing the Kong", 1, _sit(lambda s: s.robbing_kong), True),
    FanDef("hai_di", "海底", "Last Tile", 1, _sit(lambda s: s.last_tile), True),
)
FAN_TABLE = FANS  # same name as mjtable.scoring.mcr.FAN_TABLE
FAN_BY_ID = {f.id: f for f in FANS}


def base_points(fans: int) -> int:
    """第十条二（一）-（三）: 平和 1, else 1×2^fans, at most 3 fans (8)."""
    if fans < 0:
        raise SichuanError(f"fans cannot be negative ({fans})")
    return 2 ** min(fans, FAN_CAP)


# ----------------------------------------------------------------------------------------------- shapes


def _sets(c: list[int], i: int, pungs_only: bool) -> bool:
    """Can counts c[i:] be split into pungs (and chows unless pungs_only)? c is modified and restored."""
    while i < 27 and c[i] == 0:
        i += 1
    if i >= 27:
        return True
    if c[i] >= 3:
        c[i] -= 3
        ok = _sets(c, i, pungs_only)
        c[i] += 3
        if ok:
            return True
    if not pungs_only and i % 9 <= 6 and c[i + 1] and c[i + 2]:
        c[i] -= 1
        c[i + 1] -= 1
        c[i + 2] -= 1
        ok = _sets(c, i, pungs_only)
        c[i] += 1
        c[i + 1] += 1
        c[i + 2] += 1
        if ok:
            return True
    return False


def _standard(c: list[int], pungs_only: bool) -> bool:
    """c = concealed counts incl. the winning tile, 3k+2 tiles: a pair plus sets?"""
    for p in range(27):
        if c[p] >= 2:
            c[p] -= 2
            ok = _sets(c, 0, pungs_only)
            c[p] += 2
            if ok:
                return True
    return False


def _seven_pairs(c: list[int], n_melds: int) -> bool:
    """七对: seven pairs, a four unkonged counts as two pairs (第九条一（一）)."""
    return n_melds == 0 and sum(c) == 14 and all(n in (0, 2, 4) for n in c)


def _concealed_counts(h: Hand) -> list[int]:
    c = [0] * 27
    for t in list(h.concealed) + ([h.winning_tile] if h.winning_tile is not None else []):
        c[t] += 1
    return c


def suits_of(tiles: Iterable[int]) -> set[int]:
    return {T.suit(t) for t in tiles}


def invalid_reason(h: Hand) -> str | None:
    """Why this cannot be a Sichuan hand at all (wrong tiles, chow, counts), or None."""
    probs = h.problems()
    return _not_sichuan(h) or ("; ".join(probs) if probs else None)


def _not_sichuan(h: Hand) -> str | None:
    """Why these tiles cannot be played under Sichuan rules (honours, flowers, a chow), or None."""
    bad = [
        t
        for t in list(h.concealed)
        + [m.tile for m in h.melds]
        + ([h.winning_tile] if h.winning_tile is not None else [])
        if not T.is_suited(t)
    ]
    if bad:
        return "not a Sichuan tile (108 suited tiles only, 第二条一): " + ", ".join(T.code(t) for t in bad)
    if h.flowers:
        return "Sichuan uses no flowers (第二条一)"
    if any(m.kind == CHOW for m in h.melds):
        return "no chow in Sichuan (第七条一: 摸牌、打牌、碰牌、杠牌 only)"
    return None


def _readings(h: Hand, situational: bool = True) -> list[_Ctx]:
    """Every way the complete hand is a winning shape (at most one standard + one seven-pairs reading)."""
    conc = _concealed_counts(h)
    counts = tuple(h.counts())
    out = []
    if _standard(conc, pungs_only=False):
        out.append(
            _Ctx(
                h, counts, False, _standard(conc, pungs_only=True) and all(m.kind != CHOW for m in h.melds), situational
            )
        )
    if _seven_pairs(conc, len(h.melds)):
        out.append(_Ctx(h, counts, True, False, situational))
    return out


def _hits(ctx: _Ctx) -> list[FanHit]:
    hits = []
    for f in FANS:
        if f.situational and not ctx.situational:
            continue
        n = f.count(ctx)
        if n:
            hits.append(FanHit(f.id, f.name_cn, f.name_en, f.value, n))
    return hits


def is_winning_shape(h: Hand) -> bool:
    """Complete 4 sets + pair or seven pairs, suited tiles only, no chow meld. Ignores suits/void."""
    return invalid_reason(h) is None and bool(_readings(h))


def _describe(ctx: _Ctx) -> str:
    from .notation import format_hand

    return ("七对 seven pairs: " if ctx.seven_pairs else "4 sets + pair: ") + format_hand(ctx.hand)


def score(hand: Hand, profile: str = "sbr2025") -> ScoreResult:
    """Score a finished Sichuan hand. ``total`` = fans (uncapped), ``base`` = 2^min(fans, 3).

    payments: discard win {"discarder": base}; self-draw {"each": base + 1} from each player still in
    (第十条二（四）（五）). 杠上花 counts as a self-draw.
    """
    if profile not in PROFILES:
        raise SichuanError(f"unknown Sichuan profile {shown(profile)}; known: {', '.join(PROFILES)}")
    res = ScoreResult(rules="sichuan", profile=profile, is_win=False)
    why = _not_sichuan(hand)
    if why:
        res.reason = why
        return res
    res.problems = hand.problems()
    if res.problems:
        res.reason = "; ".join(res.problems)
        return res
    su = suits_of(hand.all_tiles())
    if len(su) == 3:
        res.reason = "three suits: a win must lack one suit (缺一门, 第九条一（二）)"
        return res
    void = hand.situation.void_suit
    if void is not None and void in su:
        res.reason = f"holds tiles of the void suit {SUIT_CN[void]} (花猪): no win with the void suit (第六条一)"
        return res
    readings = _readings(hand)
    if not readings:
        res.reason = "not a winning shape (4 sets + pair or seven pairs, 第九条一（一）)"
        return res
    best = max(readings, key=lambda c: (sum(h.points for h in _hits(c)), c.seven_pairs))
    res.is_win = True
    res.fans = _hits(best)
    res.total = sum(h.points for h in res.fans)
    res.base = base_points(res.total)
    s = hand.situation
    self_drawn = s.self_drawn or s.kong_replacement
    res.payments = {"each": res.base + 1} if self_drawn else {"discarder": res.base}
    res.decomposition = _describe(best)
    if not res.fans:
        res.notes.append("平和: no fan, base 1 (第十条二（一）)")
    if res.total > FAN_CAP:
        res.notes.append(f"{res.total} fans capped at {FAN_CAP} (三番封顶, 第十条二（三）)")
    return res


# ----------------------------------------------------------------------------------------------- 查叫


def waits(concealed: Iterable[int], melds: Iterable[Meld] = (), void_suit: int | None = None) -> list[int]:
    """Tiles that complete a standing hand (第十条三（二）听牌), Sichuan rules.

    Excluded: a tile the player already holds 4 of; a completion with three suits (三门花色 never tenpai,
    第十条三（六）); any hand holding void-suit tiles (that is 花猪, not 有叫).
    """
    conc = tuple(concealed)
    melds = tuple(melds)
    held = [0] * T.N_KINDS
    for t in conc:
        held[t] += 1
    for m in melds:
        for t in m.tiles:
            held[t] += 1
    out = []
    for t in range(27):
        if held[t] >= 4:
            continue
        h = Hand(conc, melds, t, situation=Situation(void_suit=void_suit))
        if score(h).is_win:
            out.append(t)
    return out


def max_wait_fans(
    concealed: Iterable[int], melds: Iterable[Meld] = (), void_suit: int | None = None
) -> tuple[int, int] | None:
    """查大叫 price: (fans, wait) of the best theoretical win, excluding 杠上花/杠上炮/抢杠/海底
    (第十条三（四）); None if not tenpai. A root/kong of one tile kind counts once by construction."""
    conc = tuple(concealed)
    melds = tuple(melds)
    best = None
    for t in waits(conc, melds, void_suit):
        h = Hand(conc, melds, t, situation=Situation(void_suit=void_suit))
        f = max(sum(x.points for x in _hits(c)) for c in _readings(h, situational=False))
        if best is None or f > best[0]:
            best = (f, t)
    return best
