"""Referee profile 'rulings': the penalties of a wrong chow (ruling 8) and a wrong win (ruling 10) graded by the
facts of the case; the rule text's penalty when the facts are not given."""
import re

import pytest

from mjtable.scoring import rulings
from mjtable.scoring.result import Finding
from mjtable.system_files import shared
from mjtable import cli

UNDER = "11m45p [345m<] [777z^] [666z<] +6p"        # a winning shape 1 point under 8 (双箭刻 缺一门): 错和
FAR_UNDER = "123m45p11z [345m<] [777z^] +6p"       # 5 points under 8
CHOW_ACROSS = "123m456p78s11z [345m^] +9s"        # a chow claimed from across: 错吃


def _findings(capsys, *argv):
    code = cli.main(["score", *argv, "--json"])
    import json
    return code, json.loads(capsys.readouterr().out)["findings"]


@pytest.mark.parametrize("flags,severity,words", [
    ([], "violation", "判该盘停和陪打,并向各家罚付10分"),
    (["--hand-not-shown"], "warning", "没有亮牌可扣罚10分并提出警告"),
    (["--hand-shown"], "violation", "罚付各家各10分继续比赛，本人陪打"),
    (["--hand-shown", "--tiles-mixed"], "violation", "罚付3家各20分"),
])
def test_wrong_win_graded_by_ruling_10(capsys, flags, severity, words):
    _, found = _findings(capsys, UNDER, "--referee-profile", "rulings", *flags)
    f = next(f for f in found if f["kind"] == "under_minimum")
    assert f["severity"] == severity and words in f["penalty"]
    assert ("referee-rulings.txt 10" in f["clause"]) == bool(flags)


@pytest.mark.parametrize("flags", [[], ["--found-within-round"], ["--found-later"]])
def test_wrong_seat_chow_ruling_8_last_paragraph_keeps_the_right_to_win(capsys, flags):
    """referee-rulings.txt 8, last paragraph: a chow on the discard of the player opposite (一时疏忽报吃) is a
    warning, the shown tiles are discarded as exposed tiles, 但不取消其本盘和牌资格 — found early or late."""
    _, found = _findings(capsys, CHOW_ACROSS, "--referee-profile", "rulings", *flags)
    f = next(f for f in found if f["kind"] == "illegal_meld")
    assert f["severity"] == "warning" and "referee-rulings.txt 8" in f["clause"]
    assert "则判为暴露张打出，但不取消其本盘和牌资格" in f["penalty"] and "该盘判为停和" not in f["penalty"]


def _wrong_tile_chow(tiles: str, sideways: int) -> Finding:
    from mjtable.scoring.audit import audit
    from mjtable.scoring.hand import Situation
    from mjtable.scoring.notation import parse_tiles
    from mjtable.scoring.table import MeldOnTable, PlayerArea, TableState
    mt = MeldOnTable(tuple(parse_tiles(tiles)), sideways)
    p = PlayerArea("left", concealed=tuple(parse_tiles("123m456m789m5p")), melds=(mt,))
    return next(f for f in audit(TableState([p], "mcr"), Situation(), "mcr") if f.kind == "illegal_meld")


@pytest.mark.parametrize("within,severity,words", [
    (True, "warning", "可以在本巡内发现后纠正"), (False, "violation", "也同样判该盘停和")])
def test_wrong_pair_chow_ruling_8_second_paragraph(within, severity, words):
    """referee-rulings.txt 8, second paragraph: 1m and 4m shown to chow the 2m claimed (错拿一万和四万当搭子):
    corrected within the round (本巡内发现后纠正); found later, 不允许纠正 … 该盘停和."""
    f = _wrong_tile_chow("214m", 0)
    assert f.case == "wrong_chow_pair" and "3.11.6 2" in f.clause
    g, = rulings.grade([f], "rulings", rulings.Facts(found_within_round=within))
    assert g.severity == severity and words in g.penalty and "referee-rulings.txt 8" in g.clause


@pytest.mark.parametrize("within,severity,words", [
    (True, "warning", "在一巡内发现 允许调换取回二万 给予警告"),
    (False, "violation", "若迟误超过一巡，则不得再调换取回二万，该盘判为停和")])
def test_wrong_tile_taken_ruling_8_third_paragraph(within, severity, words):
    """referee-rulings.txt 8, third paragraph: the pair 1m 2m shown, but 4m taken back (取回其他牌): a warning
    within the round, the hand dead (该盘判为停和) after it."""
    f = _wrong_tile_chow("412m", 0)
    assert f.case == "wrong_chow_tile"
    g, = rulings.grade([f], "rulings", rulings.Facts(found_within_round=within))
    assert g.severity == severity and words in g.penalty


def test_wrong_tile_chow_without_the_fact_keeps_the_rule_text():
    f = _wrong_tile_chow("214m", 0)
    g, = rulings.grade([f], "rulings", rulings.Facts())
    assert g.penalty == f.penalty and "--found-within-round" in g.message
    assert _wrong_tile_chow("135m", 1).case == "wrong_chow_pair"        # 1m 5m cannot chow anything
    assert _wrong_tile_chow("125m", 2).case == "wrong_chow_tile"        # 1m 2m wait on 3m, 5m taken


def test_the_rules_profile_keeps_the_text_penalty(capsys):
    _, plain = _findings(capsys, UNDER)
    _, told = _findings(capsys, UNDER, "--hand-shown")          # facts without the rulings profile change nothing
    assert plain == told


def test_graded_penalties_quote_the_rulings_verbatim():
    """Each quote of a graded penalty stands in referee-rulings.txt verbatim, and all its pieces (joined by …)
    in one paragraph, in order: ruling 8's 'found within the round' once joined two paragraphs."""
    paragraphs = [re.sub(r"\s", "", p) for p in
                  shared("rules", "referee-rulings.txt").read_text(encoding="utf-8").split("\n\n")]
    f = Finding("x", "self", "m", "c", "p", case="false_win")
    facts = [rulings.Facts(found_within_round=b) for b in (True, False)] + \
            [rulings.Facts(hand_shown=b, tiles_mixed=m) for b in (True, False) for m in (False, True)]
    quotes = [got[1] for g in rulings.PROFILES["rulings"].values() for fa in facts if (got := g(fa))]
    quotes += [s.quote for r in rulings.FACTS.values() for s in r.steps] + [rulings.ESCALATION[0]]
    for q in quotes:
        pieces = [re.sub(r"\s", "", p) for p in q.split(" — ")[0].split("…")]
        pattern = ".*".join(re.escape(p) for p in pieces)
        assert any(re.search(pattern, para) for para in paragraphs), pieces
    assert rulings.grade([f], "rules", rulings.Facts(hand_shown=True)) == [f]
    with pytest.raises(ValueError):
        rulings.grade([f], "nonsense", rulings.Facts())


# ------------------------------------------------------------------------------------------ referee facts


WIN = "123m456p789s12s55z +3s"


def _fact(capsys, *facts):
    argv = [a for x in facts for a in ("--referee-fact", x)]
    code, found = _findings(capsys, WIN, *argv)
    assert code == 0
    return [f for f in found if f["kind"] == "referee_fact"]


@pytest.mark.parametrize("fact,severity,words", [
    ("wrong_draw_touched", "warning", "可向其提出警告 将牌放回原处"),
    ("wrong_draw_seen", "violation", "并已看到牌面或偷读 可向其提出警告 并罚扣 10分将牌放原处"),
    ("wrong_draw_kept", "violation", "裁判宣布其在该盘被处停和 并扣罚 10分")])
def test_wrong_draw_ruling_5(capsys, fact, severity, words):
    """referee-rulings.txt 5 (抓错牌): touched only, a warning; seen, a warning and 10; put into the hand,
    停和 and 10."""
    f, = _fact(capsys, fact)
    assert f["clause"] == "referee-rulings.txt 5" and f["severity"] == severity and words in f["penalty"]


@pytest.mark.parametrize("fact,words", [
    ("early_draw", "第一次裁判给予警告"), ("early_draw=2", "一盘中出现第二次，裁判给予警告 罚扣 5分"),
    ("early_draw=5", "第三次起 每出现一次扣罚 10分"), ("early_draw_seen", "裁判罚扣其 10分"),
    ("early_draw_seen=2", "均可罚扣其 20分"), ("early_draw_seen=3", "第三次罚扣其 30分，以此类推"),
    ("early_draw_kept", "裁判可以判其该盘停和")])
def test_early_draw_ruling_6_by_count_in_the_hand(capsys, fact, words):
    """referee-rulings.txt 6 (过急抓牌): the penalty grows with the times in one hand (一盘中出现第二次 …)."""
    f, = _fact(capsys, fact)
    assert f["clause"] == "referee-rulings.txt 6" and words in f["penalty"]


@pytest.mark.parametrize("fact,severity,words", [
    ("call_changed_to_win", "violation", "对其提出警告 罚扣 10分 本巡不能成和"),
    ("call_changed_to_win_shown", "violation", "可判本盘停和 罚付3家各 10分"),
    ("pung_changed_to_kong", "warning", "报碰不能改为报杠")])
def test_call_changed_ruling_11(capsys, fact, severity, words):
    """referee-rulings.txt 11 (报吃或报碰又改为报和): not shown, a warning, 10 and no win this round; shown, 停和
    and 10 to each of three; a pung changed to a kong, a warning."""
    f, = _fact(capsys, fact)
    assert f["clause"] == "referee-rulings.txt 11" and f["severity"] == severity and words in f["penalty"]


def test_wrecked_hand_ruling_13_pays_20_to_each_innocent(capsys):
    """referee-rulings.txt 13: 罚毁牌者付给无过错的两家各20分 不付给错和者."""
    f, = _fact(capsys, "wrecked_hand")
    assert f["clause"] == "referee-rulings.txt 13" and "无过错的两家各20分" in f["penalty"]


def test_repeated_warnings_ruling_12_escalate_by_count(capsys):
    """referee-rulings.txt 12: the second warning in a 局 costs 10, the third 20, 每增加一次警告 则增加罚扣 10分.
    Two warnings after one before are the 2nd (10) and the 3rd (20); with none before, the 1st costs nothing."""
    got = _fact(capsys, "wrong_draw_touched", "pung_changed_to_kong", "warnings_before=1")
    esc = [f for f in got if f["clause"] == "referee-rulings.txt 12"]
    assert [f["message"].split(":")[1].strip() for f in esc] == ["10 points with it", "20 points with it"]
    assert all("每增加一次警告 则增加罚扣 10分" in f["penalty"] for f in esc)
    got = _fact(capsys, "wrong_draw_touched", "pung_changed_to_kong", "warnings_before=0")
    assert [f["message"].split(":")[1].strip() for f in got if "12" in f["clause"]] == ["10 points with it"]
    assert _fact(capsys, "early_draw_seen", "warnings_before=3") == _fact(capsys, "early_draw_seen")  # no warning


def test_referee_facts_refused_when_unreadable(capsys):
    for bad in (["--referee-fact", "nonsense"], ["--referee-fact", "warnings_before"],
                ["--referee-fact", "wrecked_hand=2"], ["--referee-fact", "early_draw=0"],
                ["--referee-fact", "early_draw", "--rules", "sichuan"]):
        assert cli.main(["score", WIN, *bad]) == 2
        assert "referee fact" in capsys.readouterr().err


def test_referee_facts_in_a_batch_line():
    from mjtable.scoring.batch import score_line
    import json
    out = score_line(json.dumps({"hand": WIN, "referee_facts": ["early_draw=2"]}), 1)
    f, = out["findings"]
    assert f["clause"] == "referee-rulings.txt 6" and "罚扣 5分" in f["penalty"]
    assert "error" in score_line(json.dumps({"hand": WIN, "referee_facts": "early_draw"}), 2)
    assert "findings" not in score_line(json.dumps({"hand": WIN}), 3)


@pytest.mark.parametrize("flags", [["--hand-not-shown"], ["--hand-shown"]])
def test_ruling_10_grades_a_hand_one_point_short_only(capsys, flags):
    """referee-rulings.txt 10: 急于报和，而仅差1分 — a hand 5 points short keeps the rules' 停和 and 10 to each
    (--hand-not-shown had made it a warning), and says why; 7 points is graded."""
    _, found = _findings(capsys, FAR_UNDER, "--referee-profile", "rulings", *flags)
    _, rules = _findings(capsys, FAR_UNDER, "--referee-profile", "rules")
    f, = (f for f in found if f["kind"] == "under_minimum")
    r, = (f for f in rules if f["kind"] == "under_minimum")
    assert (f["severity"], f["penalty"], f["clause"]) == (r["severity"], r["penalty"], r["clause"]) == \
        ("violation", r["penalty"], r["clause"]) and "referee-rulings.txt" not in f["clause"]
    assert f["message"].endswith("(ruling 10 grades a hand 1 point short only; 5 short keeps the rules' penalty)")
    _, near = _findings(capsys, UNDER, "--referee-profile", "rulings", *flags)
    assert "referee-rulings.txt 10" in next(f for f in near if f["kind"] == "under_minimum")["clause"]


def test_ruling_10_grades_a_wrong_win_but_not_a_hand_that_is_not_even_ready():
    """Ruling 10 is about 错和 (仅差1分或看错别人打出的牌); a hand that is not even ready (诈和, false_win) keeps the
    rules' 20 to each player (it had been cut to 10)."""
    wrong = Finding("false_win", "self", "m", "c", "p", case="wrong_winning_tile")
    not_ready = Finding("false_win", "self", "m", "c", "p", case="false_win")
    graded = rulings.grade([wrong, not_ready], "rulings", rulings.Facts(hand_shown=True))
    assert "10" in graded[0].penalty and graded[1] == not_ready


def test_grading_never_makes_a_warning_to_check_a_penalty():
    """The audit makes an under-8 hand a warning when its wait went uncounted for want of a tile set apart (no one
    could check it); --hand-shown under the rulings profile had made it "the hand is dead, 10 to each" again."""
    checked = Finding("under_minimum", "self", "check which tile won", "c", "p", severity="warning",
                      case="under_minimum")
    assert rulings.grade([checked], "rulings", rulings.Facts(hand_shown=True)) == [checked]
    sure = Finding("under_minimum", "self", "m", "c", "p", case="under_minimum")
    assert rulings.grade([sure], "rulings", rulings.Facts(hand_shown=True))[0].severity == "violation"
