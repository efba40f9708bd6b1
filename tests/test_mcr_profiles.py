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
    # 核分实例 (6): two concealed kongs beside a third concealed pung are counted by their parts
    "two_concealed_kongs", "two_melded_kongs",
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


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_no_profile_counts_a_wait_without_the_tile_set_apart_3_4_28(profile):
    """mcr-wmo-2006.txt 3.4.28 单放 (以便核查): without the winning tile set apart the wait cannot be checked, so
    no profile counts 边张/坎张/单钓将; with it apart, the waits do occur in the sample."""
    waits = {"edge_wait", "closed_wait", "single_wait"}
    seen = 0
    for h in HANDS:
        ids = {f.id for f in score(h, profile).fans}
        if h.situation.winning_tile_apart:
            seen += bool(ids & waits)
        else:
            assert not ids & waits, format_hand(h)
    assert seen > 100


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


# ---- wmo2006: the 1998 values and lists with the notes of mcr-wmo-2006.txt 3.8.1 ----

@pytest.mark.parametrize("text, fan, default_total, wmo_total", [
    ("19m19p19s1234567z +1z", "thirteen_orphans", 89, 92),          # 3.8.1 7 十三幺: 88 + 4, not 88 + 1
    ("1133557799m112z +2z", "seven_pairs", 31, 34),                 # 3.8.1 19 七对: 24 + 混一色 6 + 4
    ("1122334455667m +7m", "seven_shifted_pairs", 89, 92),          # 3.8.1 6 连七对
    ("14m25p36s1234567z +9s", "greater_honors_knitted", 25, 28),    # 3.8.1 20 七星不靠
    ("147m258p36s12345z +9s", "lesser_honors_knitted", 25, 28),     # 3.8.1 34 全不靠 (+ 组合龙 12)
])
def test_wmo2006_self_drawn_adds_fully_concealed_3_8_1(text, fan, default_total, wmo_total):
    """mcr-wmo-2006.txt 3.8.1 4, 6, 7, 19, 20, 34: "(自摸加计不求人)": self-drawn, these shapes count 不求人 4
    where the 1998 lists (不计不求人) leave 自摸 1 (the default profile)."""
    h = _self_drawn(text)
    d, w = score(h, "default"), score(h, "wmo2006")
    assert fan in {f.id for f in w.fans} and (d.total, w.total) == (default_total, wmo_total)
    assert "fully_concealed_hand" in {f.id for f in w.fans} and "self_drawn" not in {f.id for f in w.fans}
    assert "self_drawn" in {f.id for f in d.fans} and "fully_concealed_hand" not in {f.id for f in d.fans}


def test_wmo2006_nine_gates_self_drawn_adds_fully_concealed_3_8_1_4():
    """mcr-wmo-2006.txt 3.8.1 4 九莲宝灯 (自摸加计不求人); the 1998 list of 4 prints 不计不求人."""
    ids = {f.id for f in score(_self_drawn("1112345678999m +5m"), "wmo2006").fans}
    assert {"nine_gates", "fully_concealed_hand"} <= ids and "self_drawn" not in ids
    assert "fully_concealed_hand" not in {f.id for f in score(_self_drawn("1112345678999m +5m"), "mcr1998").fans}


def test_wmo2006_discard_win_keeps_the_1998_lists():
    """On a discard nothing changes: 3.8.1 speaks of self-drawn wins only (七对 still 不计门前清, 1998 19)."""
    from mjtable.scoring.notation import parse_hand
    h = parse_hand("1133557799m112z +2z")
    assert [(f.id, f.count) for f in score(h, "wmo2006").fans] == [(f.id, f.count) for f in score(h, "mcr1998").fans]


@pytest.mark.parametrize("text, mcr1998, wmo2006", [
    # 3.8.1 17 三杠 (暗杠加计): 1998 17 prints 不计暗杠; two concealed kongs add 2 x 暗杠
    ("5s [1111z] [2222z] [3333z<] 123m +5s", {"three_kongs": 1}, {"three_kongs": 1, "concealed_kong": 2}),
    ("5s [1111z] [2222z] [3333z] 123m +5s", {"three_kongs": 1}, {"three_kongs": 1, "concealed_kong": 3}),
    # 3.8.1 5 四杠 (暗杠加计)
    ("5s [1111z] [2222z] [3333z] [4444z] +5s", {"four_kongs": 1}, {"four_kongs": 1, "concealed_kong": 4}),
    # 3.8.1 57 双明杠 (一明杠与一暗杠计6分): 双明杠 4 + 暗杠 2, not the 1998 table's 55 阴阳杠 5
    ("123m456p5s [1111z] [2222z<] +5s", {"concealed_kong_and_melded_kong": 1},
     {"two_melded_kongs": 1, "concealed_kong": 1}),
    # unchanged: 3.8.1 48 双暗杠 6 (its 不计暗杠 kept), 57 双明杠 4, one concealed kong 暗杠 2
    ("123m456p5s [1111z] [2222z] +5s", {"two_concealed_kongs": 1}, {"two_concealed_kongs": 1}),
    ("123m456p5s [1111z<] [2222z<] +5s", {"two_melded_kongs": 1}, {"two_melded_kongs": 1}),
    ("123m456p789p5s [1111z] +5s", {"concealed_kong": 1}, {"concealed_kong": 1}),
])
def test_wmo2006_concealed_kongs_add_3_8_1_5_17_57(text, mcr1998, wmo2006):
    """mcr-wmo-2006.txt 3.8.1 5 四杠 and 17 三杠 "(暗杠加计)": each concealed kong also counts 暗杠 (2);
    3.8.1 57 双明杠 "(一明杠与一暗杠计6分)": one melded + one concealed kong count 6."""
    from mjtable.scoring.notation import parse_hand
    kong_fans = {"four_kongs", "three_kongs", "two_concealed_kongs", "concealed_kong_and_melded_kong",
                 "two_melded_kongs", "concealed_kong", "melded_kong"}
    h = parse_hand(text)
    for profile, want in (("mcr1998", mcr1998), ("wmo2006", wmo2006)):
        got = {f.id: f.count for f in score(h, profile).fans if f.id in kong_fans}
        assert got == want, (profile, got)
    kong_points = {p: sum(f.points for f in score(h, p).fans if f.id in kong_fans) for p in ("mcr1998", "wmo2006")}
    if "concealed_kong_and_melded_kong" in mcr1998:
        assert kong_points == {"mcr1998": 5, "wmo2006": 6}


def test_wmo2006_differences_name_their_clauses():
    """Each difference of the profile cites mcr-wmo-2006.txt 3.8.1 and the fan numbers it rests on."""
    diffs = dict(PROFILES["wmo2006"].differences)
    assert set(diffs) == {"self_drawn_adds_fully_concealed", "concealed_kongs_add", "melded_and_concealed_kong_6",
                          "unique_wait", "pungs_not_pairs"}
    assert all("mcr-wmo-2006.txt 3.8.1" in text for text in diffs.values())


def test_docs_table_of_differences_matches_the_profiles():
    """docs/profiles.md lists every point where the MCR profiles differ, each with its clause
    (profiles.DIFFERENCE_CLAUSES): the table there is the one differences_table() makes from PROFILES."""
    import re
    from pathlib import Path
    from mjtable.scoring.mcr.profiles import DIFFERENCE_CLAUSES, differences_table
    from mjtable.system_files import shared
    keys = {k for p in PROFILES.values() for k, _ in p.differences}
    assert keys == set(DIFFERENCE_CLAUSES)
    files = ("mcr-1998-table.txt", "mcr-wmo-2006.txt", "competition-variant.txt")
    for k, clause in DIFFERENCE_CLAUSES.items():
        assert any(clause.startswith(f) for f in files), k
    doc = (Path(__file__).resolve().parent.parent / "docs" / "profiles.md").read_text(encoding="utf-8")
    assert differences_table() in doc
    texts = {f: re.sub(r"\s", "", shared("rules", f).read_text(encoding="utf-8")) for f in files}
    assert "自摸加计不求人" in texts["mcr-wmo-2006.txt"] and "一明杠与一暗杠计6分" in texts["mcr-wmo-2006.txt"]
