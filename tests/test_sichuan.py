"""Sichuan SBR 2025 scoring. Worked examples from sichuan-sbr-2025.txt 第十条二（六） and 第十条三; the text's tile
pictures were lost, so each hand is rebuilt from the fans and payments the text states."""
import pytest

from mjtable.scoring import tiles as T
from mjtable.scoring.hand import Situation
from mjtable.scoring.notation import parse_hand, parse_meld, parse_tiles
from mjtable.scoring.sichuan import FANS, SichuanError, base_points, is_winning_shape, max_wait_fans, score, waits


def fans_of(text, **sit):
    r = score(parse_hand(text, Situation(**sit)))
    assert r.is_win, r.reason
    return {f.id: f.count for f in r.fans}, r


# (example, hand, expected fans {id: count}) -- 第十条二（六） 例1-例9
EXAMPLES = [
    ("例1 杠2番", "345m6788p [2222m^] [5555p] +8p", {"gang": 2}),
    ("例2 根2番", "345m1111p23p9p [333m<] +9p", {"gen": 2}),
    ("例3 根1番 七对2番", "1111m33m55m77p88p9p +9p", {"gen": 1, "qi_dui": 1}),
    ("例4 大对子1番", "222m555m888p9p [777p<] +9p", {"da_dui_zi": 1}),
    ("例5 杠1 大对子1 金钩钩1", "9p [1111m<] [333m^] [555p>] [777p<] +9p",
     {"gang": 1, "da_dui_zi": 1, "jin_gou_gou": 1}),
    ("例6 根1 清一色2", "2345678m99m7m [222m<] +9m", {"gen": 1, "qing_yi_se": 1}),
    ("例7 大对子1 清一色2", "333p555p777p9p [111p>] +9p", {"da_dui_zi": 1, "qing_yi_se": 1}),
    ("例8 清一色2 七对2", "1122335577889s +9s", {"qing_yi_se": 1, "qi_dui": 1}),
    ("例9 七对2", "11m22m55m77p88p99p3m +3m", {"qi_dui": 1}),
]


@pytest.mark.parametrize("name, text, want", EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_text_fan_examples(name, text, want):
    got, r = fans_of(text)
    assert got == want
    fans = sum(FANS[[f.id for f in FANS].index(k)].value * n for k, n in want.items())
    assert r.total == fans and r.base == 2 ** min(fans, 3)
    assert r.payments == {"discarder": r.base}


def test_fan_table_matches_the_text():
    assert [(f.name_cn, f.value) for f in FANS] == [
        ("杠", 1), ("根", 1), ("大对子", 1), ("金钩钩", 1), ("清一色", 2), ("七对", 2),
        ("杠上花", 1), ("杠上炮", 1), ("抢杠", 1), ("海底", 1)]


def test_base_and_cap():
    assert [base_points(f) for f in range(6)] == [1, 2, 4, 8, 8, 8]
    got, r = fans_of("1122335577889s +9s")   # 清一色 + 七对 = 4 fans, capped at 3
    assert r.total == 4 and r.base == 8 and any("capped" in n for n in r.notes)
    with pytest.raises(SichuanError):
        base_points(-1)


def test_plain_win_and_self_draw_payment():
    got, r = fans_of("123m456m789m234p5p +5p")
    assert got == {} and r.base == 1 and r.payments == {"discarder": 1}
    got, r = fans_of("123m456m789m234p5p +5p", self_drawn=True)
    assert r.payments == {"each": 2}                      # 自摸加底: base + 1


@pytest.mark.parametrize("flags, fan", [
    (dict(self_drawn=True, kong_replacement=True), "gang_shang_hua"),
    (dict(after_kong_discard=True), "gang_shang_pao"),
    (dict(robbing_kong=True), "qiang_gang"),
    (dict(last_tile=True), "hai_di"),
    (dict(last_tile=True, self_drawn=True), "hai_di"),
])
def test_situational_fans(flags, fan):
    got, r = fans_of("123m456m789m234p5p +5p", **flags)
    assert got == {fan: 1} and r.base == 2


def test_kong_replacement_counts_as_self_draw():
    _, r = fans_of("123m456m789m5p [2222p<] +5p", kong_replacement=True)
    assert r.payments == {"each": 5}     # 杠 1 + 杠上花 1 = 2 fans, base 4, +1 each


@pytest.mark.parametrize("text, why", [
    ("123m456p789s234m5m +5m", "three suits"),
    ("123m456m789m234p5p +6p", "not a winning shape"),
    ("123m456m789m5p [234p<] +5p", "no chow"),
    ("123m456m789m1z +1z", "not a Sichuan tile"),
    ("123m456m789m234p5p +5p 1f", "no flowers"),
    ("123m456m789m234p +5p", "wrong tile count"),
])
def test_not_a_win(text, why):
    r = score(parse_hand(text))
    assert not r.is_win and why in r.reason


def test_void_suit_blocks_the_win():
    h = "123m456m789m234p5p +5p"
    assert score(parse_hand(h, Situation(void_suit=T.SOU))).is_win
    r = score(parse_hand(h, Situation(void_suit=T.PIN)))
    assert not r.is_win and "花猪" in r.reason


def test_seven_pairs_and_standard_take_the_better_reading():
    # 22334455667788m reads as seven pairs (2) or as sets; seven pairs + flush = 4 beats flush alone
    got, r = fans_of("2233445566778m +8m")
    assert got == {"qing_yi_se": 1, "qi_dui": 1}


def test_unknown_profile():
    with pytest.raises(SichuanError, match="unknown Sichuan profile"):
        score(parse_hand("123m456m789m234p5p +5p"), profile="xx")


def test_is_winning_shape():
    assert is_winning_shape(parse_hand("123m456p789s234m5m +5m"))   # shape only, suits ignored
    assert not is_winning_shape(parse_hand("123m456m789m234p5p +6p"))


def M(*xs):
    return [parse_meld(x) for x in xs]


# 第十条三（二） 听牌 examples (rebuilt): a tile held four times is not a wait; three suits is never tenpai.
def test_tenpai_examples():
    assert waits(parse_tiles("4567p"), M("[111m<]", "[222m^]", "[333p>]")) == parse_tiles("47p")       # 例1 听牌
    assert waits(parse_tiles("2222m"), M("[555p<]", "[777p^]", "[999p>]")) == []                         # 例2 没听
    assert waits(parse_tiles("4567s"), M("[111m<]", "[222p^]", "[333s>]")) == []                            # 例3 没听
    assert set(waits(parse_tiles("1112345678999m"))) == set(range(9))                                     # 例4 听牌


# 第十条三（四） 查大叫 examples (rebuilt): the price is the best wait, no situational fans.
def test_cha_da_jiao_examples():
    # 例1: all pungs waiting on two pairs -> 大对子 1 fan
    assert max_wait_fans(parse_tiles("333p44p55p"), M("[111m<]", "[222m^]"))[0] == 1
    # 例2: flush + root = 3 fans (1112345678999m: winning on 1m/9m makes a root)
    f, w = max_wait_fans(parse_tiles("1112345678999m"))
    assert f == 3 and w in (0, 8)
    # 例3: a root counted once: 3333m stays one root, whichever wait completes the hand
    f, w = max_wait_fans(parse_tiles("3333m5m678p999p11p"), ())
    assert (f, T.code(w)) == (1, "4m")
    # 例4: two roots on the best wait (winning 6p: 666p + 678p makes a four, 1111m is one already)
    f, w = max_wait_fans(parse_tiles("1111m23m666p78p99p"), ())
    assert (f, T.code(w)) == (2, "6p")
    assert max_wait_fans(parse_tiles("1111m23m666p78p99p"), (), void_suit=T.MAN) is None   # 花猪 is not tenpai
