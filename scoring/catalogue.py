"""The audit catalogue: each case a referee may find, with its rule set's clause and quoted penalty.

    rule = rule_for("mcr-competition", "chow_not_from_left")    # Rule: kind, clause, the quoted penalty, severity

Rule sets: "mcr" (the WMO 2006 text), "mcr-competition" (the competition variant; falls back to "mcr"), "sichuan".
Every quote is verbatim from the rule texts in shared/rules (tests/test_audit.py checks each piece of it); ``note``
is the project's own remark, shown in brackets. ``mjtable.scoring.audit`` finds the cases.
"""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Rule:
    kind: str  # Finding.kind
    clause: str  # file + clause as written in the text
    penalty_cn: str  # the text's penalty, quoted (shortened)
    penalty_en: str  # short English gloss
    severity: str = "violation"
    note: str = ""  # the project's own remark on the quote (not the text's words), shown in brackets

    @property
    def penalty(self) -> str:
        note = f"（{self.note}）" if self.note else ""
        return f"{self.penalty_cn}{note} — {self.penalty_en}"


W, C, S = "mcr-wmo-2006.txt", "competition-variant.txt", "sichuan-sbr-2025.txt"
_NOT_SIDEWAYS_MCR = Rule(
    "illegal_meld",
    f"{W} 3.6.5; 3.11.1",
    "有违例、犯规或干扰竞赛的言行,由裁判员当场给予警告",
    "no specific penalty; a warning (3.11.1)",
    "warning",
    note="3.6.5 摆牌未定专门罚则",
)
_NOT_SIDEWAYS_COMP = Rule(
    "illegal_meld",
    f"{C} 行牌 7",
    "如果由于未按规定摆放而造成其他家误和，则由乱放牌者负全责…凡吃、碰、杠上家的那张牌，要横放在该副牌左边",
    "placement rule (the claimed tile turned by its source seat); the text's one sanction, given after the "
    "discards' placement and before the melds', makes a misplacer who caused another's false win pay for it all",
    "warning",
)
_NOT_SIDEWAYS_SC = Rule(
    "illegal_meld",
    f"{S} 第七条四、五（二）; 第十二条十二",
    "所碰的牌张应根据打出该牌的选手位置横置；未列举的行为，裁判长…参照类似的规定酌情判罚",
    "claimed tile turned by source seat; no specific penalty, at the chief referee's discretion",
    "warning",
)
_WRONG_MELD_COMP = Rule(
    "illegal_meld",
    f"{C} 行牌 13",
    "错吃、错碰、错杠者，罚以本盘停和陪打，由此导致其他家和牌，则包付三家应付的分",
    "barred from winning this hand; pays for all three if it causes another's win",
)
_WRONG_MELD_SC = Rule(
    "illegal_meld",
    f"{S} 第十二条八（四）",
    "错碰/错杠…在完成碰/杠动作后，自己打牌/摸牌后…按第四类判罚尺度判罚，并加罚其本副牌停和陪打",
    "wrong pung/kong left standing: warning (category 4) and barred from winning this deal",
)

# (rule set, case) -> Rule. Rule sets: "mcr" (WMO 2006), "mcr-competition" (falls back to "mcr"), "sichuan".
CATALOGUE: dict[tuple[str, str], Rule] = {
    # --- MCR, WMO 2006 text
    ("mcr", "exposed_tile"): Rule(
        "exposed_tile",
        f"{W} 3.11.6 7(1); referee-rulings.txt 7, 8",
        "手中立牌暴露于桌面的牌张须作为罚张,应在轮到自己出牌时,将罚张打出",
        "exposed tiles become penalty tiles, discarded on the player's next turns",
    ),
    ("mcr", "exposed_on_valid_win"): Rule(
        "exposed_tile",
        f"{W} 3.11.6 7(2); referee-rulings.txt 13",
        "在他人报和牌时,将自己手中立牌推倒亮明者,如报和牌成立,给予警告",
        "hand laid down while another declared a win that stands: a warning",
        "warning",
    ),
    ("mcr", "exposed_on_false_win"): Rule(
        "exposed_tile",
        f"{W} 3.11.6 7(2); referee-rulings.txt 13",
        "如和牌不成立,则须将所暴露的牌张依次打出,并判该盘停和陪打",
        "the declared win fails: exposed tiles are discarded one by one, barred from winning this hand",
    ),
    ("mcr", "wrong_tile_count"): Rule(
        "wrong_tile_count",
        f"{W} 3.4.29; 3.11.6 8",
        "如果手牌多于或少于规定张数,该盘停和陪打",
        "too many/few tiles: barred from winning this hand",
    ),
    ("mcr", "too_many_copies"): Rule(
        "too_many_copies",
        f"{W} 3.5.5 1(1)-(4); 3.11.6 1",
        "万子牌:从一万至九万,各4张…花牌:春、夏、秋、冬、梅、兰、竹、菊,各一张；换牌、偷牌、藏牌或其它作弊行为:裁判员有权处以此类行为停赛的处罚",
        "a set has 4 of each tile, 1 of each flower; check for a misreading first, cheating means suspension",
        "warning",
    ),
    ("mcr", "chow_not_from_left"): Rule(
        "illegal_meld",
        f"{W} 3.4.17, 3.6.6; 3.11.6 2",
        "吃牌:上家打出牌后,报吃牌者把自己的两张牌取出加在一起组成一副顺子；错吃、错碰、错杠、错补花:判该盘停和陪打",
        "chow only from the player on the left; wrong chow: barred from winning this hand",
    ),
    ("mcr", "not_a_set"): Rule(
        "illegal_meld",
        f"{W} 3.11.6 2",
        "错吃、错碰、错杠、错补花:判该盘停和陪打",
        "meld is not a chow/pung/kong: barred from winning this hand",
    ),
    ("mcr", "wrong_chow_pair"): Rule(
        "illegal_meld",
        f"{W} 3.11.6 2; referee-rulings.txt 8",
        "错吃、错碰、错杠、错补花:判该盘停和陪打",
        "a chow of the wrong tiles: barred from winning this hand",
    ),
    ("mcr", "wrong_side"): _NOT_SIDEWAYS_MCR,
    ("mcr", "not_sideways"): _NOT_SIDEWAYS_MCR,
    ("mcr", "concealed_kong_shown"): Rule(
        "illegal_meld",
        f"{W} 3.6.8 2; 3.11.1",
        "暗杠…并扣放在立牌前",
        "a concealed kong lies face down during play; no specific penalty, a warning",
        "warning",
        note="未定专门罚则，3.11.1 警告",
    ),
    ("mcr", "concealed_kong_hidden"): Rule(
        "illegal_meld",
        f"{W} 3.6.8 2",
        "暗杠…但在和牌或荒牌后必须亮明,以便其它三家核查",
        "after the win the concealed kong must be turned up for checking",
        "warning",
    ),
    ("mcr", "under_minimum"): Rule(
        "under_minimum",
        f"{W} 3.11.6 6(1)",
        "错和:和牌没有达到起和8分…而宣布和牌者,判该盘停和陪打,并向各家罚付10分",
        "win under 8 points: barred from winning this hand and pays 10 to each player",
    ),
    ("mcr", "wrong_winning_tile"): Rule(
        "false_win",
        f"{W} 3.11.6 6(1)",
        "错和:…或误以为他人打出的牌是自己的和牌,而宣布和牌者,判该盘停和陪打,并向各家罚付10分",
        "tenpai but not on this tile: barred from winning this hand and pays 10 to each player",
    ),
    ("mcr", "false_win"): Rule(
        "false_win",
        f"{W} 3.11.6 6(2)",
        "诈和:尚差一张(或以上)才能听牌,却误以为已经听牌,在他人打出牌时宣布和牌者、判该盘停和陪打,并向各家罚付20分",
        "not even tenpai: barred from winning this hand and pays 20 to each player",
    ),
    ("mcr", "false_win_deliberate"): Rule(
        "false_win",
        f"{W} 3.11.6 6(2)",
        "诈和:尚差一张(或以上)才能听牌,却误以为已经听牌,在他人打出牌时宣布和牌者、判该盘停和陪打,并向各家罚付20分",
        "not even tenpai: barred from winning this hand and pays 20 to each player",
    ),
    ("mcr", "false_win_self_drawn"): Rule(
        "false_win",
        f"{W} 3.11.6 6; 3.11.1",
        "误以为他人打出的牌是自己的和牌…在他人打出牌时宣布和牌者；有违例、犯规或干扰竞赛的言行,由裁判员当场给予警告",
        "the 2006 text grades 错和 and 诈和 on another's discard only: a self-drawn declaration that is no win gets "
        "the referee's warning (3.11.1), and the referee rules how the hand plays on",
        "warning",
    ),
    ("mcr", "false_win_miscount"): Rule(
        "false_win",
        f"{W} 3.11.6 6(2), 8",
        "诈和…判该盘停和陪打,并向各家罚付20分",
        "win declared with a wrong tile count: barred from winning, pays 20 to each player",
        note="手牌张数不符",
    ),
    ("mcr", "winning_tile_not_apart"): Rule(
        "winning_tile_not_apart",
        f"{W} 3.4.28",
        "单放:自摸成“和”的那一张牌,不可随意放入立牌中,应单独摆放,以便核查",
        "the self-drawn winning tile must lie apart for checking; no penalty stated",
        "warning",
        note="未定罚则",
    ),
    ("mcr", "winning_tile_not_apart_discard"): Rule(
        "winning_tile_not_apart",
        f"{W} 3.7.1",
        "和牌者必须先报和牌、并将手牌整理后亮明,报出自己和牌的番种、分数,再经其他三家公认、裁判审定",
        "a discard win: the hand is laid open for the others and the referee to check; the 2006 text sets only "
        "the self-drawn tile apart (3.4.28), no penalty stated",
        "warning",
        note="3.4.28 单放只及自摸之牌，未定罚则",
    ),
    # --- MCR, competition variant (overrides)
    ("mcr-competition", "exposed_tile"): Rule(
        "exposed_tile",
        f"{C} 行牌 21",
        "行牌过程中，将手牌暴露于桌面，暴露张须依次打出",
        "exposed tiles must be discarded in turn",
    ),
    ("mcr-competition", "exposed_on_valid_win"): Rule(
        "exposed_tile",
        f"{C} 和牌 4",
        "未和牌三家在此之前不得将手牌亮明，否则违规。若和牌成立，则警告一次",
        "hand shown before the win was confirmed, the win stands: one warning",
        "warning",
    ),
    ("mcr-competition", "exposed_on_false_win"): Rule(
        "exposed_tile",
        f"{C} 和牌 4",
        "和牌不成立，所暴露张须依次打出后方准和牌",
        "the win fails: the exposed tiles must all be discarded before this player may win",
    ),
    ("mcr-competition", "wrong_tile_count"): Rule(
        "wrong_tile_count",
        f"{C} 行牌 20",
        "相公与停和者，除无权和牌外，其它权利不变",
        "a miscounted hand may not win; otherwise plays on",
    ),
    ("mcr-competition", "too_many_copies"): Rule(
        "too_many_copies",
        f"{C} 行牌 23",
        "对牌张偷、换、藏等作弊者，给予停赛处罚",
        "check for a misreading first; stealing/swapping/hiding tiles means suspension",
        "warning",
    ),
    ("mcr-competition", "chow_not_from_left"): replace(_WRONG_MELD_COMP, clause=f"{W} 3.4.17; {C} 行牌 13"),
    ("mcr-competition", "not_a_set"): _WRONG_MELD_COMP,
    ("mcr-competition", "wrong_chow_pair"): replace(_WRONG_MELD_COMP, clause=f"{C} 行牌 13; referee-rulings.txt 8"),
    ("mcr-competition", "wrong_side"): _NOT_SIDEWAYS_COMP,
    ("mcr-competition", "not_sideways"): _NOT_SIDEWAYS_COMP,
    ("mcr-competition", "concealed_kong_hidden"): Rule(
        "illegal_meld",
        f"{C} 行牌 22",
        "和牌或荒牌…时必须核实暗杠，诈杠按寻常诈和处罚",
        "the concealed kong must be checked; a fake kong is punished as an ordinary false win",
        "warning",
    ),
    ("mcr-competition", "under_minimum"): Rule(
        "under_minimum",
        f"{C} 和牌 5(1)",
        "强和 未达到起和分而宣布和牌的，罚付各家10分，本盘停和陪打",
        "under 8 points: pays 10 to each player, barred from winning this hand",
    ),
    ("mcr-competition", "wrong_winning_tile"): Rule(
        "false_win",
        f"{C} 和牌 5(2)",
        "错和 误以为他人打出的牌或自己抓到的牌是自己的和牌而宣布和牌的，处罚与强和同",
        "wrong tile: pays 10 to each player, barred from winning this hand",
    ),
    ("mcr-competition", "false_win"): Rule(
        "false_win",
        f"{C} 和牌 5(3)",
        "寻常诈和 差一张牌才能听牌，却误以为已经听牌而宣布和牌的，罚付各家20分，其它处罚与强和同",
        "one tile from tenpai: pays 20 to each player, barred from winning this hand",
    ),
    ("mcr-competition", "false_win_deliberate"): Rule(
        "false_win",
        f"{C} 和牌 5(4)",
        "有意诈和 差两张以上（含两张）牌才能听牌，却宣布和牌，罚付各家20分，并警告一次",
        "two or more tiles from tenpai: pays 20 to each player, a warning, barred from winning this hand",
    ),
    ("mcr-competition", "false_win_miscount"): Rule(
        "false_win",
        f"{C} 和牌 5(5)",
        "相公与停和者而宣布和牌的，处罚与有意诈和同",
        "miscounted hand declared a win: as a deliberate false win (20 to each, warning, barred)",
    ),
    ("mcr-competition", "winning_tile_not_apart"): Rule(
        "winning_tile_not_apart",
        f"{C} 行牌 16",
        "成和那张牌必须单独摆放，以便核查。如插于手牌内，则不计边、坎、钓、绝张、九莲宝灯",
        "not counted: edge/closed/single wait, last copy, Nine Gates",
    ),
    # --- Sichuan SBR 2025
    ("sichuan", "exposed_tile"): Rule(
        "exposed_tile",
        f"{S} 第十二条六（一）（二）",
        "无意间暴露了自己的手牌（1-13 张）并迅速恢复的，按第四类判罚尺度判罚；"
        "有意展示自己部分或全部手牌给其他选手看的…按第三类判罚尺度判罚",
        "accidental: warning/serious warning (category 4); deliberate: 0.5-1 table points or 1-8 deal points",
    ),
    ("sichuan", "wrong_tile_count"): Rule(
        "wrong_tile_count",
        f"{S} 第四条二十八; 第十二条七（一）",
        "形成了大相公或小相公…判罚该选手本副牌停和陪打",
        "too many/few tiles: barred from winning this deal",
    ),
    ("sichuan", "too_many_copies"): Rule(
        "too_many_copies",
        f"{S} 第二条一; 第十二条二（一）",
        "使用万子、饼子、条子三种花色的数牌，不使用字牌，共计 108 张…各 4 张；换牌、偷牌、藏牌…按第一类判罚尺度判罚",
        "108 tiles, 4 of each; check for a misreading first, cheating is category 1 (loss/suspension)",
        "warning",
    ),
    ("sichuan", "foreign_tile"): Rule(
        "too_many_copies",
        f"{S} 第二条一",
        "四川麻将（SBR）使用万子、饼子、条子三种花色的数牌，不使用字牌，共计 108 张",
        "no honours or flowers in a Sichuan set: check the set or the recognition",
        "warning",
        note="未定罚则",
    ),
    ("sichuan", "chow_in_sichuan"): replace(_WRONG_MELD_SC, clause=f"{S} 第七条一; 第十二条八（四）"),
    ("sichuan", "not_a_set"): _WRONG_MELD_SC,
    ("sichuan", "wrong_side"): _NOT_SIDEWAYS_SC,
    ("sichuan", "not_sideways"): _NOT_SIDEWAYS_SC,
    ("sichuan", "concealed_kong_display"): Rule(
        "illegal_meld",
        f"{S} 第七条五（一）; 第十二条十二",
        "暗杠时，先将 4 张相同的牌一起亮出，再将两侧的两张扣放",
        "concealed kong: middle two face up, outer two face down; no specific penalty",
        "warning",
        note="未列举的行为，酌情判罚",
    ),
    ("sichuan", "void_suit_tiles"): Rule(
        "void_suit_tiles",
        f"{S} 第六条三; 第十二条十（一）; 第十一条二（二）, 三（五）",
        "主动花猪将被视为严重犯规行为，扣分并停和陪打；选手在本副比赛中主动花猪，按第二类判罚尺度判罚；"
        "第二类判罚尺度：扣盘分 2 分，或扣当盘副分 24 分；扣当盘副分 24 分：适用于主动花猪、诈和、顺和",
        "active 花猪: 24 deal points deducted (the form 第十一条三（五） names), barred from winning this deal",
    ),
    ("sichuan", "void_suit_drawn"): Rule(
        "void_suit_tiles",
        f"{S} 第七条二; 第六条三",
        "选手摸牌后，应明示出新摸到的牌与原有手牌的区别，不得插入原手牌中，否则新摸到的牌也将被视为手牌…"
        "若手牌（包括新摸到的牌）中含有定缺花色的牌，且该选手已打出过非定缺花色的牌，则视为主动花猪",
        "a void-suit tile just drawn, kept apart, is discarded next: no 花猪; put into the hand, it is an active "
        "花猪 (24 deal points)",
        "warning",
    ),
    ("sichuan", "void_suit_win"): Rule(
        "void_suit_tiles",
        f"{S} 第六条一; 第十二条十一（一）",
        "不允许碰、杠、和这种花色的牌；诈和…按第二类判罚尺度判罚，当副牌该选手所获得的杠分均应退回",
        "no win with void-suit tiles: a false win, 24 deal points deducted, kong points returned",
    ),
    ("sichuan", "three_suits"): Rule(
        "three_suits",
        f"{S} 第九条一（二）; 第十二条十一（二）",
        "在手牌及明牌中有三门花色牌时报和，按诈和判罚，不再额外判罚主动花猪",
        "win with three suits: a false win (24 deal points, kong points returned), no extra 花猪 penalty",
    ),
    ("sichuan", "false_win"): Rule(
        "false_win",
        f"{S} 第四条二十六; 第十二条十一（一）; 第十一条三（五）",
        "诈和…按第二类判罚尺度判罚，当副牌该选手所获得的杠分均应退回；扣当盘副分 24 分：适用于主动花猪、诈和、顺和",
        "false win: 24 deal points deducted (the form 第十一条三（五） names), kong points returned",
    ),
    ("sichuan", "false_win_miscount"): Rule(
        "false_win",
        f"{S} 第四条二十六; 第十二条十一（一）; 第十一条三（五）",
        "诈和…按第二类判罚尺度判罚，当副牌该选手所获得的杠分均应退回；扣当盘副分 24 分：适用于主动花猪、诈和、顺和",
        "win declared with a wrong tile count: a false win, 24 deal points deducted, kong points returned",
    ),
    ("sichuan", "winning_tile_not_apart"): Rule(
        "winning_tile_not_apart",
        f"{S} 第九条一（三）（五）; 第十二条九（三）2",
        "所和牌张…明放于手牌一侧…不得插入手牌；若裁判员判定仍能识别出和牌所对应的牌张，按第三类判罚尺度判罚；若裁判员判定已无法识别出和牌所对应的牌张，则该选手视为诈和",
        "winning tile must lie beside the hand: category 3 if still identifiable, else a false win",
    ),
}


# The competition variant (行牌 16) and SBR (第九条一（三）点炮和, （五）自摸和) set the winning tile apart for
# both ways of winning; the 2006 text only for the self-drawn tile (3.4.28).
for _rs in ("mcr-competition", "sichuan"):
    CATALOGUE[(_rs, "winning_tile_not_apart_discard")] = CATALOGUE[(_rs, "winning_tile_not_apart")]
# A chow of the wrong tiles is one case of the rule text whichever tile was wrong; referee-rulings.txt 8 grades the
# two apart (scoring.rulings).
for _rs in ("mcr", "mcr-competition"):
    CATALOGUE[(_rs, "wrong_chow_tile")] = CATALOGUE[(_rs, "wrong_chow_pair")]


def rule_for(ruleset: str, case: str) -> Rule:
    r = CATALOGUE.get((ruleset, case))
    if r is None and ruleset == "mcr-competition":
        r = CATALOGUE.get(("mcr", case))
    if r is None:
        raise KeyError(f"no catalogue entry for {case!r} under {ruleset!r}")
    return r
