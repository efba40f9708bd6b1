"""Sichuan SBR 2025 deal settlement (血战到底, 刮风下雨, 查花猪/查大叫) and the 2v2 IMP table."""
import pytest
from hypothesis import given, settings, strategies as st

from mjtable.scoring import tiles as T
from mjtable.scoring.notation import parse_meld, parse_tiles
from mjtable.scoring.notation import parse_hand
from mjtable.scoring.settlement import (ACTIVE_PIG_PENALTY, FALSE_WIN_PENALTY, NOT_TENPAI, PIG_ACTIVE, PIG_PASSIVE,
                                TENPAI, Barred, Deal, EndHand, FalseWin, Kong, SettlementError, Win, imp, settle,
                                win_from_hands)


def test_discard_win_and_self_draw():
    s = settle(Deal([Win((1,), (2,), discarder=0)]))
    assert s.transfers == [-4, 4, 0, 0]
    s = settle(Deal([Win((1,), (1,))]))                       # self-draw: base 2 + 1 from each of three
    assert s.transfers == [-3, 9, -3, -3]


def test_cap_at_three_fans():
    assert settle(Deal([Win((2,), (5,), discarder=3)])).transfers == [0, 0, 8, -8]


def test_blood_battle_winners_stop_paying():
    # seat 1 wins first; seat 2's later self-draw is paid only by seats 0 and 3
    s = settle(Deal([Win((1,), (0,), discarder=0), Win((2,), (0,))]))
    assert s.transfers == [-1 - 2, 1, 4, -2]


def test_multiple_winners_on_one_discard():
    s = settle(Deal([Win((1, 2, 3), (0, 1, 3), discarder=0)]))
    assert s.transfers == [-(1 + 2 + 8), 1, 2, 8]
    with pytest.raises(SettlementError, match="more than three winners"):
        settle(Deal([Win((1, 2), (0, 0), discarder=0), Win((3,), (0,), discarder=0), Win((0,), (0,))]))


def test_kong_payments():
    assert settle(Deal([Kong(0, "melded", discarder=2)])).transfers == [2, 0, -2, 0]   # 刮风
    assert settle(Deal([Kong(0, "concealed")])).transfers == [6, -2, -2, -2]          # 下雨 暗杠
    assert settle(Deal([Kong(0, "added")])).transfers == [3, -1, -1, -1]              # 及时雨 (text example)
    assert settle(Deal([Kong(0, "added", drawn=False)])).transfers == [0, 0, 0, 0]    # not with the drawn tile
    s = settle(Deal([Win((3,), (0,), discarder=1), Kong(0, "concealed")]))            # winner 3 no longer pays
    assert s.transfers == [4, -1 - 2, -2, 1]


def test_kong_discard_refund():
    # seat 0 konged (concealed, +6), then discarded into seat 2's 杠上炮 (1 fan incl. 杠上炮 -> base 2)
    s = settle(Deal([Kong(0, "concealed"), Win((2,), (1,), discarder=0, kong_discard=True)]))
    assert s.transfers == [-2, 0, 2, 0]
    assert [i.kind for i in s.ledger].count("kong_refund") == 3
    with pytest.raises(SettlementError, match="made no kong"):
        settle(Deal([Win((2,), (1,), discarder=0, kong_discard=True)]))


def M(*xs):
    return tuple(parse_meld(x) for x in xs)


TENPAI_HAND = EndHand(tuple(parse_tiles("333p44p55p")), M("[111m<]", "[222m^]"), void_suit=T.SOU)  # 大对子 1 fan
NOTEN = EndHand(tuple(parse_tiles("1357m2468p11m99p5p")), (), void_suit=T.SOU, discards=tuple(parse_tiles("1s")))
PASSIVE_PIG = EndHand(tuple(parse_tiles("1357m2468p1m99p5p1s")), (), void_suit=T.SOU, discards=tuple(parse_tiles("9s")))
ACTIVE_PIG = EndHand(tuple(parse_tiles("1357m2468p1m99p5p1s")), (), void_suit=T.SOU,
                     discards=tuple(parse_tiles("9s9m")))


def test_draw_cha_da_jiao_and_refunds():
    deal = Deal([Kong(1, "concealed"), Win((3,), (0,), discarder=2)],
                draw={0: TENPAI_HAND, 1: NOTEN, 2: NOTEN})
    s = settle(deal)
    assert s.statuses == {0: TENPAI, 1: NOT_TENPAI, 2: NOT_TENPAI}
    # kong of seat 1 (2 from 0, 2, 3) refunded; seats 1 and 2 each pay seat 0 base 2 (大对子)
    assert s.transfers == [0 - 0 + 2 + 2, 0 - 2, -1 - 2, 1]
    assert sum(s.transfers) == 0 and s.penalties == [0, 0, 0, 0]


def test_draw_pigs():
    s = settle(Deal([], draw={0: TENPAI_HAND, 1: PASSIVE_PIG, 2: ACTIVE_PIG, 3: NOTEN}))
    assert s.statuses == {0: TENPAI, 1: PIG_PASSIVE, 2: PIG_ACTIVE, 3: NOT_TENPAI}
    assert s.transfers == [6, -2, -2, -2]                        # all three pay 查大叫
    assert s.penalties == [0, 0, -ACTIVE_PIG_PENALTY, 0]         # only the active pig is deducted 24
    assert s.net[2] == -26


def test_a_pung_of_the_void_suit_is_an_active_pig_at_the_draw():
    """第六条三: 碰、杠定缺花色的牌 is 主动花猪, though every discard was of the void suit (it had been read as a
    passive 花猪 from the discards alone, with no deduction)."""
    pung = EndHand(tuple(parse_tiles("123m456m78m11p")), M("[555s^]"), void_suit=T.SOU,
                   discards=tuple(parse_tiles("9s")))
    s = settle(Deal([], draw={0: pung, 1: TENPAI_HAND, 2: NOTEN, 3: NOTEN}))
    assert s.statuses[0] == PIG_ACTIVE and s.penalties[0] == -ACTIVE_PIG_PENALTY


def test_draw_all_same_status_nothing_happens():
    assert settle(Deal([], draw={0: NOTEN, 1: NOTEN, 2: NOTEN, 3: NOTEN})).transfers == [0, 0, 0, 0]


@pytest.mark.parametrize("deal, msg", [
    (Deal([Win((1,), (0,)), Win((1,), (0,))]), "already won"),
    (Deal([Win((1,), (0,), discarder=1)]), "not a player still in"),
    (Deal([Kong(5, "concealed")]), "not a seat"),
    (Deal([Kong(0, "twisted")]), "kong kind"),
    (Deal([Win((1, 2), (0,), discarder=0)]), "one fan count per winner"),
    (Deal([Win((1,), (0,))], draw={0: NOTEN, 2: NOTEN}), "players still in"),
    (Deal(["nonsense"]), "unknown event"),
    (Deal([Kong(0, "concealed"), Win((1,), (1,), discarder=0, kong_discard=True),
           Win((2,), (1,), discarder=0, kong_discard=True)]), "made no kong"),     # one kong, refunded once
    (Deal([], draw={p: EndHand(tuple(parse_tiles("123m"))) for p in range(4)}), "13 suited tiles"),
])
def test_bad_deals(deal, msg):
    with pytest.raises(SettlementError, match=msg):
        settle(deal)


# ---------------------------------------------------------------------------------- property: zero sum

@st.composite
def deals(draw):
    """Random legal deals: kongs, wins (single, self-drawn, several on one discard), false wins, barred players."""
    events, out, barred, n_winners = [], [], set(), 0
    kongs = [0] * 4                 # kongs each seat made whose points a 杠上炮 has not yet refunded
    for _ in range(draw(st.integers(0, 10))):
        live = [p for p in range(4) if p not in out]
        if len(live) < 2:
            break
        what = draw(st.sampled_from(["kong", "kong", "win", "win", "referee"]))
        if what == "kong":
            s = draw(st.sampled_from(live))
            k = draw(st.sampled_from(["melded", "added", "concealed"]))
            d = draw(st.sampled_from([p for p in live if p != s])) if k == "melded" else None
            events.append(Kong(s, k, discarder=d, drawn=draw(st.booleans())))
            kongs[s] += 1
        elif what == "referee":
            s = draw(st.sampled_from(live))
            if draw(st.booleans()):
                events.append(FalseWin(s))
                out.append(s)
            else:
                events.append(Barred(s))
            barred.add(s)
        elif n_winners < 3:
            can_win = [p for p in live if p not in barred]
            if not can_win:
                continue
            if draw(st.booleans()):
                w = draw(st.sampled_from(can_win))
                events.append(Win((w,), (draw(st.integers(0, 6)),)))
                ws = (w,)
            else:
                d = draw(st.sampled_from(live))
                cands = [p for p in can_win if p != d]
                if not cands:
                    continue
                k = draw(st.integers(1, min(len(cands), 3 - n_winners)))
                ws = tuple(draw(st.permutations(cands))[:k])
                kong_discard = kongs[d] > 0 and draw(st.booleans())
                kongs[d] -= kong_discard        # each kong is refunded once: a second 杠上炮 needs a second kong
                events.append(Win(ws, tuple(draw(st.integers(0, 6)) for _ in ws), discarder=d,
                                  kong_discard=kong_discard))
            out.extend(ws)
            n_winners += len(ws)
    live = [p for p in range(4) if p not in out]
    hands = [TENPAI_HAND, NOTEN, PASSIVE_PIG, ACTIVE_PIG]
    dr = None
    if len(live) >= 2 and draw(st.booleans()):
        dr = {p: draw(st.sampled_from(hands)) for p in live}
    return Deal(events, dr)


@settings(max_examples=150, deadline=None)
@given(deals())
def test_transfers_always_sum_to_zero(deal):
    s = settle(deal)
    assert sum(s.transfers) == 0
    assert sum(i.amount if i.payee is not None else 0 for i in s.ledger) >= 0
    assert all(p <= 0 for p in s.penalties)
    # the ledger reproduces the transfers
    recon = [0] * 4
    for i in s.ledger:
        if i.payee is not None:
            recon[i.payer] -= i.amount
            recon[i.payee] += i.amount
    assert recon == s.transfers


def test_false_win_and_barred():
    # seat 1 konged (+6) then declared a false win: 24 deducted, kong returned, out of the deal
    s = settle(Deal([Kong(1, "concealed"), FalseWin(1), Win((2,), (0,))]))
    assert s.penalties == [0, -FALSE_WIN_PENALTY, 0, 0]
    assert s.transfers == [-2, 0, 4, -2]                 # seat 1 no longer pays the later self-draw
    # a barred player (停和陪打) keeps playing but returns every kong, even a later one, and cannot win
    s = settle(Deal([Barred(0), Kong(0, "melded", discarder=3)]))
    assert s.transfers == [0, 0, 0, 0] and s.penalties == [0, 0, 0, 0]
    with pytest.raises(SettlementError, match="barred"):
        settle(Deal([Barred(0), Win((0,), (1,))]))
    # at a draw a barred tenpai player neither collects nor pays 查大叫
    s = settle(Deal([Barred(0)], draw={0: TENPAI_HAND, 1: NOTEN, 2: NOTEN, 3: TENPAI_HAND}))
    assert s.transfers == [0, -2, -2, 4]


def test_win_from_hands():
    w = win_from_hands({1: parse_hand("1122335577889s +9s"), 2: parse_hand("345m1111p23p9p [333m<] +9p")}, discarder=0)
    assert w.fans == (4, 2)
    assert settle(Deal([w])).transfers == [-12, 8, 4, 0]
    with pytest.raises(SettlementError, match="not a winning hand"):
        win_from_hands({1: parse_hand("123m456m789m234p5p +6p")})


def test_imp_table():
    pairs = {0: 0, 1: 1, 2: 1, 3: 2, 5: 2, 6: 3, 8: 3, 9: 4, 11: 4, 12: 5, 15: 5, 16: 6, 19: 6,
             20: 7, 25: 7, 26: 8, 31: 8, 32: 9, 39: 9, 40: 10, 200: 10, -7: 0}
    assert {d: imp(d) for d in pairs} == pairs


def test_a_whole_deal_by_hand():
    """Kongs, a 杠上炮 一炮多响, then a draw; every step worked out by hand from 第十条."""
    deal = Deal([
        Kong(1, "concealed"),                                  # 1: +6, others -2          [-2, 6, -2, -2]
        Kong(0, "melded", discarder=2),                        # 0: +2 from 2              [0, 6, -4, -2]
        Win((2, 3), (1, 3), discarder=0, kong_discard=True),   # 0 pays 2 + 8, refunds 2   [-12, 6, 0, 6]
    ], draw={0: TENPAI_HAND, 1: NOTEN})
    s = settle(deal)
    # draw: 1 is not tenpai -> returns his kong (2 to each of 0, 2, 3) and pays 0 the 大对子 base 2
    assert s.transfers == [-12 + 2 + 2, 6 - 6 - 2, 0 + 2, 6 + 2]
    assert s.statuses == {0: TENPAI, 1: NOT_TENPAI}
    assert [i.kind for i in s.ledger] == (["kong"] * 4 + ["win"] * 2 + ["kong_refund"]
                                          + ["kong_refund"] * 3 + ["cha_da_jiao"])


def test_kong_refund_clause_by_cause_10_1_4():
    """The 杠上炮 refund is 第十条一（四） (如果开杠者开杠后杠上炮，则其这个杠所获取的分数需要退回), not
    第十一条四（五） (停和陪打); a barred player's refund cites 第十一条四（五）, a non-ready kong at a draw
    第十条一（三）."""
    from mjtable.scoring.settle_io import clause_of
    s = settle(Deal([Kong(0, "concealed"), Win((2,), (1,), discarder=0, kong_discard=True)]))
    refunds = [clause_of(it) for it in s.ledger if it.kind == "kong_refund"]
    assert refunds and all(c == "sichuan-sbr-2025.txt 第十条一（四）" for c in refunds)
    s = settle(Deal([Kong(0, "concealed"), Barred(0)]))
    assert {clause_of(it) for it in s.ledger if it.kind == "kong_refund"} == {
        "sichuan-sbr-2025.txt 第十一条四（五）; 第十二条十一（一）"}
