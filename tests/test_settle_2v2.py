"""`mjtable settle` under the 2V2 supplement (sichuan-sbr-2025.txt, 2V2 双打补充细则): a table of two teams, the
deal's end once a team's pair has won, 花猪 at the settlement, a duplicate board's IMP, and the deals the supplement
refuses. Each test names the clause it checks; every amount is worked out by hand from the text."""
import dataclasses
import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings

from mjtable import cli, errors
from mjtable.scoring import settle_io, settlement, settlement_2v2
from mjtable.scoring import tiles as T
from mjtable.scoring.notation import parse_meld, parse_tiles
from mjtable.scoring.settlement import (NOT_TENPAI, PIG_ACTIVE, PIG_PASSIVE, TENPAI, Barred, Deal, EndHand, FalseWin,
                                        Kong, SettlementError, Win)
from mjtable.scoring.settlement_2v2 import CLAUSES_2V2, DIFFERENCES, Teams, differences_table, settle_2v2
from mjtable.system_files import shared
from tests.test_settlement import deals

ROOT = Path(__file__).resolve().parents[1]
TEAMS = Teams(("A", "B"), ((0, 2), (1, 3)))
QING_DUI = "1112223334455m +5m"           # 大对子 1 清一色 2: 3 fans, base 8
DA_DUI = "11122233344m55p +4m"            # 大对子 1: base 2
PING = "123m456m789m111p9p +9p"           # 平和: base 1

# the docs' one-table example (docs/cli.md), worked by hand in test_a_2v2_deal_end_to_end
TABLE = f"""mode 2v2
teams A=0,2 B=1,3
kong 1 concealed
win 2 hand "{QING_DUI}" self
win 0 hand "{DA_DUI}" from 3
"""


def run_cli(tmp_path, capsys, text, *args):
    f = tmp_path / "deal.txt"
    f.write_text(text, encoding="utf-8")
    code = cli.main(["settle", str(f), *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def M(*xs):
    return tuple(parse_meld(x) for x in xs)


READY = EndHand(tuple(parse_tiles("333p44p55p")), M("[111m<]", "[222m^]"))          # 大对子 on 4p: base 2
NOT_READY = EndHand(tuple(parse_tiles("1357m2468p11m99p5p")), (), discards=tuple(parse_tiles("1s")))   # m, p only
PIG = EndHand(tuple(parse_tiles("1357m2468p1m99p5p1s")), (), discards=tuple(parse_tiles("9s9m")))     # 3 suits
PASSIVE = EndHand(tuple(parse_tiles("1357m2468p1m99p5p1s")), (), discards=tuple(parse_tiles("9s9s")))


# ------------------------------------------------------------------------------------------ one table


def test_a_2v2_deal_end_to_end(tmp_path, capsys):
    """第十条一、二 per player, teammates included; 第一条五 a team's points are the partners' sum; 第二条四 the deal is
    over once both of A have won, and seat 1 keeps his kong (no 查叫, so no refund). By hand:
    kong 1 concealed: 0, 2, 3 pay 2 each              -> [-2, 6, -2, -2]
    win 2 self, 3 fans: base 8 + 1 from 0 (partner), 1, 3 -> [-11, -3, 25, -11]
    win 0 from 3, 1 fan: 3 pays base 2               -> [-9, -3, 25, -13]; A 16, B -16."""
    code, out, err = run_cli(tmp_path, capsys, TABLE, "--json")
    assert code == 0, err
    d = json.loads(out)
    assert d["mode"] == "2v2" and d["teams"] == {"A": [0, 2], "B": [1, 3]}
    assert d["transfers"] == [-9, -3, 25, -13] and d["penalties"] == [0, 0, 0, 0]
    assert d["team_points"] == {"A": 16, "B": -16}
    assert d["ended"] == {"event": 2, "team": "A"} and d["statuses"] == {}
    assert [f["kind"] for f in d["findings"]] == ["deal_over"] and "第二条四" in d["findings"][0]["clause"]
    assert [i["kind"] for i in d["ledger"]] == ["kong"] * 3 + ["win"] * 4          # no refund of seat 1's kong
    assert [(i["payer"], i["payee"], i["amount"]) for i in d["ledger"] if i["kind"] == "win"] == [
        (0, 2, 9), (1, 2, 9), (3, 2, 9), (3, 0, 2)]
    assert all("第二条三" in i["clause"] for i in d["ledger"] if i["kind"] == "win")
    # payments per player are the rules' own: the same events as an individual deal pay the same
    assert settle_io.settle(TABLE.split("\n", 2)[2]).transfers == d["transfers"]
    code, text, _ = run_cli(tmp_path, capsys, TABLE)
    assert code == 0 and "team A (seats 0, 2) 16, team B (seats 1, 3) -16" in text
    assert "第一条五 “比较同桌内两对搭档获得副分之和”" in text and "still in: 1, 3" in text


def test_a_teammate_may_feed_his_partner_shunhe_2_3():
    """第二条三 “随时可以和任何选手任何番数的牌”: a win on a partner's discard is a win like any other (the
    partner pays; the team's points do not move), and a false win is 诈和 only, 24 deal points (第四条七（一）)."""
    t = settle_2v2(Deal([Win((0,), (2,), discarder=2)]), TEAMS)
    assert t.settlement.transfers == [4, 0, -4, 0] and t.team_points == [0, 0]
    t = settle_2v2(Deal([FalseWin(1)]), TEAMS)
    assert t.settlement.penalties == [0, -24, 0, 0] and t.team_points == [0, -24]
    item, = t.settlement.ledger
    assert "顺和 is no offence" in item.note
    assert settle_io.settle_dict(t)["ledger"][0]["clause"] == CLAUSES_2V2["false_win_penalty"]


# ------------------------------------------------------------------------------------------ 第二条四


def test_the_deal_ends_when_both_partners_have_won_2_4(tmp_path, capsys):
    """第二条四 “同队两人先和牌之后本副比赛结束，剩余同队两人不用血战到底，也不查叫和查花猪”: a win, a kong or a
    draw after both of a team have won is refused (exit 6, one line naming it); the same events as an individual
    deal (血战到底) go on."""
    later = TABLE + 'win 1 1fan self\n'
    code, _, err = run_cli(tmp_path, capsys, later)
    assert code == errors.EXIT_BAD_HAND and err.count("\n") == 1
    assert "event 3: the deal ended at event 2, when team A (seats 0, 2) had both won" in err and "第二条四" in err
    # individually, seat 1's self-drawn 1 fan (base 2 + 1) is paid by seat 3 alone, the one player still in
    assert settle_io.settle(later.split("\n", 2)[2]).transfers == [-9, -3 + 3, 25, -13 - 3]
    code, _, err = run_cli(tmp_path, capsys, TABLE + "draw 1 333p44p55p [111m<] [222m^]\n"
                                                     "draw 3 1357m2468p11m99p5p\n")
    assert code == 6 and "draw: the deal ended at event 2" in err and "不查叫和查花猪" in err
    with pytest.raises(SettlementError, match="event 2: the deal ended at event 1"):
        settle_2v2(Deal([Win((1,), (0,), discarder=0), Win((3,), (0,), discarder=2), Kong(0, "concealed")]), TEAMS)


def test_the_end_counts_real_wins_only_2_4():
    """第二条四 counts wins: two partners winning on one discard (一炮多响) end the deal at once; a partner's false
    win (诈和) is no win, so the deal goes on to a draw, where only the players still in are checked."""
    t = settle_2v2(Deal([Win((0, 2), (0, 1), discarder=1)]), TEAMS)
    assert t.ended == (0, 0) and t.settlement.transfers == [1, -3, 2, 0]
    t = settle_2v2(Deal([FalseWin(0), Win((2,), (0,), discarder=1)], draw={1: READY, 3: NOT_READY}), TEAMS)
    assert t.ended is None and t.settlement.statuses == {1: TENPAI, 3: NOT_TENPAI}
    assert t.settlement.transfers == [0, -1 + 2, 1, -2]


# ------------------------------------------------------------------------------------------ 第二条一、二


def test_pigs_at_the_settlement_2_2():
    """第二条二: at a draw a standing hand (with its melds) holding all three suits is 花猪; discards of one suit
    only: 被动花猪, it pays 查大叫 as a hand not ready; two suits discarded: penalised, 第二类 24 deal points
    (第四条六（二）, 第三条三（四）), paid to nobody outside a duplicate match. Seat 0 is ready (大对子, base 2)."""
    t = settle_2v2(Deal([], draw={0: READY, 1: PIG, 2: PASSIVE, 3: NOT_READY}), TEAMS)
    s = t.settlement
    assert s.statuses == {0: TENPAI, 1: PIG_ACTIVE, 2: PIG_PASSIVE, 3: NOT_TENPAI}
    assert s.transfers == [6, -2, -2, -2] and s.penalties == [0, -24, 0, 0]
    assert t.team_points == [6 - 2, -2 - 24 - 2]
    assert [(f.kind, f.seat) for f in t.findings] == [("pig", 1), ("pig_passive", 2)]
    assert "discarded 万 条" in t.findings[0].note and "discarded 条" in t.findings[1].note
    got = settle_io.settle_dict(t)
    assert [f["clause"] for f in got["findings"]] == [CLAUSES_2V2["pig"], CLAUSES_2V2["pig_passive"]]
    pen, = [i for i in got["ledger"] if i["kind"] == "pig_penalty"]
    assert pen["amount"] == 24 and pen["clause"] == CLAUSES_2V2["pig_penalty"]


def test_no_void_suit_so_two_suits_are_never_a_pig_2_1():
    """第二条一 “每副牌开始时，选手不用定缺”: a hand of two suits is no 花猪 whatever it holds (the individual
    deal's void suit would make the same hand one), and a void suit given in a 2V2 deal is refused."""
    voided = dataclasses.replace(NOT_READY, void_suit=T.MAN)
    individual = settlement.settle(Deal([], draw={0: READY, 1: voided, 2: NOT_READY, 3: NOT_READY}))
    assert individual.statuses[1] == PIG_ACTIVE and individual.penalties[1] == -24
    t = settle_2v2(Deal([], draw={0: READY, 1: NOT_READY, 2: NOT_READY, 3: NOT_READY}), TEAMS)
    assert t.settlement.statuses[1] == NOT_TENPAI and t.settlement.penalties == [0, 0, 0, 0]
    with pytest.raises(SettlementError, match="no void suit in a 2V2 deal"):
        settle_2v2(Deal([], draw={0: READY, 1: voided, 2: NOT_READY, 3: NOT_READY}), TEAMS)


def test_a_barred_player_returns_his_kongs_3_4_7():
    """第三条四（七） “该选手应退回其本副牌所有杠所获得的分数”: cited by a barred player's kong refund in 2V2."""
    t = settle_2v2(Deal([Kong(3, "concealed"), Barred(3)]), TEAMS)
    assert t.settlement.transfers == [0, 0, 0, 0]
    clauses = {i["clause"] for i in settle_io.settle_dict(t)["ledger"] if i["kind"] == "kong_refund"}
    assert clauses == {CLAUSES_2V2["kong_refund:barred"]}


# ------------------------------------------------------------------------------------------ duplicate board

BOARD = f"""mode 2v2-duplicate
room open
teams A=0,2 B=1,3
kong 0 concealed
win 1 hand "{QING_DUI}" from 2
draw 0 333p44p55p [111m<] [222m^]
draw 2 1357m2468p1m99p5p1s discards 9s9m penalty 4
draw 3 1357m2468p11m99p5p discards 1s
room closed
teams A=1,3 B=0,2
win 0 hand "{DA_DUI}" from 1
win 2 hand "{PING}" self
"""


def test_a_duplicate_board_1_6_1_7_3_4_3(tmp_path, capsys):
    """第一条六 (副差分: both rooms' sum when positive), 第一条七 (IMP by settlement.imp, not a copy), 第三条四（三）
    (a penalty goes to the other pair), 第四条六（二） (a duplicate 花猪 is 第三类: the referee's 4). By hand:
    open: kong 0 (+6; 1, 2, 3 -2); 2 pays 1 base 8; draw: 2 (花猪) and 3 pay 0 base 2; 2 loses 4 to B:
          [10, 6, -12, -4], A = 10 - 12 - 4 = -6, B = 6 - 4 + 4 = 6;
    closed (A on 1, 3): 1 pays 0 base 2; 2 self-draws 平和, 2 from 1 and 3; B's pair have both won:
          [2, -4, 4, -2], A -6, B 6.  Board: A -12 -> 副差分 0, IMP 0; B 12 -> 副差分 12, IMP 5."""
    assert settlement_2v2.imp is settlement.imp
    code, out, err = run_cli(tmp_path, capsys, BOARD, "--json")
    assert code == 0, err
    d = json.loads(out)
    op, cl = d["rooms"]["open"], d["rooms"]["closed"]
    assert op["net"] == [10, 6, -16, -4] and op["penalties"] == [0, 0, -4, 0]
    assert op["team_points"] == {"A": -6, "B": 6} and cl["team_points"] == {"A": -6, "B": 6}
    assert cl["transfers"] == [2, -4, 4, -2] and cl["ended"] == {"event": 1, "team": "B"}
    credit, = [f for f in op["findings"] if f["kind"] == "penalty_credit"]
    assert (credit["seat"], credit["team"], credit["amount"]) == (2, "B", 4) and "第三条四（三）" in credit["clause"]
    pen, = [i for i in op["ledger"] if i["kind"] == "pig_penalty"]
    assert pen["clause"] == CLAUSES_2V2["pig_penalty:duplicate"]
    assert d["board"] == {"A": {"points": -12, "diff": 0, "imp": 0}, "B": {"points": 12, "diff": 12, "imp": 5}}
    js = {"mode": "2v2-duplicate", "rooms": {
        "open": {"teams": {"A": [0, 2], "B": [1, 3]},
                 "events": [{"kong": {"seat": 0, "kind": "concealed"}},
                            {"win": {"winners": [1], "hand": QING_DUI, "discarder": 2}}],
                 "draw": {"0": {"hand": "333p44p55p [111m<] [222m^]"},
                          "2": {"hand": "1357m2468p1m99p5p1s", "discards": "9s9m", "penalty": 4},
                          "3": {"hand": "1357m2468p11m99p5p", "discards": "1s"}}},
        "closed": {"teams": {"B": [0, 2], "A": [1, 3]},
                   "events": [{"win": {"winners": [0], "hand": DA_DUI, "discarder": 1}},
                              {"win": {"winners": [2], "hand": PING}}]}}}
    assert settle_io.settle_dict(settle_io.settle(json.dumps(js)))["board"] == d["board"]
    code, text, _ = run_cli(tmp_path, capsys, BOARD)
    assert "team B: open 6, closed 6, sum 12: 副差分 12, IMP 5" in text


# ------------------------------------------------------------------------------------------ refusals

T2 = "mode 2v2\nteams A=0,2 B=1,3\n"
D2 = "mode 2v2-duplicate\nroom open\nteams A=0,2 B=1,3\n"
PIG_DRAW = ("draw 0 333p44p55p [111m<] [222m^]\ndraw 1 333p44p55p [111m<] [222m^]\n"
            "draw 2 1357m2468p1m99p5p1s discards 9s9m{}\ndraw 3 333p44p55p [111m<] [222m^]\n")


@pytest.mark.parametrize("text, words", [
    ("mode 2v2\nteams A=0,1 B=2,3\n", "partners sit opposite"),                     # 第一条二
    ("mode 2v2\nteams A=0,2 B=1,4\n", "seat '4' is not 0-3"),                        # a fifth seat
    ("mode 2v2\nteams A=0,2 B=1,3,0\n", "team B: a team is two partners, got 3"),   # a fifth player
    ("mode 2v2\nteams A=0,2 A=1,3\n", "each named once"),
    ("mode 2v2\nwin 0 1fan self\n", "no 'teams' line"),
    (T2 + "teams A=0,2 B=1,3\n", "one 'teams' line per table"),
    (T2 + "win 0 1fan self\nwin 2 1fan self\nwin 1 1fan self\n", "event 2: the deal ended at event 1"),   # 第二条四
    (T2 + "draw 0 333p44p55p [111m<] [222m^] void s\n", "line 3: no void suit in a 2V2 deal"),            # 第二条一
    (T2 + PIG_DRAW.format(" penalty 4"), "here 花猪 costs 24"),
    ("teams A=0,2 B=1,3\nwin 0 1fan self\n", "line 1: 'teams' belongs to a 2V2 deal"),
    ("win 0 1fan self\nmode 2v2\n", "line 2: 'mode' is the deal's first line"),
    ("mode 3v1\n", "write 'mode individual', 'mode 2v2' or 'mode 2v2-duplicate'"),
    (T2 + "room open\n", "'room' belongs to a duplicate board"),
    ("mode 2v2-duplicate\nteams A=0,2 B=1,3\n", "follow 'room open' or 'room closed'"),
    (D2 + "room closed\nteams A=0,2 B=1,3\n", "team A holds seats 0, 2 in both rooms"),                  # 第一条二
    (D2 + "room open\n", "once each"),
    (D2 + "room closed\nteams A=1,3 C=0,2\n", "the rooms name different teams"),
    (D2, "room closed: no 'teams' line"),
    (D2 + PIG_DRAW.format("") + "room closed\nteams A=1,3 B=0,2\n", "graded by the referee, 1-12"),    # 第四条六（二）
    (D2 + PIG_DRAW.format(" penalty 13") + "room closed\nteams A=1,3 B=0,2\n", "1-12 deal points, got 13"),
    ('{"mode": "2v2", "teams": {"A": [0, 1], "B": [2, 3]}}', "partners sit opposite"),
    ('{"mode": "2v2", "teams": {"A": [0, 2], "B": [1, 3], "C": [4, 5]}}', "two teams, got 3"),
    ('{"teams": {"A": [0, 2], "B": [1, 3]}}', '"teams" and "rooms" belong to a 2V2 deal'),
    ('{"mode": "2v2", "teams": {"A": [0, 2], "B": [1, 3]}, "draw": {"0": {"hand": "1m", "void_suit": "s"}}}',
     "draw seat 0: no void suit"),
    ('{"mode": "2v2-duplicate", "rooms": {"open": {"teams": {"A": [0, 2], "B": [1, 3]}}}}', "a duplicate board"),
    ('{"mode": 5}', '"mode": 5 is not one of'),
])
def test_deals_the_supplement_refuses_exit_6_in_one_line(tmp_path, capsys, text, words):
    """A deal that breaks the supplement (第一条二 seats, 第二条一 no 定缺, 第二条四 the end, 第四条六（二） a duplicate
    花猪's grade) or is not a 2V2 deal's shape: exit 6 (a deal that cannot have happened), one line, no traceback."""
    code, _, err = run_cli(tmp_path, capsys, text)
    assert code == errors.EXIT_BAD_HAND and err.count("\n") == 1 and words in err, err


# ------------------------------------------------------------------------------------------ texts and docs


def _supplement() -> str:
    text = shared("rules", "sichuan-sbr-2025.txt").read_text(encoding="utf-8")
    return text[text.index("2V2 双打补充细则\n\n前 言"):]


NUM = "一二三四五六七八九十"


def _section(text: str, article: str, item: str, sub: str) -> str:
    """The supplement's 第N条 [item、] [（sub）] paragraph(s), white space removed."""
    heads = [m.start() for m in re.finditer(rf"^第[{NUM}]+条 ", text, re.M)] + [len(text)]
    start = text.index(f"\n{article} ") + 1
    part = text[start:min(h for h in heads if h > start)]
    for mark, pat in ((f"{item}、", rf"^[{NUM}]+、"), (f"（{sub}）", rf"^（[{NUM}]+）")):
        if mark in ("、", "（）"):
            continue
        i = part.index(f"\n{mark}") + 1
        nxt = [m.start() for m in re.finditer(pat, part[i + 1:], re.M)]
        part = part[i:i + 1 + nxt[0]] if nxt else part[i:]
    return re.sub(r"\s", "", part)


def test_every_quote_is_verbatim_in_its_clause_of_the_supplement():
    """Each “…” of CLAUSES_2V2 stands verbatim (white space aside) in the paragraph of the supplement its clause
    names (第N条, item 、, sub-item （）): a quote cannot drift to the main rules or to another clause."""
    text, n = _supplement(), 0
    for key, value in CLAUSES_2V2.items():
        in_supp = False
        for part in value.split("; "):
            if part.startswith("sichuan-sbr-2025.txt"):
                in_supp = "2V2 双打补充细则" in part
            quotes = re.findall(r"“([^”]+)”", part)
            if not quotes:
                continue
            assert in_supp, (key, part)
            m = re.search(rf"(第[{NUM}]+条)([{NUM}]*)(?:（([{NUM}]+)）)?", part)
            where = _section(text, m.group(1), m.group(2), m.group(3) or "")
            for q in quotes:
                assert re.sub(r"\s", "", q) in where, (key, q)
                n += 1
    assert n >= 17


def test_docs_profiles_table_is_the_codes():
    """docs/profiles.md's 2V2 table is the one differences_table() makes from DIFFERENCES and CLAUSES_2V2."""
    doc = (ROOT / "docs" / "profiles.md").read_text(encoding="utf-8")
    assert "\n".join(differences_table()) in doc
    assert {k for *_, keys in DIFFERENCES for k in keys} <= set(CLAUSES_2V2)


def test_the_2v2_deals_in_docs_cli_settle_as_stated(tmp_path, capsys):
    """docs/cli.md's two 2V2 examples, as printed there, settle to the numbers its text gives."""
    doc = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    part = doc[doc.index("### 2V2"):]
    blocks = re.findall(r"```\n(.*?)```", part, re.S)[:2]
    code, out, err = run_cli(tmp_path, capsys, blocks[0], "--json")
    assert code == 0, err
    d = json.loads(out)
    assert d["net"] == [-9, -3, 25, -13] and d["team_points"] == {"A": 16, "B": -16}
    assert "(0: -9, 1: -3, 2: 25, 3: -13)" in part and "(A 16, B -16" in part
    code, out, err = run_cli(tmp_path, capsys, blocks[1], "--json")
    assert code == 0, err
    assert json.loads(out)["board"]["B"] == {"points": 12, "diff": 12, "imp": 5} and "IMP 5)" in part


# ------------------------------------------------------------------------------------------ property


@settings(max_examples=120, deadline=None)
@given(deals())
def test_any_legal_deal_settles_to_zero_or_ends_early(deal):
    """Any deal the rules allow (tests/test_settlement.py's strategy, no void suits: 第二条一) either settles
    (transfers sum to zero, the teams' points to the penalties) or is refused for an event after a team's pair has
    won (第二条四), and then its events up to that win settle with the deal ended there."""
    draw = None if deal.draw is None else {p: dataclasses.replace(h, void_suit=None) for p, h in deal.draw.items()}
    deal = Deal(deal.events, draw)
    try:
        t = settle_2v2(deal, TEAMS)
    except SettlementError as e:
        at = int(re.search(r"ended at event (\d+)", str(e)).group(1))
        t = settle_2v2(Deal(deal.events[:at + 1]), TEAMS)
        assert t.ended is not None and t.ended[0] == at
        return
    s = t.settlement
    assert sum(s.transfers) == 0 and sum(t.team_points) == sum(s.penalties)
    won = {w for ev in deal.events if isinstance(ev, Win) for w in ev.winners}
    assert (t.ended is not None) == any(set(pair) <= won for pair in TEAMS.seats)
