"""Profile properties on random hands: every profile scores every hand without an exception, the totals are
consistent, and the competition profile differs from default only in the fans its documented differences
concern."""
import dataclasses
import random

import pytest

from mjtable.scoring.mcr import PROFILES, score
from mjtable.scoring.mcr.randhands import random_hands
from mjtable.scoring.notation import format_hand

# fans the competition differences touch (waits by shape, winning tile apart, 门前清/不求人 by definition,
# 组合龙 without 平和/四归一, implied 幺九刻, house fans, and what they exclude)
COMPETITION_TOUCHES = {
    "edge_wait", "closed_wait", "single_wait", "last_tile", "nine_gates", "concealed_hand", "fully_concealed_hand",
    "self_drawn", "all_chows", "tile_hog", "implied_terminal_pung", "heavenly_hand", "earthly_hand", "human_hand",
    "all_knitted_full", "green_seven_pairs", "honors_seven_pairs_full", "honors_seven_pairs",
    "terminals_seven_pairs", "all_odd_pungs",
    # what those fans exclude, or what a lost 九莲宝灯 / 平和 gives back
    "all_pungs", "no_honors", "full_flush", "one_voided_suit", "outside_hand", "pung_terminals_honors",
    "chicken_hand",
    # what the house fans imply by the non-repetition principle (FanDef.implied)
    "all_green", "all_honors", "all_terminals", "seven_pairs", "pure_straight",
    # a different reading of the same tiles may win once a wait or concealment fan changes
    "short_straight", "pure_double_chow", "mixed_double_chow", "two_terminal_chows", "double_pung",
    "two_concealed_pungs", "three_concealed_pungs",
}


def _hands():
    rng = random.Random(5)
    out = []
    for h in random_hands(3000, 11):
        sit = dataclasses.replace(h.situation, winning_tile_apart=rng.random() < 0.8,
                                  heavenly_win=rng.random() < 0.03, earthly_win=rng.random() < 0.03,
                                  human_win=rng.random() < 0.03)
        out.append(dataclasses.replace(h, situation=sit))
    return out


HANDS = _hands()


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_results_are_consistent(profile):
    for h in HANDS:
        r = score(h, profile)
        assert r.fans and r.profile == profile, format_hand(h)
        assert r.base == sum(f.points for f in r.fans if f.id != "flowers")
        assert r.total == r.base + len(h.flowers)
        assert r.is_win == (r.base >= 8)
        if r.is_win:
            assert r.payments == ({"each": 8 + r.total} if h.situation.self_drawn
                                  else {"discarder": 8 + r.total, "other": 8})
        else:
            assert r.payments == {} and "8-point" in r.reason


def test_competition_differs_only_where_documented():
    changed = 0
    for h in HANDS:
        d = {f.id: f.count for f in score(h, "default").fans}
        c = {f.id: f.count for f in score(h, "competition").fans}
        diff = {k for k in set(d) | set(c) if d.get(k) != c.get(k)}
        assert diff <= COMPETITION_TOUCHES, (format_hand(h), diff)
        changed += bool(diff)
    assert changed > 100       # the profiles really differ


def test_competition_without_set_apart_never_counts_waits_or_last_tile():
    for h in HANDS:
        if h.situation.winning_tile_apart:
            continue
        ids = {f.id for f in score(h, "competition").fans}
        assert not ids & {"edge_wait", "closed_wait", "single_wait", "last_tile", "nine_gates"}


def _map_hand(h, f, wind=None):
    """Apply a tile relabelling ``f`` to every tile of the hand (and ``wind`` to the seat/prevalent winds)."""
    melds = tuple(dataclasses.replace(m, tile=f(m.tile), claimed=None) for m in h.melds)
    sit = h.situation
    if wind:
        sit = dataclasses.replace(sit, seat_wind=wind(sit.seat_wind), prevalent_wind=wind(sit.prevalent_wind))
    return dataclasses.replace(h, concealed=tuple(f(t) for t in h.concealed), melds=melds,
                               winning_tile=f(h.winning_tile), situation=sit)


@pytest.mark.parametrize("profile", ["default", "competition"])
def test_suit_relabelling_keeps_the_score(profile):
    """Swapping suits changes nothing, except for the fans tied to particular tiles (绿一色, 推不倒, 绿七对)."""
    perm = (1, 2, 0)
    tied = {"all_green", "reversible_tiles", "green_seven_pairs"}

    def f(t):
        return perm[t // 9] * 9 + t % 9 if t < 27 else t
    for h in HANDS[:1500]:
        a, b = score(h, profile), score(_map_hand(h, f), profile)
        if tied & {x.id for x in a.fans + b.fans}:
            continue
        assert (a.total, a.is_win) == (b.total, b.is_win), format_hand(h)


def test_wind_rotation_with_seat_and_round_keeps_the_score():
    def rot(t):
        return 27 + (t - 27 + 1) % 4 if 27 <= t <= 30 else t
    for h in HANDS[:1500]:
        a, b = score(h), score(_map_hand(h, rot, rot))
        assert a.total == b.total, format_hand(h)


# ---- 不求人 vs 自摸 for concealed limit hands (issue #45 round 3) ----

def _self_drawn(text):
    from mjtable.scoring.hand import Situation
    from mjtable.scoring.notation import parse_hand
    return parse_hand(text, Situation(self_drawn=True))


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_self_drawn_four_concealed_pungs_counts_fully_concealed_1998_12_wmo_3_8_1_12(profile):
    """mcr-1998-table.txt 12 四暗刻 (不计门前清、碰碰和: 不求人 is not in the list), mcr-wmo-2006.txt 3.8.1 12
    (自摸加计不求人), competition-variant.txt 行牌 15 (无一例外): 64 + 不求人 4 + 单钓将 1 = 69, never 自摸."""
    r = score(_self_drawn("222m444p666s888s5z +5z"), profile)
    assert {f.id: f.points for f in r.fans} == {"four_concealed_pungs": 64, "fully_concealed_hand": 4,
                                                 "single_wait": 1}
    assert r.total == 69
