"""Referee audit of a table state (both rule systems): what is wrong on the table, the clause, the penalty.

    from mjtable.scoring.audit import audit
    findings = audit(table, situation, rules="mcr", profile="competition")

Checks (each a small function; the clause and penalty of every case live in the ``CATALOGUE`` table):
exposed tiles (暴露张), wrong tile count (相公/多张少张), more than 4 copies of a tile (or a flower twice),
non-Sichuan tiles on a Sichuan table, illegal melds (not a set, chow not from the left, chow in Sichuan,
claimed tile on the wrong side / not sideways, concealed kong not shown as the rules require),
Sichuan 花猪 and three-suit wins, MCR 错和 (under 8 / wrong tile) and 诈和, winning tile not set apart.

``situation`` describes the player being judged: the ``self`` seat (the photographed player); other declared
winners are scored with the same situation except their own ``winning_tile_apart`` and void suit.
MCR checks import ``mjtable.scoring.mcr`` lazily (score, is_winning_shape, waits).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace

from . import tiles as T
from .engines import RULES, engine, resolve_profile
from .hand import CHOW, KONG, LEFT, PUNG, Hand, Meld, Situation
from .result import Finding, ScoreResult
from .table import MeldOnTable, PlayerArea, TableState, source_of_sideways

SUBJECT_SEAT = "self"


class AuditError(ValueError):
    """Bad audit input (unknown rule system, unusable table state); the message says what."""


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
    "凡吃、碰、杠上家的那张牌，要横放在该副牌左边…如果由于未按规定摆放而造成其他家误和，则由乱放牌者负全责",
    "placement rule; if it causes a false win by another player, the misplacer pays for it all",
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
        "诈和:尚差一张(或以上)才能听牌,却误以为已经听牌…判该盘停和陪打,并向各家罚付20分",
        "not even tenpai: barred from winning this hand and pays 20 to each player",
    ),
    ("mcr", "false_win_deliberate"): Rule(
        "false_win",
        f"{W} 3.11.6 6(2)",
        "诈和:尚差一张(或以上)才能听牌,却误以为已经听牌…判该盘停和陪打,并向各家罚付20分",
        "not even tenpai: barred from winning this hand and pays 20 to each player",
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
        "使用万子、饼子、条子三种花色的数牌…各 4 张…共计 108 张；换牌、偷牌、藏牌…按第一类判罚尺度判罚",
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
        f"{S} 第六条三; 第十二条十（一）; 第十一条二（二）",
        "主动花猪将被视为严重犯规行为，扣分并停和陪打；选手在本副比赛中主动花猪，按第二类判罚尺度判罚；"
        "第二类判罚尺度：扣盘分 2 分，或扣当盘副分 24 分",
        "active 花猪: 24 deal points (or 2 table points) deducted, barred from winning this deal",
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
        f"{S} 第四条二十六; 第十二条十一（一）",
        "诈和…按第二类判罚尺度判罚，当副牌该选手所获得的杠分均应退回",
        "false win: 24 deal points (or 2 table points) deducted, kong points returned",
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


def _finding(rs: str, case: str, seat: str | None, message: str) -> Finding:
    r = rule_for(rs, case)
    return Finding(r.kind, seat, message, r.clause, r.penalty, r.severity, case)


def _ruleset(rules: str, profile: str | None) -> str:
    if rules not in RULES:
        raise AuditError(f"unknown rules {rules!r}: use 'mcr' or 'sichuan'")
    if rules == "sichuan":
        return "sichuan"
    return "mcr-competition" if (profile or "").startswith("competition") else "mcr"


def _codes(tiles) -> str:
    return " ".join(T.code(t) for t in tiles)


# ----------------------------------------------------------------------------------------------- melds


@dataclass(frozen=True)
class ReadMeld:
    meld: Meld | None  # None if the tiles cannot be read (face down) or are not a set
    problem: str | None = None  # "not_a_set" ...
    pos_source: str | None = None  # source implied by the sideways position


def read_meld(mt: MeldOnTable) -> ReadMeld:
    """Interpret a meld as it lies: set kind from the visible tiles, source from the sideways tile."""
    n = len(mt.tiles)
    pos_source = None
    if mt.sideways is not None and n in (3, 4) and 0 <= mt.sideways < n:
        pos_source = source_of_sideways(mt.sideways, n)
    known = sorted(t for t in mt.tiles if t is not None)
    if n not in (3, 4) or any(not 0 <= t < T.N_KINDS for t in known):
        return ReadMeld(None, "not_a_set", pos_source)
    if mt.meld is not None:
        if Counter(known) - Counter(mt.meld.tiles):
            return ReadMeld(None, "not_a_set", pos_source)
        return ReadMeld(mt.meld, None, pos_source)
    if not known:
        return ReadMeld(None, None, pos_source)  # all face down: a concealed kong, tile unknown
    if len(set(known)) == 1:
        kind = KONG if n == 4 else PUNG
        concealed = kind == KONG and mt.sideways is None
        return ReadMeld(
            Meld(kind, known[0], concealed=concealed, source=None if concealed else pos_source), None, pos_source
        )
    if (
        n == 3
        and len(known) == 3
        and T.is_suited(known[0])
        and T.suit(known[0]) == T.suit(known[2])
        and known[1] == known[0] + 1
        and known[2] == known[0] + 2
    ):
        return ReadMeld(Meld(CHOW, known[0], source=pos_source), None, pos_source)
    impossible = (
        len(known) == n
        or (n == 4 and len(set(known)) > 1)
        or (n == 3 and (not T.is_suited(known[0]) or T.suit(known[0]) != T.suit(known[-1]) or known[-1] - known[0] > 2))
    )
    return ReadMeld(None, "not_a_set" if impossible else None, pos_source)


WRONG_CHOW_WHAT = {
    "wrong_chow_pair": ": the two tiles from the hand cannot make a chow with the claimed tile",
    "wrong_chow_tile": ": the two tiles from the hand wait on another tile than the claimed one",
}


def wrong_chow_case(mt: MeldOnTable) -> str:
    """A claimed meld of three different tiles of one suit that is no chow is a chow of the wrong tiles
    (referee-rulings.txt 8): ``wrong_chow_pair`` when the two tiles from the hand cannot make a chow at all (its
    second paragraph), ``wrong_chow_tile`` when they wait on another tile than the one taken (its third);
    any other meld that is no set stays ``not_a_set``."""
    ts = mt.tiles
    if (
        len(ts) != 3
        or mt.sideways is None
        or any(t is None or not T.is_suited(t) for t in ts)
        or len({T.suit(t) for t in ts}) != 1
        or len(set(ts)) != 3
    ):
        return "not_a_set"
    a, b = sorted(t for i, t in enumerate(ts) if i != mt.sideways)
    return "wrong_chow_tile" if b - a in (1, 2) else "wrong_chow_pair"


def _check_melds(p: PlayerArea, rs: str, win_declared_at_table: bool) -> list[Finding]:
    out = []
    for i, mt in enumerate(p.melds):
        rm = read_meld(mt)
        label = f"meld {i + 1} [{' '.join('back' if t is None else T.code(t) for t in mt.tiles)}]"
        if rm.problem:
            case = wrong_chow_case(mt) if rs != "sichuan" and rm.problem == "not_a_set" else rm.problem
            out.append(
                _finding(
                    rs,
                    case,
                    p.seat,
                    f"{label} is not a chow, pung or kong (错吃/错碰/错杠)" + WRONG_CHOW_WHAT.get(case, ""),
                )
            )
            continue
        m = rm.meld
        is_conc_kong = len(mt.tiles) == 4 and mt.sideways is None and (m is None or m.concealed)
        if is_conc_kong:
            out += _check_concealed_kong(p, rs, mt, label, win_declared_at_table)
            continue
        if m is None:
            continue
        if rs == "sichuan" and m.kind == CHOW:
            out.append(_finding(rs, "chow_in_sichuan", p.seat, f"{label}: a chow; SBR has no chow (不能吃牌)"))
            continue
        if mt.sideways is None:
            out.append(
                _finding(
                    rs,
                    "not_sideways",
                    p.seat,
                    f"{label}: claimed {m.kind} with no tile turned sideways to show its source",
                )
            )
            continue
        source = m.source or rm.pos_source
        if m.source and rm.pos_source and m.source != rm.pos_source:
            out.append(
                _finding(
                    rs,
                    "wrong_side",
                    p.seat,
                    f"{label}: claimed from the {m.source} player but the sideways tile is at "
                    f"position {mt.sideways + 1}, which means {rm.pos_source}",
                )
            )
        if rs != "sichuan" and m.kind == CHOW and source != LEFT:
            out.append(
                _finding(
                    rs,
                    "chow_not_from_left",
                    p.seat,
                    f"{label}: chow claimed from the {source} player; a chow is claimed only from "
                    "the left player (上家)",
                )
            )
    return out


def _check_concealed_kong(p: PlayerArea, rs: str, mt: MeldOnTable, label: str, win_declared: bool) -> list[Finding]:
    down = [t is None for t in mt.tiles]
    if rs == "sichuan":
        if down != [True, False, False, True]:
            return [
                _finding(
                    rs,
                    "concealed_kong_display",
                    p.seat,
                    f"{label}: concealed kong should show the middle two tiles with the outer two face down",
                )
            ]
        return []
    if declared(p) and all(down):
        return [
            _finding(
                rs,
                "concealed_kong_hidden",
                p.seat,
                f"{label}: concealed kong still face down after the win; turn it up for checking",
            )
        ]
    if not win_declared and not all(down):
        return [
            _finding(
                rs,
                "concealed_kong_shown",
                p.seat,
                f"{label}: concealed kong shows its faces during play; it lies face down (扣放)",
            )
        ]
    return []


# ----------------------------------------------------------------------------------------------- counts


def _check_copies(table: TableState, rs: str) -> list[Finding]:
    seen: Counter = Counter()
    for p in table.players:
        seen.update(p.concealed or ())
        for mt in p.melds:
            seen.update(t for t in mt.tiles if t is not None)
            if mt.meld is not None and mt.meld.kind == KONG and len(mt.tiles) == 3:
                seen[mt.meld.tile] += 1  # added kong: the 4th tile lies on top of the sideways one
        if p.winning_tile is not None:
            seen[p.winning_tile] += 1
        seen.update(p.flowers)
        seen.update(p.discards)
        seen.update(p.exposed)
    seen.pop(T.BACK, None)  # a face-down tile says nothing about copies
    out = []
    for t in sorted(seen):
        limit = 1 if T.is_flower(t) else 4
        if seen[t] > limit:
            out.append(
                _finding(
                    rs,
                    "too_many_copies",
                    None,
                    f"{seen[t]} copies of {T.code(t)} ({T.chinese(t)}) face up on the table; "
                    f"a set has {limit}: a misreading or a tile that should not be there",
                )
            )
    if rs == "sichuan":
        foreign = sorted(t for t in seen if not T.is_suited(t))
        if foreign:
            out.append(_finding(rs, "foreign_tile", None, "tiles that are not in a Sichuan set: " + _codes(foreign)))
    return out


def hand_size(p: PlayerArea) -> int | None:
    """Tiles in the hand with kongs counted as 3 (13, or 14 with a drawn/winning tile); None if unseen.
    Exposed tiles (暴露张) are hand tiles lying face up, so they count."""
    if p.concealed is None and p.concealed_face_down == 0:
        return None
    return (
        len(p.concealed or ())
        + p.concealed_face_down
        + len(p.exposed)
        + 3 * len(p.melds)
        + (1 if p.winning_tile is not None else 0)
    )


def _check_count(p: PlayerArea, rs: str) -> list[Finding]:
    n = hand_size(p)
    if n is None:
        return []
    ok = (14,) if declared(p) else (13, 14)
    if n in ok:
        return []
    what = "a declared win has 14 (kongs as 3)" if declared(p) else "a hand has 13, or 14 after drawing"
    return [
        _finding(
            rs,
            "wrong_tile_count",
            p.seat,
            f"{n} tiles in hand and melds (kongs counted as 3); {what} "
            f"({'大' if n > 14 else '小'}相公 / {'多张' if n > 14 else '少张'})",
        )
    ]


# ----------------------------------------------------------------------------------------------- hands


@dataclass
class AreaScore:
    """A declared winner read into a Hand and scored (best choice of the winning tile if it was not apart)."""

    seat: str
    hand: Hand | None
    result: ScoreResult | None
    note: str = ""


def declared(p: PlayerArea) -> bool:
    """A player has declared a win if the layout says so or a winning tile lies beside the hand
    (SBR 第九条一（七）: the tile taken back and set by the hand completes the win)."""
    return p.declared_win or p.winning_tile is not None


def _void_of(p: PlayerArea, situation: Situation) -> int | None:
    if p.void_suit is not None:
        return p.void_suit
    return situation.void_suit if p.seat == SUBJECT_SEAT else None


def hands_of(p: PlayerArea, situation: Situation) -> tuple[list[Hand], str]:
    """Every Hand this area can be read as (one per candidate winning tile), or [] and why not."""
    if p.concealed is None or p.concealed_face_down:
        return [], "the standing hand is not fully visible"
    melds = []
    for mt in p.melds:
        rm = read_meld(mt)
        if rm.meld is None:
            return [], "a meld cannot be read (face down or not a set)"
        if not rm.meld.concealed and rm.meld.source is None:
            # a claimed set laid with no tile sideways (the not_sideways finding): whom it was claimed from is
            # unknown, and a Hand's claimed meld needs its source
            return [], "a claimed meld has no tile sideways: its source cannot be read"
        melds.append(rm.meld)
    sit = replace(
        situation,
        winning_tile_apart=p.winning_tile_apart and p.winning_tile is not None,
        void_suit=_void_of(p, situation),
    )
    conc = tuple(p.concealed) + tuple(p.exposed)  # exposed tiles are hand tiles lying face up
    if p.winning_tile is not None:
        return [Hand(conc, tuple(melds), p.winning_tile, tuple(p.flowers), sit)], ""
    out = []
    for t in sorted(set(conc)):
        rest = list(conc)
        rest.remove(t)
        out.append(Hand(tuple(rest), tuple(melds), t, tuple(p.flowers), sit))
    return out, ("winning tile not set apart: every tile of the hand tried as the winning tile" if out else "no tiles")


def _candidates_note(scored: list) -> str:
    """What each candidate winning tile would score (tiles of equal outcome together), for the notes of a hand
    whose winning tile is not known."""
    by_outcome: dict = {}
    for r, h in scored:
        unit = "番" if r.rules == "sichuan" else "分"
        what = f"{r.total} {unit}" if r.is_win else f"no win ({r.reason})"
        by_outcome.setdefault(what, []).append(T.code(h.winning_tile))
    return "winning tile not known, each tile of the hand tried: " + "; ".join(
        f"{what} with {' '.join(tiles)}" for what, tiles in by_outcome.items()
    )


def score_area(p: PlayerArea, situation: Situation, rules: str, profile: str | None) -> AreaScore:
    """Score a declared winner. With the winning tile not set apart every tile of the hand is tried and the best
    result kept; its wait fans are not counted (the engines drop 边张/坎张/单钓将 when the tile is not apart:
    mcr-wmo-2006.txt 3.4.28 以便核查), and its notes list what each candidate tile would score."""
    hands, why = hands_of(p, situation)
    if not hands:
        return AreaScore(p.seat, None, None, why)
    eng = engine(rules)
    prof = resolve_profile(rules, profile)
    scored = [(eng.score(h, prof), h) for h in hands]
    best, hand = max(scored, key=lambda rh: (rh[0].is_win, rh[0].total, rh[0].base))
    if len(scored) > 1:
        best = replace(best, notes=[*best.notes, _candidates_note(scored)])
    return AreaScore(p.seat, hand, best, why)


def _tenpai_mcr(counts: list[int], melds) -> bool:
    return bool(engine("mcr").waits(counts, list(melds)))


def tenpai_distance(h: Hand) -> int:
    """MCR: 0 if the standing tiles (without the winning tile) are tenpai, 1 if one tile swap makes them
    tenpai (寻常诈和), 2 for two or more (有意诈和)."""
    c = [0] * T.N_KINDS
    for t in h.concealed:
        c[t] += 1
    if _tenpai_mcr(c, h.melds):
        return 0
    for r in {t for t in h.concealed}:
        for a in range(T.N_KINDS):
            if a == r or c[a] >= 4:
                continue
            c[r] -= 1
            c[a] += 1
            ok = _tenpai_mcr(c, h.melds)
            c[r] += 1
            c[a] -= 1
            if ok:
                return 1
    return 2


def _check_win(p: PlayerArea, rs: str, sc: AreaScore, size: int | None, self_drawn: bool) -> list[Finding]:
    """Validity of a declared win (after the count check)."""
    out = []
    if not p.winning_tile_apart or p.winning_tile is None:
        case = "winning_tile_not_apart" if self_drawn else "winning_tile_not_apart_discard"
        out.append(_finding(rs, case, p.seat, "the winning tile is not set apart from the hand"))
    if size is not None and size != 14:
        out.append(
            _finding(
                rs,
                "false_win_miscount" if rs != "sichuan" else "false_win",
                p.seat,
                f"win declared with {size} tiles (kongs as 3); a winning hand has 14",
            )
        )
        return out
    if sc.result is None or sc.result.is_win:
        return out
    h, r = sc.hand, sc.result
    if rs == "sichuan":
        tiles = h.all_tiles()
        suits = {T.suit(t) for t in tiles}
        void = h.situation.void_suit
        if len(suits) == 3:
            out.append(_finding(rs, "three_suits", p.seat, f"win declared with three suits (诈和): {r.reason}"))
        elif void is not None and void in suits:
            out.append(_finding(rs, "void_suit_win", p.seat, f"win declared holding void-suit tiles: {r.reason}"))
        else:
            out.append(_finding(rs, "false_win", p.seat, f"not a winning hand (诈和): {r.reason}"))
        return out
    eng = engine("mcr")
    if eng.is_winning_shape(h):
        out.append(
            _finding(
                rs,
                "under_minimum",
                p.seat,
                f"winning shape but {r.base} points without flowers, under the 8-point minimum (错和)",
            )
        )
        return out
    d = tenpai_distance(h)
    if d == 0:
        out.append(
            _finding(
                rs,
                "wrong_winning_tile",
                p.seat,
                f"the hand waits on other tiles, not {T.code(h.winning_tile)} (错和): {r.reason}",
            )
        )
    elif d == 1:
        out.append(
            _finding(rs, "false_win", p.seat, f"not a winning hand, one tile from tenpai (寻常诈和): {r.reason}")
        )
    else:
        out.append(
            _finding(
                rs,
                "false_win_deliberate",
                p.seat,
                f"not a winning hand, two or more tiles from tenpai (有意诈和): {r.reason}",
            )
        )
    return out


def _check_void(p: PlayerArea, situation: Situation) -> list[Finding]:
    """Sichuan 花猪 for a player who has not declared a win (a winner is judged in _check_win)."""
    void = _void_of(p, situation)
    if void is None or declared(p):
        return []
    cn = {T.MAN: "万", T.PIN: "饼", T.SOU: "条"}[void]
    melded = [t for mt in p.melds for t in mt.tiles if t is not None and T.suit(t) == void]
    if melded:
        return [
            _finding(
                "sichuan",
                "void_suit_tiles",
                p.seat,
                f"melded tiles of the void suit {cn}: {_codes(sorted(set(melded)))} (碰/杠定缺花色 = 主动花猪)",
            )
        ]
    held = [t for t in (p.concealed or ()) if T.suit(t) == void]
    other = [t for t in p.discards if T.is_suited(t) and T.suit(t) != void]
    if held and other:
        return [
            _finding(
                "sichuan",
                "void_suit_tiles",
                p.seat,
                f"holds void-suit {cn} tiles {_codes(held)} after discarding another suit "
                f"({_codes(other[:3])}...): 主动花猪",
            )
        ]
    return []


def _check_exposed(p: PlayerArea, rs: str, win_ok: dict[str, bool]) -> list[Finding]:
    if not p.exposed:
        return []
    if rs != "sichuan" and declared(p):  # MCR: a declarer's shown tiles are not exposed tiles (3.11.6 7(4));
        return []  # SBR 第十二条六（二） applies 无论自己是否已和 (won or not)
    msg = f"{len(p.exposed)} tile(s) lying face up outside hand, melds and discards: {_codes(p.exposed)}"
    if rs != "sichuan" and win_ok:
        others = ", ".join(win_ok)
        if all(win_ok.values()):
            return [_finding(rs, "exposed_on_valid_win", p.seat, msg + f"; shown while {others} declared a win")]
        return [_finding(rs, "exposed_on_false_win", p.seat, msg + f"; shown while {others} declared a win that fails")]
    return [_finding(rs, "exposed_tile", p.seat, msg)]


def _validate(p: PlayerArea) -> None:
    """Reject a table state no layout could produce (bad tile ids, malformed melds) with a readable message."""
    fields = {
        "concealed": p.concealed or (),
        "discards": p.discards,
        "exposed": p.exposed,
        "flowers": p.flowers,
        "winning_tile": () if p.winning_tile is None else (p.winning_tile,),
    }
    for name, ts in fields.items():
        bad = [t for t in ts if not isinstance(t, int) or not 0 <= t < T.N_TILES]
        if bad:
            raise AuditError(f"seat {p.seat}: {name} holds {bad!r}, not tile ids 0..{T.N_TILES - 1}")
    for i, mt in enumerate(p.melds):
        if not isinstance(mt, MeldOnTable) or any(
            t is not None and not (isinstance(t, int) and 0 <= t < T.N_KINDS) for t in mt.tiles
        ):
            raise AuditError(f"seat {p.seat}: meld {i + 1} is not a MeldOnTable of tile ids 0..33 / None: {mt!r}")
    if p.concealed_face_down < 0:
        raise AuditError(f"seat {p.seat}: concealed_face_down is negative")


@dataclass
class Review:
    findings: list[Finding]
    scores: dict[str, AreaScore]  # seat -> score, for every player who declared a win


def review(table: TableState, situation: Situation, rules: str = "mcr", profile: str | None = None) -> Review:
    """Audit findings plus the score of each declared winner (what the referee report shows)."""
    rs = _ruleset(rules, profile)
    if not isinstance(table, TableState):
        raise AuditError(f"audit needs a TableState, got {type(table).__name__}")
    seats = [p.seat for p in table.players]
    if len(set(seats)) != len(seats):
        raise AuditError(f"a seat appears twice in the table state: {seats}")
    for p in table.players:
        _validate(p)
    winners = [p for p in table.players if declared(p)]
    scores = {p.seat: score_area(p, situation, rules, profile) for p in winners}
    win_ok = {
        s: bool(a.result and a.result.is_win and hand_size(table.player(s)) in (14, None)) for s, a in scores.items()
    }
    out = _check_copies(table, rs)
    for p in table.players:
        out += _check_melds(p, rs, bool(winners))
        out += _check_count(p, rs)
        out += _check_exposed(p, rs, {s: ok for s, ok in win_ok.items() if s != p.seat})
        if rs == "sichuan":
            out += _check_void(p, situation)
        if declared(p):
            out += _check_win(p, rs, scores[p.seat], hand_size(p), situation.self_drawn)
    return Review(out, scores)


def audit(table: TableState, situation: Situation, rules: str = "mcr", profile: str | None = None) -> list[Finding]:
    """Every violation visible in the table state, each with the rule clause and the penalty the text prescribes."""
    return review(table, situation, rules, profile).findings
