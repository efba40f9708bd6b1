"""Referee audit: one table state with each violation and one without, per kind, both rule systems."""
import pytest

from mjtable.scoring import tiles as T
from mjtable.scoring.audit import CATALOGUE, AuditError, audit, read_meld, rule_for
from mjtable.scoring.hand import ACROSS, CHOW, KONG, LEFT, PUNG, RIGHT, Meld, Situation
from mjtable.scoring.notation import parse_tiles
from mjtable.scoring.table import MeldOnTable, PlayerArea, TableState

P = parse_tiles
H13 = "123m456m789m123p5p"      # a 13-tile standing hand
H10 = "123m456m789m5p"          # 10 tiles: + one meld = 13


def meld(text, sideways=None, down=(), meld=None):
    ts = [None if i in down else t for i, t in enumerate(P(text))]
    return MeldOnTable(tuple(ts), sideways, meld)


def area(seat="self", concealed=None, melds=(), win=None, apart=True, declared=False, **kw):
    return PlayerArea(seat=seat, concealed=None if concealed is None else tuple(P(concealed)), melds=tuple(melds),
                      winning_tile=P(win)[0] if win else None, winning_tile_apart=apart, declared_win=declared, **kw)


def run(players, rules="sichuan", profile=None, **sit):
    return audit(TableState(list(players), rules), Situation(**sit), rules, profile)


def kinds(fs):
    return sorted(f.kind for f in fs)


def one(fs, kind):
    got = [f for f in fs if f.kind == kind]
    assert len(got) == 1, fs
    return got[0]


# ------------------------------------------------------------------------------------------ catalogue

def test_every_entry_names_a_rule_file_and_a_penalty():
    for (rs, case), r in CATALOGUE.items():
        assert r.clause.split()[0] in ("mcr-wmo-2006.txt", "competition-variant.txt", "sichuan-sbr-2025.txt"), case
        assert r.penalty_cn and r.penalty_en and r.severity in ("violation", "warning")


def test_catalogue_quotes_are_in_the_texts():
    """Each penalty quote is the rule text verbatim: every piece between an ellipsis (…) or a joining ；
    stands, to the character (white space aside), in a rule file the clause cites, and the pieces an ellipsis
    joins stand in that order (a quote had put a sentence before one that precedes it); remarks of the
    project's own go in Rule.note, never in the quote."""
    import re
    from mjtable.system_files import shared
    texts = {f: re.sub(r"\s", "", shared("rules", f).read_text(encoding="utf-8"))
             for f in ("mcr-wmo-2006.txt", "competition-variant.txt", "sichuan-sbr-2025.txt")}
    for (rs, case), r in CATALOGUE.items():
        files = [f for f in texts if f in r.clause]
        assert files, (rs, case, r.clause)
        for piece in re.split(r"[…；]", r.penalty_cn):
            piece = re.sub(r"\s", "", piece)
            assert piece and any(piece in texts[f] for f in files), (rs, case, piece)
        for joined in r.penalty_cn.split("；"):
            pattern = ".*".join(re.escape(re.sub(r"\s", "", p)) for p in joined.split("…"))
            assert any(re.search(pattern, texts[f]) for f in files), (rs, case, "out of order", joined)


def test_competition_falls_back_to_wmo():
    assert rule_for("mcr-competition", "wrong_side").clause.startswith("competition-variant.txt")
    assert rule_for("mcr-competition", "concealed_kong_shown").clause.startswith("mcr-wmo-2006.txt")


def test_bad_rules():
    with pytest.raises(AuditError, match="unknown rules"):
        run([], rules="riichi")
    with pytest.raises(AuditError, match="twice"):
        run([area(), area()])
    with pytest.raises(AuditError, match="discards holds"):
        run([PlayerArea("left", discards=(99,))])
    with pytest.raises(AuditError, match="meld 1"):
        run([PlayerArea("left", melds=(MeldOnTable((1, 2, 40)),))])


# ------------------------------------------------------------------------------------------ meld reading

def test_read_meld_kinds_and_sources():
    assert read_meld(meld("345m", 0)).meld == Meld(CHOW, 2, source=LEFT)
    assert read_meld(meld("777p", 1)).meld == Meld(PUNG, 15, source=ACROSS)
    assert read_meld(meld("1111s", 3)).meld == Meld(KONG, 18, source=RIGHT)
    assert read_meld(meld("1111s", 2)).meld.source == ACROSS
    assert read_meld(meld("5555p", None, down=(0, 3))).meld == Meld(KONG, 13, concealed=True)
    assert read_meld(meld("5555p", None, down=(0, 1, 2, 3))).meld is None
    assert read_meld(meld("135m", 0)).problem == "not_a_set"
    assert read_meld(meld("123m", 0, down=(1,))).problem is None            # 1m ? 3m: unreadable, not wrong
    assert read_meld(meld("1m3m5m", 0, down=(1,))).problem == "not_a_set"     # 1m ? 5m: no set fits
    assert read_meld(meld("1m1m5p", 0, down=(1,))).problem == "not_a_set"


# ------------------------------------------------------------------------------------------ Sichuan

WIN_SC = dict(concealed="123m456m789m234p5p", win="5p", declared=True)


def test_clean_sichuan_win_has_no_findings():
    assert run([area(**WIN_SC)]) == []
    assert run([area(**WIN_SC)], "sichuan", "default") == []          # "default" means sbr2025 here
    assert run([area(concealed="123m456m789m5p", melds=[meld("2222p", None, down=(0, 3))], win="5p",
                     declared=True)]) == []


def test_sichuan_three_suits_is_a_false_win():
    fs = run([area(concealed="123m456p789s234m5m", win="5m", declared=True)])
    f = one(fs, "three_suits")
    assert "第十二条十一（二）" in f.clause and "不再额外判罚主动花猪" in f.penalty
    assert kinds(fs) == ["three_suits"]


def test_sichuan_not_winning_is_false_win():
    f = one(run([area(concealed="123m456m789m234p5p", win="6p", declared=True)]), "false_win")
    assert f.clause.startswith("sichuan-sbr-2025.txt") and "杠分均应退回" in f.penalty


def test_sichuan_void_suit_in_winning_hand():
    assert run([area(**WIN_SC)], void_suit=T.SOU) == []
    f = one(run([area(**WIN_SC)], void_suit=T.PIN), "void_suit_tiles")
    assert "第六条一" in f.clause


def test_sichuan_active_pig_during_play():
    ok = area("right", concealed="123m456m789m1s234p", discards=tuple(P("9s")), void_suit=T.SOU)
    assert run([ok]) == []                                       # still discarding the void suit first
    bad = area("right", concealed="123m456m789m1s234p", discards=tuple(P("9s1p")), void_suit=T.SOU)
    f = one(run([bad]), "void_suit_tiles")
    assert "第十二条十（一）" in f.clause and "24" in f.penalty
    melded = area("right", concealed="123m456m789m1p", melds=[meld("777s", 1)], void_suit=T.SOU)
    assert "主动花猪" in one(run([melded]), "void_suit_tiles").message


def test_sichuan_one_void_tile_in_a_hand_of_fourteen_may_be_the_tile_just_drawn():
    """第七条二: a drawn tile shown apart is not yet the hand's; a void-suit tile just drawn, after another suit was
    discarded, is discarded next. Held in a hand of 14 it is a warning to check, not a 24-point violation; two such
    tiles (or one in a hand of 13) cannot both be the drawn tile."""
    drawn = area("right", concealed="123456789m1357p9s", discards=tuple(P("1s2s4m")), void_suit=T.SOU)
    f = one(run([drawn]), "void_suit_tiles")
    assert f.case == "void_suit_drawn" and f.severity == "warning" and "第七条二" in f.clause
    two = area("right", concealed="123456789m135p89s", discards=tuple(P("1s2s4m")), void_suit=T.SOU)
    f = one(run([two]), "void_suit_tiles")
    assert f.case == "void_suit_tiles" and f.severity == "violation"


def test_sichuan_chow_is_illegal():
    fs = run([area("left", concealed=H10, melds=[meld("123m", 0)])])
    assert "第七条一" in one(fs, "illegal_meld").clause


def test_sichuan_concealed_kong_display():
    good = area("left", concealed=H10, melds=[meld("2222p", None, down=(0, 3))])
    assert run([good]) == []
    for down in [(), (0, 1, 2, 3)]:
        bad = area("left", concealed=H10, melds=[meld("2222p", None, down=down)])
        assert "第七条五（一）" in one(run([bad]), "illegal_meld").clause


def test_sichuan_foreign_tiles():
    fs = run([area("left", concealed=H13, discards=tuple(P("1z")))])
    assert "第二条一" in one(fs, "too_many_copies").clause and "1z" in fs[0].message


def test_sichuan_exposed_tile():
    assert run([area("left", concealed=H13)]) == []
    f = one(run([area("left", concealed=H10 + "11s", exposed=tuple(P("3p")))]), "exposed_tile")
    assert "第十二条六" in f.clause and "第四类" in f.penalty


def test_sichuan_winner_showing_tiles_is_still_exposure():
    a = area(concealed="123m456m789m234p", win="5p", declared=True, exposed=tuple(P("5p")))
    assert kinds(run([a])) == ["exposed_tile"]
    a = area(concealed="123m456m789m123p", win="5p", declared=True, exposed=tuple(P("5p")))
    assert run([a], "mcr") == []                                   # MCR 3.11.6 7(4): a declarer's tiles


def test_sichuan_winning_tile_not_apart():
    fs = run([area(concealed="123m456m789m234p55p", apart=False, declared=True)])
    assert kinds(fs) == ["winning_tile_not_apart"]                 # still a valid win, judged on every tile


# ------------------------------------------------------------------------------------------ both systems

@pytest.mark.parametrize("rules", ["sichuan", "mcr"])
def test_wrong_tile_count(rules):
    assert run([area("left", concealed=H13)], rules) == []                # 13
    assert run([area("left", concealed=H13 + "6p")], rules) == []              # 14 (just drew)
    f = one(run([area("left", concealed=H13, melds=[meld("555s", 1)])], rules), "wrong_tile_count")
    assert "16" in f.message and "大相公" in f.message
    f = one(run([area("left", concealed=H10)], rules), "wrong_tile_count")
    assert "小相公" in f.message
    assert run([area("left", concealed_face_down=13)], rules) == []
    assert run([area("left")], rules) == []                                             # hand unseen


@pytest.mark.parametrize("rules", ["sichuan", "mcr"])
def test_too_many_copies(rules):
    a = area("left", concealed=H13, discards=tuple(P("5m5m")))
    assert run([a], rules) == []
    b = area("right", discards=tuple(P("5m5m")))
    f = one(run([a, b], rules), "too_many_copies")
    assert f.seat is None and "5 copies of 5m" in f.message
    assert run([a, area("right", discards=tuple(P("5m")))], rules) == []


def test_flower_twice_on_mcr_table():
    a = area("left", concealed=H13, flowers=tuple(P("1f")))
    assert run([a], "mcr") == []
    b = area("right", flowers=tuple(P("1f")))
    assert "copies of 1f" in one(run([a, b], "mcr"), "too_many_copies").message


@pytest.mark.parametrize("rules, side_ok, side_bad", [("mcr", 1, 0), ("sichuan", 2, 0)])
def test_claimed_tile_on_wrong_side(rules, side_ok, side_bad):
    src = ACROSS if rules == "mcr" else RIGHT
    ok = area("left", concealed=H10, melds=[meld("777p", side_ok, meld=Meld(PUNG, 15, source=src))])
    assert run([ok], rules) == []
    bad = area("left", concealed=H10, melds=[meld("777p", side_bad, meld=Meld(PUNG, 15, source=src))])
    f = one(run([bad], rules), "illegal_meld")
    assert "position 1" in f.message and f.severity == "warning"
    flat = area("left", concealed=H10, melds=[meld("777p", None)])
    assert "sideways" in one(run([flat], rules), "illegal_meld").message


def test_mcr_chow_not_from_left():
    ok = area("left", concealed=H10, melds=[meld("345s", 0)])
    assert run([ok], "mcr") == []
    bad = area("left", concealed=H10, melds=[meld("345s", 1)])
    f = one(run([bad], "mcr"), "illegal_meld")
    assert "3.11.6 2" in f.clause and "停和陪打" in f.penalty
    assert "行牌 13" in one(run([bad], "mcr", "competition"), "illegal_meld").clause


def test_mcr_not_a_set():
    bad = area("left", concealed=H10, melds=[meld("135s", 0)])
    assert "错吃" in one(run([bad], "mcr"), "illegal_meld").message


def test_mcr_concealed_kong_face_down_during_play():
    ok = area("left", concealed=H10, melds=[meld("5555s", None, down=(0, 1, 2, 3))])
    assert run([ok], "mcr") == []
    bad = area("left", concealed=H10, melds=[meld("5555s", None, down=(0, 3))])
    assert "3.6.8" in one(run([bad], "mcr"), "illegal_meld").clause


def test_mcr_exposed_tile_during_play():
    a = area("left", concealed=H10 + "11s", exposed=tuple(P("9s")))
    assert kinds(run([a], "mcr")) == ["exposed_tile"]
    f = one(run([a], "mcr"), "exposed_tile")
    assert "3.11.6 7(1)" in f.clause and "罚张" in f.penalty
    f = one(run([a], "mcr", "competition"), "exposed_tile")
    assert "行牌 21" in f.clause


# ------------------------------------------------------------------------------------------ MCR declared wins
# (these call the MCR engine, mjtable.scoring.mcr)

WIN_MCR = "123m456m789m123p5p"          # + 5p: 清龙 etc., well over 8 points


def test_mcr_valid_win_has_no_findings():
    assert run([area(concealed=WIN_MCR, win="5p", declared=True)], "mcr") == []
    assert run([area(concealed=WIN_MCR, win="5p")], "mcr", "competition") == []     # a tile set apart = declared


def test_mcr_under_minimum():
    fs = run([area(concealed="234m567m345p678s9s", win="9s", declared=True)], "mcr")
    f = one(fs, "under_minimum")
    assert "3.11.6 6(1)" in f.clause and "罚付10分" in f.penalty and "5 points" in f.message
    assert "强和" in one(run([area(concealed="234m567m345p678s9s", win="9s")], "mcr", "competition"),
                         "under_minimum").penalty


def test_mcr_wrong_winning_tile_is_cuo_he():
    f = one(run([area(concealed=WIN_MCR, win="6p", declared=True)], "mcr"), "false_win")
    assert "错和" in f.penalty and "10分" in f.penalty and "not 6p" in f.message


def test_mcr_not_tenpai_is_zha_he():
    f = one(run([area(concealed="123m456m789m135p9s", win="2s", declared=True)], "mcr"), "false_win")
    assert "3.11.6 6(2)" in f.clause and "20分" in f.penalty
    f = one(run([area(concealed="123m456m789m135p9s", win="2s")], "mcr", "competition"), "false_win")
    assert "和牌 5(3)" in f.clause and "寻常诈和" in f.message      # 135p9s -> swap 9s for 4p: tenpai
    far = area(concealed="2468m2468p2468s5m", win="9m")                 # nowhere near tenpai
    f = one(run([far], "mcr", "competition"), "false_win")
    assert "和牌 5(4)" in f.clause and "警告" in f.penalty and "有意诈和" in f.message
    assert "3.11.6 6(2)" in one(run([far], "mcr"), "false_win").clause


def test_mcr_miscounted_win():
    fs = run([area(concealed=WIN_MCR + "9s", win="5p", declared=True)], "mcr", "competition")
    assert kinds(fs) == ["false_win", "wrong_tile_count"]
    assert "和牌 5(5)" in one(fs, "false_win").clause


def test_mcr_winning_tile_not_apart():
    a = area(concealed=WIN_MCR + "5p", apart=False, declared=True)
    f = one(run([a], "mcr", "competition"), "winning_tile_not_apart")
    assert "行牌 16" in f.clause and "不计边、坎、钓" in f.penalty and f.severity == "violation"
    assert one(run([a], "mcr"), "winning_tile_not_apart").severity == "warning"


@pytest.mark.parametrize("profile", [None, "mcr1998", "wmo2006", "competition"])
def test_mcr_winning_tile_not_apart_no_wait_fans_3_4_28(profile):
    """mcr-wmo-2006.txt 3.4.28 单放: the winning tile lies apart "以便核查". Not apart, the tile is unknown: the
    best score over the candidate tiles is kept but without 边张/坎张/单钓将 (nobody can check the wait), and the
    notes say what each candidate tile would score."""
    from mjtable.scoring.audit import review
    tiles = "123m456p789s123s5z"
    apart = review(TableState([area(concealed=tiles, win="5z", declared=True)], "mcr"), Situation(), "mcr", profile)
    assert "single_wait" in {f.id for f in apart.scores["self"].result.fans}
    rv = review(TableState([area(concealed=tiles + "5z", apart=False, declared=True)], "mcr"), Situation(), "mcr",
                profile)
    r = rv.scores["self"].result
    assert not {f.id for f in r.fans} & {"edge_wait", "closed_wait", "single_wait"}
    assert r.is_win and r.total == apart.scores["self"].result.total - 1
    note = next(n for n in r.notes if n.startswith("winning tile not known"))
    assert all(t in note for t in ("1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "1s", "2s", "3s", "5z"))
    assert f"{r.total} 分 with" in note


def test_mcr_discard_win_not_apart_cites_3_7_1_not_3_4_28():
    """mcr-wmo-2006.txt 3.4.28 单放 is about the self-drawn tile (自摸成“和”的那一张牌); a discard win not set
    apart cites 3.7.1 (the hand laid open for checking). The competition variant (行牌 16) covers both."""
    a = area(concealed=WIN_MCR + "5p", apart=False, declared=True)
    discard = one(run([a], "mcr"), "winning_tile_not_apart")
    assert discard.clause == "mcr-wmo-2006.txt 3.7.1" and discard.case == "winning_tile_not_apart_discard"
    drawn = one(run([a], "mcr", self_drawn=True), "winning_tile_not_apart")
    assert drawn.clause == "mcr-wmo-2006.txt 3.4.28" and "自摸" in drawn.penalty
    assert "行牌 16" in one(run([a], "mcr", "competition"), "winning_tile_not_apart").clause


def test_sichuan_active_pig_cites_the_second_category_11_2_2():
    """The second category's penalty (扣盘分 2 分，或扣当盘副分 24 分) is 第十一条二（二） of sichuan-sbr-2025.txt."""
    r = rule_for("sichuan", "void_suit_tiles")
    assert "第十一条二（二）" in r.clause and "第十一条（二）" not in r.clause


def test_mcr_exposed_while_another_declares():
    other = area("left", concealed="123m456m789m123p", exposed=tuple(P("9s")))     # 12 standing + 1 exposed
    good = area(concealed=WIN_MCR, win="5p", declared=True)
    assert kinds(run([good, other], "mcr")) == ["exposed_tile"]
    f = one(run([good, other], "mcr"), "exposed_tile")
    assert f.severity == "warning" and "给予警告" in f.penalty
    bad = area(concealed=WIN_MCR, win="6p", declared=True)
    f = one(run([bad, other], "mcr"), "exposed_tile")
    assert "停和陪打" in f.penalty and "fails" in f.message
    assert "方准和牌" in one(run([bad, other], "mcr", "competition"), "exposed_tile").penalty


def test_mcr_concealed_kong_must_be_shown_after_the_win():
    hidden = area(concealed="123m456m789m5p", melds=[meld("2222s", None, down=(0, 1, 2, 3))], win="5p", declared=True)
    f = one(run([hidden], "mcr"), "illegal_meld")
    assert "3.6.8" in f.clause and "亮明" in f.penalty
    shown = area(concealed="123m456m789m5p", melds=[meld("2222s", None)], win="5p", declared=True)
    assert run([shown], "mcr") == []
    partly = area(concealed="123m456m789m5p", melds=[meld("2222s", None, down=(1, 2))], win="5p", declared=True)
    assert run([partly], "mcr") == []             # faces visible: the kong can be checked


def test_added_kong_as_the_layout_reads_it():
    # the layout gives an added kong as its 3 flat tiles (the 4th lies on the sideways one) with meld kind kong
    added = meld("777p", 2, meld=Meld(KONG, 15, source=RIGHT, added=True))
    a = area("left", concealed=H10, melds=[added])
    assert run([a], "mcr") == [] and run([a], "sichuan") == []
    b = area("right", discards=tuple(P("7p")))
    assert "5 copies of 7p" in one(run([a, b], "mcr"), "too_many_copies").message


@pytest.mark.parametrize("profile, severity", [("wmo2006", "warning"), ("default", "warning"),
                                               ("mcr1998", "warning"), ("competition", "violation")])
def test_under_8_for_want_of_an_unchecked_wait_is_no_sure_penalty(profile, severity):
    """单钓将 makes this discard win 8 points; with the winning tile not set apart the wait is not counted (7). Only
    the competition rules take the wait away for that (行牌 16); under the others the 错和 penalty would rest on a
    wait no one checked: a warning to check which tile won, not a violation."""
    pung = meld("222z", 1)                                         # claimed from across: the middle tile sideways
    hidden = area(concealed="123m345p678s5z", melds=[pung], win="5z", apart=False, declared=True)
    assert one(run([hidden], "mcr", profile), "under_minimum").severity == severity
    shown = area(concealed="123m345p678s5z", melds=[pung], win="5z", apart=True, declared=True)
    assert "under_minimum" not in kinds(run([shown], "mcr", profile))      # 单钓将 counted: 8 points, a win


def test_a_false_win_whose_winning_tile_is_unknown_is_graded_on_its_most_lenient_tile():
    """Declared with no tile set apart: 1z or 2z as the winning tile leaves the rest ready (错和, 10 to each), 1m
    does not (寻常诈和, 20). The grade had followed whichever tile was tried first."""
    p = area(concealed="123m456p789s12z", melds=[meld("555z", 1)], declared=True, apart=False)
    f = one(run([p], "mcr", "competition"), "false_win")
    assert f.case == "wrong_winning_tile"


def test_exposed_while_a_face_down_hand_declares_is_a_warning_to_check():
    """A declared hand that cannot be read (face down) is no failed win: the exposed tiles beside it are a
    warning to check, not the failed win's penalty (it had been taken for a win that fails)."""
    other = area("left", concealed="123m456m789m123p", exposed=tuple(P("9s")))
    hidden = area(concealed_face_down=13, win="5p", declared=True)
    f = one(run([hidden, other], "mcr"), "exposed_tile")
    assert f.severity == "warning" and "could not be read" in f.message


def test_a_declarer_barred_by_its_own_wrong_chow_has_no_win_that_stands():
    """错吃 bars the player from winning this hand (3.11.6 2): the exposed tiles of another player beside its
    declaration are judged as beside a win that fails, not one that stands (a warning)."""
    wrong = meld("123m", 1)                                     # a chow's tile taken from across
    declarer = area(concealed="456m789m123p5p", melds=[wrong], win="5p", declared=True)
    other = area("left", concealed="123m456m789m123p", exposed=tuple(P("9s")))
    fs = run([declarer, other], "mcr")
    assert "chow_not_from_left" in [f.case for f in fs]
    f = one(fs, "exposed_tile")
    assert f.case == "exposed_on_false_win" and "fails" in f.message


@pytest.mark.parametrize("hand, win, how", [("123m456p78s12z", "3z", "not ready"),
                                             ("123m456p789s1z", "2z", "ready, but not on this tile")])
def test_a_self_drawn_declaration_that_is_no_win_is_graded_as_the_2006_text_does(hand, win, how):
    """3.11.6 6 grades 错和 and 诈和 on another's discard (他人打出的牌, 在他人打出牌时宣布和牌者): under the WMO
    profiles a self-drawn one gets the referee's warning (3.11.1), not a penalty the text does not give it; the
    competition rules (和牌 5, 自己抓到的牌) keep theirs."""
    p = area(concealed=hand, melds=[meld("555z", 1)], win=win, declared=True)
    f = one(run([p], "mcr", self_drawn=True), "false_win")
    assert f.case == "false_win_self_drawn" and f.severity == "warning" and how in f.message
    assert one(run([p], "mcr", "competition", self_drawn=True), "false_win").severity == "violation"
    assert one(run([p], "mcr"), "false_win").case in ("false_win", "wrong_winning_tile", "false_win_deliberate")


def test_a_sichuan_win_declared_with_a_wrong_count_is_a_count_case_the_photo_gate_checks():
    """A missed tile gives exactly this finding: under Sichuan it was the case "false_win", which the trust gate
    does not know as a count (a 24-point penalty reached the user from a trusted photo)."""
    from mjtable.vision.trust import COUNT_CASES
    p = area(concealed="23m456m789m234p5p", win="5p", declared=True)
    f = one(run([p], "sichuan", void_suit=T.SOU), "false_win")
    assert f.case == "false_win_miscount" and f.case in COUNT_CASES
