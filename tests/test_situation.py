"""The situation check: impossible flag combinations are refused (exit 2, naming the clause) before scoring,
and every combination it accepts is one the engine honours."""
import pytest
from hypothesis import given, settings, strategies as st

from mjtable import errors
from mjtable.scoring import mcr
from mjtable.scoring.hand import Situation
from mjtable.scoring.notation import parse_hand
from mjtable.scoring.situation import CONTRADICTIONS, SituationError, check, contradictions
from mjtable import cli

NO_KONG = "123m456m789m123p1p +1p"
KONG = "123m456p678s9s [1111z<] +9s"


@pytest.mark.parametrize("argv,words", [
    ([NO_KONG, "--kong-replacement", "--self-drawn"], "needs a kong"),
    ([NO_KONG, "--robbing-kong", "--self-drawn"], "never self-drawn"),
    ([NO_KONG, "--kong-replacement", "--self-drawn", "--rules", "sichuan", "--void-suit", "s"], "needs a kong"),
    ([NO_KONG, "--robbing-kong", "--self-drawn", "--rules", "sichuan", "--void-suit", "s"], "never self-drawn"),
    ([NO_KONG, "--after-kong-discard"], "Sichuan fan"),
    ([NO_KONG, "--void-suit", "s"], "Sichuan rule"),
    ([NO_KONG, "--after-kong-discard", "--self-drawn", "--rules", "sichuan"], "not self-drawn"),
    ([KONG, "--kong-replacement"], "give --self-drawn"),
    ([KONG, "--kong-replacement", "--self-drawn", "--robbing-kong"], "never self-drawn"),
    (["123m456p789s11z13s +1s", "--robbing-kong"], "cannot also stand"),
])
def test_cli_refuses_impossible_situations(argv, words, capsys):
    code = cli.main(["score", *argv])
    err = capsys.readouterr().err
    assert code == errors.EXIT_USAGE and err.count("\n") == 1 and words in err and ".txt" in err


def test_possible_situations_still_score(capsys):
    assert cli.main(["score", KONG, "--kong-replacement", "--self-drawn"]) == 0
    assert "杠上开花" in capsys.readouterr().out
    assert cli.main(["score", "123m456p789s11z13s +2s", "--robbing-kong"]) == 0
    assert "抢杠和" in capsys.readouterr().out


def test_every_row_has_a_clause_for_each_rule_system_it_applies_to():
    for c in CONTRADICTIONS:
        assert set(c.rules) <= set(c.clauses) and all(".txt" in c.clauses[r] for r in c.rules), c.id
    assert len({c.id for c in CONTRADICTIONS}) == len(CONTRADICTIONS)


_flags = st.fixed_dictionaries({k: st.booleans() for k in
                                ("self_drawn", "kong_replacement", "robbing_kong", "last_tile", "last_copy")})


@settings(max_examples=300, deadline=None)
@given(_flags, st.sampled_from([KONG, NO_KONG, "123m456p789s11z13s +2s", "123m456p789s11z12s +3s"]))
def test_accepted_mcr_flags_are_honoured_by_the_engine(flags, text):
    """No accepted combination is impossible: the MCR engine drops a situational fan that cannot apply, so a
    flag the check lets through must show as its fan."""
    hand = parse_hand(text, Situation(**flags))
    try:
        check(hand.situation, "mcr", hand)
    except SituationError as e:
        assert e.exit_code == errors.EXIT_USAGE
        return
    res = mcr.score(hand)
    fans = {f.id for f in res.fans}
    if res.is_win and flags["kong_replacement"]:
        assert "out_with_replacement_tile" in fans
    if res.is_win and flags["robbing_kong"]:
        assert "robbing_the_kong" in fans


@settings(max_examples=200, deadline=None)
@given(st.fixed_dictionaries({k: st.booleans() for k in ("self_drawn", "kong_replacement", "robbing_kong",
                                                          "after_kong_discard")}))
def test_accepted_sichuan_flags_are_consistent(flags):
    hand = parse_hand("123m456m789m5p [2222p<] +5p", Situation(**flags))
    if contradictions(hand.situation, "sichuan", hand):
        return
    assert not (flags["robbing_kong"] and flags["self_drawn"])
    assert not (flags["after_kong_discard"] and (flags["self_drawn"] or flags["kong_replacement"]))
    assert not flags["kong_replacement"] or flags["self_drawn"]


HAND = "123m456p678s234s5z +5z"


@pytest.mark.parametrize("argv,code,words", [
    ([HAND, "--profile", "competition", "--heavenly-win", "--self-drawn"], 0, "天和"),
    ([HAND, "--profile", "competition", "--earthly-win", "--seat-wind", "S"], 0, "地和"),
    ([HAND, "--profile", "competition", "--human-win"], 0, "人和"),
    ([HAND, "--heavenly-win", "--self-drawn"], 2, "house fans"),
    ([HAND, "--profile", "competition", "--heavenly-win", "--self-drawn", "--seat-wind", "S"], 2, "dealer"),
    ([HAND, "--profile", "competition", "--heavenly-win"], 2, "dealer"),
    ([HAND, "--profile", "competition", "--earthly-win"], 2, "non-dealer"),
    ([HAND, "--profile", "competition", "--earthly-win", "--human-win", "--seat-wind", "S"], 2, "exclude each other"),
    (["123m456p234s5z [678s<] +5z", "--profile", "competition", "--human-win"], 2, "claimed meld"),
])
def test_first_deal_flags(argv, code, words, capsys):
    got = cli.main(["score", *argv])
    out, err = capsys.readouterr()
    assert got == code and words in (out if code == 0 else err), (out, err)


def test_winning_tile_not_apart_loses_the_wait_fans_in_every_profile_3_4_28(capsys):
    """mcr-wmo-2006.txt 3.4.28 单放 (以便核查): a winning tile not set apart cannot be checked, so no 坎张 under
    default or wmo2006 either (the competition variant, 行牌 16, also drops 和绝张 and 九莲宝灯)."""
    for profile in ("default", "wmo2006"):
        assert cli.main(["score", "123m456p789s11z13s +2s", "--profile", profile]) == 0
        assert "坎张" in capsys.readouterr().out
        assert cli.main(["score", "123m456p789s11z13s +2s", "--profile", profile, "--no-winning-tile-apart"]) == 0
        out = capsys.readouterr().out
        assert "坎张" not in out and "3.4.28" in out


def test_winning_tile_not_apart_loses_the_wait_fans_in_competition(capsys):
    assert cli.main(["score", "123m456p789s11z13s +2s", "--profile", "competition"]) == 0
    assert "坎张" in capsys.readouterr().out
    assert cli.main(["score", "123m456p789s11z13s +2s", "--profile", "competition", "--no-winning-tile-apart"]) == 0
    assert "坎张" not in capsys.readouterr().out


@pytest.mark.parametrize("text,literal_extra", [("22334466888s66z +8s", {"all_green", "seven_pairs"}),
                                                ("1122334455667z +7z", {"all_honors", "seven_pairs"})])
def test_house_fans_do_not_count_what_they_imply(text, literal_extra):
    hand = parse_hand(text)
    comp = {f.id for f in mcr.score(hand, "competition").fans}
    lit = {f.id for f in mcr.score(hand, "competition_literal").fans}
    assert not comp & literal_extra and literal_extra <= lit
    from mjtable.scoring.mcr.fantable import all_rows
    for fid in comp - {"concealed_hand"}:
        assert not set(all_rows()[fid].implied) & comp


def test_contradiction_quotes_are_verbatim():
    """Every quote in “…” of a refusal's clause stands verbatim (white space aside) in the rule file the clause
    names: a Sichuan fan is quoted from its table row's cell (第十条二（六）⑦⑧⑨), not reworded."""
    import re
    from mjtable.scoring.situation import CONTRADICTIONS
    from mjtable.system_files import shared
    files = ("mcr-wmo-2006.txt", "competition-variant.txt", "sichuan-sbr-2025.txt")
    texts = {f: re.sub(r"\s", "", shared("rules", f).read_text(encoding="utf-8")) for f in files}
    quoted = 0
    for c in CONTRADICTIONS:
        for clause in c.clauses.values():
            named = [f for f in files if f in clause]
            for q in re.findall(r"“([^”]+)”", clause):
                assert any(re.sub(r"\s", "", q) in texts[f] for f in named), (c.id, q)
                quoted += 1
    assert quoted >= 5
