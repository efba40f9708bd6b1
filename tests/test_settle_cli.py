"""`mjtable settle`: a Sichuan deal's events as text or JSON -> a zero-sum table citing its clauses."""
import json

import pytest
from hypothesis import given, settings, strategies as st

from mjtable import errors
from mjtable.scoring import settle_io
from mjtable import cli

# the hand-worked deal of tests/test_settlement.py::test_a_whole_deal_by_hand
TEXT = """# kongs, a 杠上炮 一炮多响, then a draw
kong 1 concealed
kong 0 melded from 2
win 2,3 1fan,3fan from 0 kong
draw 0 333p44p55p [111m<] [222m^] void s
draw 1 1357m2468p11m99p5p void s discards 1s
"""
JSON = {"events": [{"kong": {"seat": 1, "kind": "concealed"}}, {"kong": {"seat": 0, "kind": "melded", "discarder": 2}},
                   {"win": {"winners": [2, 3], "fans": [1, 3], "discarder": 0, "kong_discard": True}}],
        "draw": {"0": {"hand": "333p44p55p [111m<] [222m^]", "void_suit": "s"},
                 "1": {"hand": "1357m2468p11m99p5p", "void_suit": "s", "discards": "1s"}}}


def test_text_and_json_settle_the_worked_deal(tmp_path, capsys):
    a, b = settle_io.settle(TEXT), settle_io.settle(json.dumps(JSON))
    assert a.transfers == b.transfers == [-12 + 2 + 2, 6 - 6 - 2, 0 + 2, 6 + 2]
    assert [i.kind for i in a.ledger] == [i.kind for i in b.ledger]
    f = tmp_path / "deal.txt"
    f.write_text(TEXT, encoding="utf-8")
    assert cli.main(["settle", str(f), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["transfers"] == a.transfers and sum(out["transfers"]) == 0
    assert all(item["clause"].startswith("sichuan-sbr-2025.txt 第") for item in out["ledger"])
    assert cli.main(["settle", str(f)]) == 0
    text = capsys.readouterr().out
    assert "total         0" in text and "查大叫" in text and "第十条三（四）" in text


def test_penalties_are_paid_to_nobody():
    s = settle_io.settle("kong 1 concealed\nfalsewin 1\nwin 0 1fan self\n")
    assert sum(s.transfers) == 0 and s.penalties[1] == -24
    assert s.transfers[1] == 0                   # the false win returned its kong and pays nothing more


@pytest.mark.parametrize("text,words", [
    ("kong 5 concealed", "seat"),
    ("win 0 2fan from 0", "discarder"),
    ("win 0 xfan self", "fans as"),
    ("hop 1", "cannot read"),
    ("win 0 1fan self\nwin 0 1fan self", "already won"),
    ("draw 0 123m void x", "void suit"),
    ('{"events": [{"kong": {"seat": 1}}]}', "kind"),
    ("{nope", "invalid JSON"),
])
def test_bad_deals_are_refused_in_one_line(tmp_path, capsys, text, words):
    f = tmp_path / "deal.txt"
    f.write_text(text, encoding="utf-8")
    assert cli.main(["settle", str(f)]) == errors.EXIT_BAD_HAND
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err


_event = st.one_of(
    st.tuples(st.just("kong"), st.integers(0, 3), st.sampled_from(["concealed", "added", "added late"])),
    st.tuples(st.just("kongfrom"), st.integers(0, 3), st.integers(0, 3)),
    st.tuples(st.just("win"), st.integers(0, 3), st.integers(0, 6), st.one_of(st.none(), st.integers(0, 3))))


@settings(max_examples=300, deadline=None)
@given(st.lists(_event, max_size=8))
def test_any_deal_settles_to_zero_or_is_refused(events):
    lines = []
    for e in events:
        if e[0] == "kong":
            lines.append(f"kong {e[1]} {e[2]}")
        elif e[0] == "kongfrom":
            lines.append(f"kong {e[1]} melded from {e[2]}")
        else:
            lines.append(f"win {e[1]} {e[2]}fan " + ("self" if e[3] is None else f"from {e[3]}"))
    try:
        s = settle_io.settle("\n".join(lines))
    except settle_io.DealError as e:
        assert "\n" not in str(e)
        return
    assert sum(s.transfers) == 0 and all(p <= 0 for p in s.penalties)


def test_the_deal_in_docs_cli_settles(tmp_path, capsys):
    """docs/cli.md's example deal, as printed there, settles to zero with each of its events in the ledger."""
    from pathlib import Path
    doc = (Path(__file__).resolve().parents[1] / "docs" / "cli.md").read_text(encoding="utf-8")
    part = doc[doc.index("## `mjtable settle [DEAL]`"):]
    block = part[part.index("```\n") + 4:]
    block = block[:block.index("```")]
    f = tmp_path / "deal.txt"
    f.write_text(block, encoding="utf-8")
    assert cli.main(["settle", str(f), "--json"]) == 0, capsys.readouterr().err
    out = json.loads(capsys.readouterr().out)
    assert sum(out["transfers"]) == 0 and any(p for p in out["penalties"])
    assert {"kong", "win"} <= {item["kind"].split("_")[0] for item in out["ledger"]}


# ------------------------------------------------------------------------------------------ wins given as hands

GANG_PAO = "123m456m789m1p [555p^] +1p"        # 平和 on a discard; 杠上炮 adds 1 fan (第九条三（八）)
QING_DUI = "1112223334455m +5m"                  # 大对子 1 清一色 2: 3 fans


def test_a_win_given_as_a_hand_takes_the_hands_fans_gang_shang_pao():
    """sichuan-sbr-2025.txt 第十条二: the hand is scored, and 杠上炮 (kong) adds its fan as the engine gives it;
    the discarder pays base 2 for 1 fan, and the kong is refunded (第十条一（四）)."""
    s = settle_io.settle(f'kong 0 concealed\nwin 2 hand "{GANG_PAO}" from 0 kong\n')
    win, = [i for i in s.ledger if i.kind == "win"]
    assert (win.payer, win.payee, win.amount) == (0, 2, 2) and "1 fan" in win.note
    assert settle_io.settle(f'win 2 hand "{GANG_PAO}" from 0\n').ledger[0].amount == 1     # no 杠上炮: 平和


def test_a_typed_count_must_agree_with_the_hand(tmp_path, capsys):
    """A typed count that disagrees with the hand's score is refused: exit 6, one line naming the event."""
    ok = settle_io.settle(f'win 1 3fan hand "{QING_DUI}" self\n')
    assert [i.amount for i in ok.ledger] == [9, 9, 9]
    f = tmp_path / "deal.txt"
    f.write_text(f'kong 3 concealed\nwin 1 2fan hand "{QING_DUI}" self\n', encoding="utf-8")
    assert cli.main(["settle", str(f)]) == errors.EXIT_BAD_HAND == 6
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "line 2" in err and "scores 3 fan(s), not the 2fan typed" in err


def test_hands_in_json_and_the_old_typed_form_agree():
    """JSON "hand" / "hands" price a win as the text form does; a hand that is no win or three suits is refused."""
    text = settle_io.settle(f'win 2,3 hand "{GANG_PAO}" hand "{QING_DUI}" from 0\n')
    js = settle_io.settle(json.dumps({"events": [{"win": {"winners": [2, 3], "hands": [GANG_PAO, QING_DUI],
                                                           "discarder": 0}}]}))
    typed = settle_io.settle("win 2,3 0fan,3fan from 0\n")
    assert text.transfers == js.transfers == typed.transfers == [-1 - 8, 0, 1, 8]
    one = settle_io.settle(json.dumps({"events": [{"win": {"winners": [1], "hand": QING_DUI, "fans": [3]}}]}))
    assert one.transfers == [-9, 27, -9, -9]
    for bad in ('win 2 hand "123m456p789s1p [555p^] +1p" from 0', 'win 2 hand "123m456m789m1p [555p^] +2p" from 0',
                'win 2,3 hand "' + GANG_PAO + '" from 0', 'win 2 hand "' + GANG_PAO + '" self robbing',
                'win 2 1fan from 0 last'):
        with pytest.raises(settle_io.DealError, match="line 1"):
            settle_io.settle(bad)


@pytest.mark.parametrize("deal, words", [
    ('win 1 hand "123m456m789m11p23p +4p" self kong', "needs a kong in the hand"),
    ('kong 0 concealed\nwin 1 hand "123m456m789m11p23p +4p" from 0 kong robbing', "cannot be combined"),
])
def test_a_win_the_score_command_refuses_is_refused_in_a_deal_too(deal, words):
    """A winner's hand is checked as ``mjtable score`` checks it: 杠上花 without a kong in the hand, 杠上炮 with
    抢杠 (the deal had priced both, with their fans)."""
    with pytest.raises(settle_io.DealError, match=words):
        settle_io.settle(deal + "\n")


@pytest.mark.parametrize("deal", ["kong 0 concealed\nfalsewin 1 from 0 kong\n",
                                  json.dumps({"events": [{"kong": {"seat": 0, "kind": "concealed"}},
                                                         {"false_win": {"seat": 1, "discarder": 0,
                                                                        "kong_discard": True}}]})])
def test_a_false_win_on_a_kong_discard_leaves_the_kong_unpaid(deal):
    """第十二条十一（一）: 杠上炮的诈和，开杠者此杠依旧不得分 (a deal had no way to say it: the kong stayed paid)."""
    s = settle_io.settle(deal)
    assert s.transfers == [0, 0, 0, 0] and s.penalties == [0, -24, 0, 0]
    refunds = [it for it in s.ledger if it.kind == "kong_refund"]
    assert len(refunds) == 3 and all(settle_io.clause_of(it).endswith("第十二条十一（一）") for it in refunds)
    with pytest.raises(settle_io.DealError, match="needs another seat's kong"):
        settle_io.settle("falsewin 1 from 0 kong\n")


@pytest.mark.parametrize("deal", ["pig 3\n" + "".join(f"draw {s} 123m456m789m1p23p5p void s\n" for s in range(4)),
                                  json.dumps({"events": [{"active_pig": 3}],
                                              "draw": {str(s): {"hand": "123m456m789m1p23p5p",
                                                                "void_suit": "s"} for s in range(4)}})])
def test_a_player_judged_an_active_pig_during_play_is_one_at_the_draw_with_a_clean_hand(deal):
    """第十条三（三）2: 已被判过主动花猪且流局结算时手牌或明牌中并无花猪牌，则正常进行扣分及查大叫流程 — judged during
    play, the player pays 查大叫 at the draw though ready and clean, and is deducted 24 once (a deal had no way to
    say it)."""
    s = settle_io.settle(deal)
    assert s.statuses[3] == "pig_active" and s.penalties == [0, 0, 0, -24]
    assert s.transfers == [1, 1, 1, -3]
