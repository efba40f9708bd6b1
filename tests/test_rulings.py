"""Referee profile 'rulings': the penalties of a wrong chow (ruling 8) and a wrong win (ruling 10) graded by the
facts of the case; the rule text's penalty when the facts are not given."""
import re

import pytest

from mjtable.scoring import rulings
from mjtable.scoring.result import Finding
from mjtable.system_files import shared
from mjtable.vision import cli

UNDER = "123m45p11z [345m<] [777z^] +6p"           # a winning shape under 8 points: 错和
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


@pytest.mark.parametrize("flags,severity,words", [
    (["--found-within-round"], "warning", "在一巡内发现 允许调换取回二万 给予警告"),
    (["--found-later"], "violation", "若迟误超过一巡，则不得再调换取回二万，该盘判为停和"),
])
def test_wrong_chow_graded_by_ruling_8(capsys, flags, severity, words):
    _, found = _findings(capsys, CHOW_ACROSS, "--referee-profile", "rulings", *flags)
    f = next(f for f in found if f["kind"] == "illegal_meld")
    assert f["severity"] == severity and words in f["penalty"] and "referee-rulings.txt 8" in f["clause"]


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
    for g in rulings.PROFILES["rulings"].values():
        for fa in facts:
            got = g(fa)
            if got:
                pieces = [re.sub(r"\s", "", p) for p in got[1].split(" — ")[0].split("…")]
                pattern = ".*".join(re.escape(p) for p in pieces)
                assert any(re.search(pattern, para) for para in paragraphs), pieces
    assert rulings.grade([f], "rules", rulings.Facts(hand_shown=True)) == [f]
    with pytest.raises(ValueError):
        rulings.grade([f], "nonsense", rulings.Facts())
