import pytest

from mjtable.scoring import tiles as T
from mjtable.scoring.hand import ACROSS, CHOW, KONG, LEFT, PUNG, RIGHT, Hand, Meld
from mjtable.scoring.notation import (NotationError, chinese_hand, format_hand, format_tiles, parse_hand, parse_meld,
                              parse_tiles)


def test_tile_ids_cover_all_kinds_with_unique_codes_and_names():
    codes = {T.code(t) for t in range(T.N_TILES)}
    names = {T.chinese(t) for t in range(T.N_TILES)}
    assert len(codes) == len(names) == 42
    assert T.chinese(0) == "一万" and T.chinese(26) == "九条" and T.chinese(T.EAST) == "东风"
    assert T.chinese(T.RED) == "红中" and T.chinese(34) == "春" and T.chinese(38) == "梅"
    assert [T.code(t) for t in (0, 9, 18, 27, 31, 33, 34, 41)] == ["1m", "1p", "1s", "1z", "5z", "7z", "1f", "8f"]


@pytest.mark.parametrize("t", range(T.N_TILES))
def test_each_tile_round_trips(t):
    assert parse_tiles(T.code(t)) == [t]
    assert T.make(T.suit(t), T.rank(t)) == t


def test_parse_tiles_groups_and_red_five():
    assert parse_tiles("123m0p77z2f") == [0, 1, 2, 13, 33, 33, 35]
    assert format_tiles([0, 1, 2, 13, 33, 33]) == "123m5p77z"


@pytest.mark.parametrize("bad, token", [("12x", "12x"), ("8z", "8z"), ("9f", "9f"), ("m12", "m12"), ("12", "12")])
def test_bad_tiles_name_the_token(bad, token):
    with pytest.raises(NotationError, match=token):
        parse_tiles(bad)


def test_melds_and_sources():
    assert parse_meld("[345m<]") == Meld(CHOW, 2, source=LEFT)
    assert parse_meld("[777z^]") == Meld(PUNG, 33, source=ACROSS)
    assert parse_meld("[1111m>]") == Meld(KONG, 0, source=RIGHT)
    assert parse_meld("[5555p]") == Meld(KONG, 13, concealed=True)
    assert parse_meld("[2222s<+]") == Meld(KONG, 19, source=LEFT, added=True)


@pytest.mark.parametrize("bad", ["[12m<]", "[345m]", "[789m9p<]", "[111z]", "[1234s<]", "[111f<]", "345m<"])
def test_bad_melds(bad):
    with pytest.raises(NotationError):
        parse_meld(bad)


def test_hand_round_trip_and_counts():
    text = "123m456p11z [345m<] [777z^] +6p 15f"
    h = parse_hand(text)
    assert format_hand(h) == text
    assert h.winning_tile == 14 and h.flowers == (34, 38)
    assert h.problems() == ["wrong tile count: 15 tiles with 0 kong(s), a finished hand has 14"]
    h2 = parse_hand("123m45p11z [345m<] [777z^] +6p")
    assert h2.problems() == []
    assert "吃(上家)" in chinese_hand(h2) and "红中" in chinese_hand(h2)


def test_impossible_hand_problems():
    h = parse_hand("1111m23m456p789s +1m")
    assert any("5 copies of 1m" in p for p in h.problems())
    with pytest.raises(NotationError, match="second winning tile"):
        parse_hand("123m +1m +2m")
    assert Hand((), (Meld(CHOW, 8, source=LEFT),), 0).problems()[0].startswith("chow cannot start")
