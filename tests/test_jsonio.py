"""mjtable.scoring.jsonio: JSON hands -> the same Hand the notation gives; results -> plain JSON."""
import json

import pytest

from mjtable.scoring import tiles as T
from mjtable.scoring.hand import KONG, LEFT, PUNG, Situation
from mjtable.scoring.jsonio import (JsonInputError, findings_to_dict, hand_from_dict, hand_to_dict, result_to_dict)
from mjtable.scoring.notation import parse_hand
from mjtable.scoring.result import FanHit, Finding, ScoreResult

NOTATION = "123m456p11z [345m<] [777z^] +6p 15f"


def test_notation_form_equals_parse_hand_with_situation():
    hand, rules, profile = hand_from_dict({"hand": NOTATION, "self_drawn": True, "seat_wind": "S",
                                           "prevalent_wind": "west", "last_copy": True})
    assert (rules, profile) == ("mcr", "default")
    sit = Situation(self_drawn=True, seat_wind=T.SOUTH, prevalent_wind=T.WEST, last_copy=True)
    assert hand == parse_hand(NOTATION, sit)


def test_structured_form_equals_notation_form():
    structured = {"concealed": "123m456p11z",
                  "melds": [{"kind": "chow", "tiles": "345m", "source": "left"},
                            {"tiles": [33, 33, 33], "source": "across"}],
                  "winning_tile": "6p", "flowers": "15f"}
    assert hand_from_dict(structured)[0] == hand_from_dict({"hand": NOTATION})[0]
    ids = dict(structured, concealed=[0, 1, 2, 12, 13, 14, 27, 27], winning_tile=14, flowers=[34, 38])
    assert hand_from_dict(ids)[0] == hand_from_dict({"hand": NOTATION})[0]
    notation_melds = dict(structured, melds=["[345m<]", "[777z^]"])
    assert hand_from_dict(notation_melds)[0] == hand_from_dict({"hand": NOTATION})[0]


def test_concealed_and_added_kongs_and_sichuan_fields():
    hand, rules, profile = hand_from_dict({
        "concealed": "123m456m8m", "winning_tile": "8m", "rules": "sichuan", "void_suit": "p",
        "melds": [{"tiles": "1111s", "concealed": True}, {"tiles": "2222s", "source": "right", "added": True}]})
    assert (rules, profile) == ("sichuan", "sbr2025")
    k1, k2 = hand.melds
    assert k1.kind == k2.kind == KONG and k1.concealed and k1.source is None
    assert k2.added and k2.source == "right" and not k2.concealed
    assert hand.situation.void_suit == T.PIN
    assert hand.problems() == []


def test_round_trip_through_hand_to_dict():
    hand, _, _ = hand_from_dict({"hand": "[1111m] 234p567s77z +7z 2f", "seat_wind": "N", "kong_replacement": True,
                                 "self_drawn": True})
    again, _, _ = hand_from_dict(json.loads(json.dumps(hand_to_dict(hand))))
    assert again == hand
    assert hand_to_dict(hand)["seat_wind"] == "N"


@pytest.mark.parametrize("d, msg", [
    ({"hand": "12x"}, "hand: bad tile token '12x'"),
    ({"hand": 5}, "hand: want a notation string"),
    ({"hand": "123m", "concealed": "123m"}, "not both"),
    ({"self_drawn": True}, "no hand"),
    ({"hand": "123m", "self_draw": True}, "unknown key.*self_draw"),
    ({"hand": "123m", "self_drawn": "yes"}, "self_drawn: want true or false"),
    ({"hand": "123m", "seat_wind": "X"}, "seat_wind: want E, S, W or N"),
    ({"hand": "123m", "rules": "riichi"}, "rules: want one of mcr, sichuan"),
    ({"hand": "123m", "void_suit": "z"}, "void_suit"),
    ({"concealed": "123m", "winning_tile": "12m"}, "winning_tile: want exactly one tile"),
    ({"concealed": "123m", "winning_tile": "1f"}, "flower cannot be the winning tile"),
    ({"concealed": [0, 99]}, "tile id 99 out of range"),
    ({"concealed": [0, True]}, "not a tile"),
    ({"concealed": "123m", "melds": [{"tiles": "135m", "source": "left"}]}, r"melds\[0\]: .*not a chow"),
    ({"concealed": "123m", "melds": [{"tiles": "345m"}]}, r"melds\[0\]: melded chow needs a source"),
    ({"concealed": "123m", "melds": [{"tiles": "345m", "source": "up"}]}, r"melds\[0\].source"),
    ({"concealed": "123m", "melds": [{"kind": "pung", "tiles": "345m", "source": "left"}]}, "make a chow"),
    ({"concealed": "123m", "melds": [{"tiles": "555m", "concealed": True}]}, "only a kong can be declared"),
    ({"concealed": "123m", "melds": ["[35m<]"]}, r"melds\[0\]: bad meld"),
    ({"concealed": "123m", "melds": {"a": 1}}, "melds: want a list"),
    ([1, 2], "want a JSON object"),
])
def test_bad_input_names_the_problem(d, msg):
    with pytest.raises(JsonInputError, match=msg):
        hand_from_dict(d)


def test_structured_melds_kind_is_inferred_and_checked():
    hand, _, _ = hand_from_dict({"concealed": "11m", "winning_tile": "1m",
                                 "melds": [{"tiles": "555p", "source": "left"}]})
    assert hand.melds[0].kind == PUNG and hand.melds[0].source == LEFT


def test_result_and_findings_to_dict_are_plain_json():
    res = ScoreResult("mcr", "default", True, [FanHit("all_pungs", "碰碰和", "All Pungs", 6),
                                               FanHit("flower_tiles", "花牌", "Flower Tiles", 1, count=2)],
                      total=8, base=6, payments={"discarder": 16, "other": 8})
    d = result_to_dict(res)
    assert json.loads(json.dumps(d)) == d
    assert d["fans"][1] == {"id": "flower_tiles", "name_cn": "花牌", "name_en": "Flower Tiles", "value": 1,
                            "count": 2, "points": 2}
    assert d["is_win"] and d["total"] == 8 and d["base"] == 6 and d["reason"] is None
    lose = result_to_dict(ScoreResult("mcr", "default", False, reason="not a winning shape"))
    assert lose["is_win"] is False and lose["reason"] == "not a winning shape" and lose["fans"] == []
    f = Finding("exposed_tile", "left", "暴露张 1m", "mcr-wmo-2006.txt §x", "warn")
    assert findings_to_dict([f]) == [{"kind": "exposed_tile", "seat": "left", "message": "暴露张 1m",
                                      "clause": "mcr-wmo-2006.txt §x", "penalty": "warn",
                                      "severity": "violation"}]


def test_situations_are_shared_but_never_across_values_that_only_compare_equal():
    from mjtable.scoring.jsonio import situation_from_dict
    a = situation_from_dict({"self_drawn": True, "seat_wind": "S"})
    assert situation_from_dict({"self_drawn": True, "seat_wind": "S"}) is a and a.self_drawn and a.seat_wind == 28
    for bad, msg in (({"self_drawn": 1, "seat_wind": "S"}, "self_drawn: want true or false"),
                     ({"self_drawn": True, "seat_wind": 28.0}, "seat_wind: want E"),
                     ({"self_drawn": [True]}, "self_drawn: want true or false"),
                     ({"self_drawn": None}, "self_drawn: want true or false")):
        with pytest.raises(JsonInputError, match=msg):
            situation_from_dict(bad)
    assert not situation_from_dict({}).self_drawn
