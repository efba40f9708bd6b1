"""The situation check: flags that contradict each other, the hand, or the rule system, refused before scoring.

One table, ``CONTRADICTIONS``: each row says when a situation is impossible, why, and the clause that makes
it so. ``check(situation, rules, hand)`` raises SituationError (a usage error, exit code 2) naming the first
row that applies; ``contradictions`` lists them all. The engines themselves stay lenient (a flag that cannot
apply scores nothing), so a hand scored through the engine directly is unchanged; every front end (CLI,
Python API, web server, batch) calls this check first.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mjtable.errors import UsageError

from . import tiles as T
from .hand import KONG, Hand, Situation

W, S, C = "mcr-wmo-2006.txt", "sichuan-sbr-2025.txt", "competition-variant.txt"


class SituationError(UsageError, ValueError):
    """A situation that cannot happen under the rules; the message names the clause."""


@dataclass(frozen=True)
class Contradiction:
    id: str
    rules: tuple[str, ...]  # the rule systems the row applies to
    applies: Callable[[Situation, Hand | None, str], bool]  # (situation, hand or None, profile)
    message: str
    clauses: dict[str, str]  # rule system -> clause


def _has_kong(h: Hand | None) -> bool:
    return h is not None and any(m.kind == KONG for m in h.melds)


def _holds_robbed_tile(h: Hand | None) -> bool:
    """The robbed tile's three other copies lie in the robber's victim's pung: the winner holds none."""
    if h is None or h.winning_tile is None:
        return False
    return h.concealed.count(h.winning_tile) > 0 or any(h.winning_tile in m.tiles for m in h.melds)


def _melded(h: Hand | None) -> bool:
    return h is not None and any(not m.concealed for m in h.melds)


def _house(profile: str) -> bool:
    """Profiles with the competition variant's house fans (天和 地和 人和)."""
    return profile.startswith("competition")


BOTH = ("mcr", "sichuan")
_FIRST_DEAL = ("heavenly_win", "earthly_win", "human_win")
CONTRADICTIONS: tuple[Contradiction, ...] = (
    Contradiction(
        "robbing_kong_self_drawn",
        BOTH,
        lambda s, h, p: s.robbing_kong and s.self_drawn,
        "robbing a kong (抢杠和) is a win on another player's tile, never self-drawn",
        {
            "mcr": f"{W} 3.7.2 3(2) 点和:和他人打出的牌(包括抢杠和)",
            "sichuan": f"{S} 第十条二（六）⑨ 抢杠 1 番 “和其他选手加杠的牌”",
        },
    ),
    Contradiction(
        "kong_replacement_robbing_kong",
        BOTH,
        lambda s, h, p: s.kong_replacement and s.robbing_kong,
        "a win on one's own kong replacement (杠上开花) cannot also rob another player's kong",
        {"mcr": f"{W} 第八条 46 杠上开花; 47 抢杠和", "sichuan": f"{S} 第十条二（六）⑦ 杠上花; ⑨ 抢杠"},
    ),
    Contradiction(
        "kong_replacement_not_self_drawn",
        BOTH,
        lambda s, h, p: s.kong_replacement and not s.self_drawn,
        "a win on a kong replacement (杠上开花) is self-drawn: give --self-drawn too",
        {
            "mcr": f"{W} 第八条 46 杠上开花 杠牌时,从牌墙补上一张牌成和牌",
            "sichuan": f"{S} 第十条二（六）⑦ 杠上花 1 番 “和自己开杠后摸的补牌（算自摸和牌）”",
        },
    ),
    Contradiction(
        "kong_replacement_without_kong",
        BOTH,
        lambda s, h, p: s.kong_replacement and h is not None and not _has_kong(h),
        "a win on a kong replacement (杠上开花) needs a kong in the hand",
        {
            "mcr": f"{W} 第八条 46 杠上开花 杠牌时,从牌墙补上一张牌成和牌",
            "sichuan": f"{S} 第十条二（六）⑦ 杠上花 1 番 “和自己开杠后摸的补牌”",
        },
    ),
    Contradiction(
        "robbing_kong_tile_held",
        BOTH,
        lambda s, h, p: s.robbing_kong and _holds_robbed_tile(h),
        "a robbed kong's tile cannot also stand in the winner's hand (its other three copies are in "
        "the pung it was added to)",
        {
            "mcr": f"{W} 第八条 47 抢杠和 和他人自抓开明杠的牌",
            "sichuan": f"{S} 第十条二（六）⑨ 抢杠 1 番 “和其他选手加杠的牌”",
        },
    ),
    Contradiction(
        "after_kong_discard_in_mcr",
        ("mcr",),
        lambda s, h, p: s.after_kong_discard,
        "a win on the discard after a kong (杠上炮) is a Sichuan fan; MCR has no such situation",
        {"mcr": f"{S} 第十条二（六）⑧ 杠上炮 (Sichuan only)"},
    ),
    Contradiction(
        "void_suit_in_mcr",
        ("mcr",),
        lambda s, h, p: s.void_suit is not None,
        "a void suit (定缺) is a Sichuan rule; MCR has none",
        {"mcr": f"{S} 第六条 (Sichuan only)"},
    ),
    Contradiction(
        "after_kong_discard_self_drawn",
        ("sichuan",),
        lambda s, h, p: s.after_kong_discard and s.self_drawn,
        "杠上炮 is won on the tile another player discards after a kong, not self-drawn",
        {"sichuan": f"{S} 第十条二（六）⑧ 杠上炮 1 番 “和其他选手开杠后打出或再次加杠的牌”"},
    ),
    Contradiction(
        "after_kong_discard_other_kong",
        ("sichuan",),
        lambda s, h, p: s.after_kong_discard and (s.kong_replacement or s.robbing_kong),
        "杠上炮 cannot be combined with 杠上花 or 抢杠",
        {"sichuan": f"{S} 第十条二（六）⑦⑧⑨"},
    ),
    Contradiction(
        "first_deal_not_in_profile",
        BOTH,
        lambda s, h, p: any(getattr(s, k) for k in _FIRST_DEAL) and not _house(p),
        "天和, 地和 and 人和 are house fans of the competition variant: use --profile competition",
        {"mcr": f"{C} 新增番种 1 天和, 5 地和, 8 人和", "sichuan": f"{C} 新增番种 1 天和, 5 地和, 8 人和 (MCR only)"},
    ),
    Contradiction(
        "first_deal_twice",
        ("mcr",),
        lambda s, h, p: sum(getattr(s, k) for k in _FIRST_DEAL) > 1,
        "天和, 地和 and 人和 exclude each other (the dealer's first draw, the dealer's first discard, "
        "a hand ready from the deal)",
        {"mcr": f"{C} 新增番种 1 天和, 5 地和, 8 人和"},
    ),
    Contradiction(
        "heavenly_not_dealer",
        ("mcr",),
        lambda s, h, p: s.heavenly_win and (s.seat_wind != T.EAST or not s.self_drawn),
        "天和 is the dealer's (East's) self-drawn win on the first 14 tiles: give --seat-wind E and --self-drawn",
        {"mcr": f"{C} 新增番种 1 天和 开牌后，庄家抓完第14张牌即报和牌。"},
    ),
    Contradiction(
        "earthly_dealer",
        ("mcr",),
        lambda s, h, p: s.earthly_win and (s.seat_wind == T.EAST or s.self_drawn),
        "地和 is a non-dealer's win on the dealer's first discard: not East, not self-drawn",
        {"mcr": f"{C} 新增番种 5 地和 和庄家打出的第一张牌。"},
    ),
    Contradiction(
        "first_deal_melded",
        ("mcr",),
        lambda s, h, p: any(getattr(s, k) for k in _FIRST_DEAL) and _melded(h),
        "天和, 地和 and 人和 are won before any claim: the hand cannot hold a claimed meld",
        {"mcr": f"{C} 新增番种 1 天和, 5 地和, 8 人和 开牌后抓完13张牌就扣听，不换牌直到和牌。"},
    ),
)


def contradictions(
    sit: Situation, rules: str, hand: Hand | None = None, profile: str | None = None
) -> list[Contradiction]:
    """Every row of CONTRADICTIONS that applies (hand rows only when the hand is given)."""
    prof = profile or ("default" if rules == "mcr" else "sbr2025")
    return [c for c in CONTRADICTIONS if rules in c.rules and c.applies(sit, hand, prof)]


def check(sit: Situation, rules: str, hand: Hand | None = None, profile: str | None = None) -> None:
    """SituationError (exit code 2) naming the first contradiction and its clause; nothing if none applies."""
    found = contradictions(sit, rules, hand, profile)
    if found:
        c = found[0]
        raise SituationError(f"impossible situation: {c.message} ({c.clauses[rules]})")
