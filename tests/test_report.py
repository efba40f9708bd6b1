"""Referee report rendering (Markdown and HTML) from a table state."""
import pytest

from mjtable.scoring import tiles as T
from mjtable.scoring.hand import Situation
from mjtable.scoring.notation import parse_tiles as P
from mjtable.scoring.report import ReportError, referee_report
from mjtable.scoring.table import MeldOnTable, PlayerArea, TableState


def table(exposed=()):
    me = PlayerArea("self", tuple(P("9p")), melds=(MeldOnTable(tuple(P("1111m")), 0), MeldOnTable(tuple(P("333m")), 1),
                                                   MeldOnTable(tuple(P("555p")), 2), MeldOnTable(tuple(P("777p")), 0)),
                    winning_tile=P("9p")[0], declared_win=True)
    left = PlayerArea("left", tuple(P("234m456m789m2s234p")), discards=tuple(P("9s1p")), void_suit=T.SOU,
                      exposed=tuple(P(exposed)) if exposed else ())
    return TableState([me, left], "sichuan", ["tile 3z near the wall"])


def test_markdown_report_has_hand_fans_payments_findings_and_signatures():
    md = referee_report(table(exposed="5s"), Situation(void_suit=T.SOU), "sichuan")
    assert "9p [1111m<] [333m^] [555p>] [777p<] +9p" in md
    assert "| 金钩钩 | Golden Hook" in md and "3 番 → 基本分 base 8" in md and "点炮者 discarder 8" in md
    assert "exposed_tile — 上家 (left)" in md and "条款 Clause: sichuan-sbr-2025.txt 第十二条六" in md
    assert "void_suit_tiles" in md and "主动花猪" in md
    assert "## 裁判审查 Findings (2: 2 violation)" in md       # not "违规" (violation) over checks too
    assert "tile 3z near the wall" in md
    assert "裁判员 Referee: ____" in md and md.count("选手 Player") == 4


def test_clean_table_says_so():
    md = referee_report(table(), Situation(void_suit=T.SOU), "sichuan")
    assert "void_suit_tiles" in md          # the left player still holds 2s after discarding 1p
    t = table()
    t.players[1].discards = tuple(P("9s"))
    md = referee_report(t, Situation(void_suit=T.SOU), "sichuan")
    assert "未发现违规 No violation found." in md and "裁判审查 Findings (0)" in md


def test_invalid_win_is_reported():
    t = table()
    t.players[0].winning_tile = P("8p")[0]
    md = referee_report(t, Situation(), "sichuan")
    assert "不成和 Not a valid win" in md and "false_win" in md


def test_html_is_escaped_and_complete():
    h = referee_report(table(exposed="5s"), Situation(void_suit=T.SOU), "sichuan", fmt="html")
    assert h.startswith("<!DOCTYPE html>") and h.rstrip().endswith("</html>")
    assert "[1111m&lt;]" in h and "<td>金钩钩</td>" in h and h.count("<li>") >= 4
    assert "class=\"line\"" in h


def test_bad_format():
    with pytest.raises(ReportError, match="unknown report format"):
        referee_report(table(), Situation(), "sichuan", fmt="pdf")


def test_mcr_report_under_minimum_lists_the_fans_found():
    me = PlayerArea("self", tuple(P("234m567m345p678s9s")), winning_tile=P("9s")[0], declared_win=True)
    md = referee_report(TableState([me]), Situation(), "mcr", "competition")
    assert "不成和 Not a valid win" in md and "已计番种 Fans found" in md and "| 平和 | All Chows" in md
    assert "和牌 5(1)" in md and "强和" in md
    good = PlayerArea("self", tuple(P("123m456m789m123p5p")), winning_tile=P("5p")[0], declared_win=True)
    md = referee_report(TableState([good]), Situation(self_drawn=True), "mcr")
    assert "| 清龙 |" in md and "每家 each" in md and "No violation found" in md
