"""Referee profiles: how a finding's penalty is graded by what happened, beyond the rule text's one penalty;
and the incidents a photo cannot show, given as referee facts.

The 2006 rules give one penalty per violation. The referee rulings (referee-rulings.txt) grade some of them by
the facts of the case:

* ruling 8, 错吃 (a wrong chow). A chow called on the discard of another seat than the left one (its last
  paragraph: 一时疏忽报吃) is a warning, the shown tiles are exposed tiles, and the player may still win
  (不取消其本盘和牌资格), whenever it is found. A chow of the wrong *tiles* (its second and third paragraphs: the
  player's own two tiles cannot make a chow, or the tile taken back is not the one the pair waits on) is
  corrected when found within the round (本巡内), and the hand is dead (该盘停和) when found later;
* ruling 10, 错和 (a win declared that is none): without showing the hand, 10 points and a warning; with the hand
  shown, the hand is dead and 10 to each player; with the tiles mixed into the wall, 诈和 and 20 to each.

A referee profile is data: ``PROFILES[name]`` maps an audit case to a grading of facts -> (clause, penalty,
severity). ``grade(findings, profile, facts)`` returns the findings with the graded penalty; a fact not given
leaves the finding as the rule text has it, and says which fact would grade it.

Referee facts (``FACTS``, rulings 5, 6, 11, 13; ``warnings_before=N``, ruling 12) are what the referee saw happen:
a wrong or early draw, a call changed to a win, a hand wrecked after another's win. Each gives one finding with
its clause and the ruling's penalty quoted (``fact_findings``), whatever the profile.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from mjtable.errors import shown

from .result import Finding

R = "referee-rulings.txt"
ONE_SHORT = 1  # ruling 10 grades a win declared this many points under the minimum (急于报和，而仅差1分), no more
SUBJECT = "self"  # the seat the facts are about: the player judged (scoring.audit.SUBJECT_SEAT)


@dataclass(frozen=True)
class Facts:
    """What the referee found out about the incident (None: not known)."""

    found_within_round: bool | None = None  # ruling 8: the wrong chow was found before the player drew again
    hand_shown: bool | None = None  # ruling 10: the declarer laid the hand open
    tiles_mixed: bool | None = None  # ruling 10: the hand was mixed into the wall or the river
    reported: tuple[str, ...] = ()  # referee facts (FACTS, warnings_before=N): incidents seen


Grading = Callable[[Facts], tuple[str, str, str] | None]  # facts -> (clause, penalty, severity) or None


def _wrong_seat_chow(f: Facts):
    """Ruling 8, last paragraph: a chow called on a discard not from the left, whenever it is found."""
    return (
        f"{R} 8",
        "一牌手在上家或对门打出牌，一时疏忽报吃，也属于错吃，给予警告如果又亮明吃牌搭子，则判为暴露张打出，"
        "但不取消其本盘和牌资格 — a chow called on another seat's discard: a warning; the shown tiles are exposed "
        "tiles, discarded in turn; the player may still win this hand",
        "warning",
    )


def _wrong_chow_pair(f: Facts):
    """Ruling 8, second paragraph: the player's own two tiles cannot make a chow with the claimed tile."""
    if f.found_within_round is None:
        return None
    if f.found_within_round:
        return (
            f"{R} 8",
            "可以在本巡内发现后纠正，亮明的四万，做为暴露张在下一巡开始（即轮到抓牌后）随即打出 — found "
            "within the round (and the right tile is in the hand): corrected, the wrong tile shown is discarded "
            "at the next turn",
            "warning",
        )
    return (
        f"{R} 8",
        "如果在第二巡或以后再发现自己错吃，则不允许纠正…也同样判该盘停和 — found later: no correction, "
        "the hand is dead",
        "violation",
    )


def _wrong_chow_tile(f: Facts):
    """Ruling 8, third paragraph: the pair was right, the tile taken back is not the one it waits on."""
    if f.found_within_round is None:
        return None
    if f.found_within_round:
        return (
            f"{R} 8",
            "在一巡内发现 允许调换取回二万 给予警告 — found within the round: the right tile taken, a warning",
            "warning",
        )
    return (f"{R} 8", "若迟误超过一巡，则不得再调换取回二万，该盘判为停和 — found later: the hand is dead", "violation")


def _wrong_win(f: Facts):
    if f.tiles_mixed:
        return (
            f"{R} 10",
            "应判为诈和，罚付3家各20分并提出警告 — tiles mixed into the wall: 诈和, 20 to each player and a warning",
            "violation",
        )
    if f.hand_shown is None:
        return None
    if f.hand_shown:
        return (
            f"{R} 10",
            "判为该盘停和，罚付各家各10分继续比赛，本人陪打 — hand shown: the hand is dead, 10 to each player",
            "violation",
        )
    return (f"{R} 10", "没有亮牌可扣罚10分并提出警告继续比赛 — hand not shown: 10 points and a warning", "warning")


# profile -> {audit case: grading}
PROFILES: dict[str, dict[str, Grading]] = {
    "rules": {},  # the rule text's penalties as written
    "rulings": {
        "chow_not_from_left": _wrong_seat_chow,
        "wrong_chow_pair": _wrong_chow_pair,
        "wrong_chow_tile": _wrong_chow_tile,
        "under_minimum": _wrong_win,  # ruling 10 grades 错和 only (仅差1分或看错别人打出的牌): a hand not
        "wrong_winning_tile": _wrong_win,  # even ready (诈和, false_win) keeps the rules' 20 to each
    },
}
NEEDS = {
    "wrong_chow_pair": "--found-within-round / --found-later",
    "wrong_chow_tile": "--found-within-round / --found-later",
    "under_minimum": "--hand-shown / --hand-not-shown (and --tiles-mixed)",
}


def _catalogue_severity(case: str) -> str | None:
    """The severity the audit catalogue gives an MCR case (None for a case it does not list)."""
    from .catalogue import CATALOGUE

    r = CATALOGUE.get(("mcr", case))
    return r.severity if r is not None else None


def grade(findings: list[Finding], profile: str, facts: Facts, short: Mapping[str, int] | None = None) -> list[Finding]:
    """The findings with each graded penalty of the referee profile (KeyError-free: unknown -> ValueError).
    ``short``: how many points each seat's declared hand lacks of the minimum; ruling 10 grades a hand
    仅差1分 only, so one shorter keeps the rule text's penalty (a seat not given is graded)."""
    if profile not in PROFILES:
        raise ValueError(f"unknown referee profile {profile!r} (known: {', '.join(PROFILES)})")
    out = []
    for f in findings:
        g = PROFILES[profile].get(f.case)
        if g is not None and f.severity == "warning" and _catalogue_severity(f.case) == "violation":
            out.append(f)  # the audit made it a warning to check (an unchecked wait): no grading makes it a penalty
            continue
        lacks = (short or {}).get(f.seat or "", ONE_SHORT) if f.case == "under_minimum" else ONE_SHORT
        if g is not None and lacks > ONE_SHORT:
            out.append(
                replace(
                    f,
                    message=f"{f.message} (ruling 10 grades a hand {ONE_SHORT} point short only; "
                    f"{lacks} short keeps the rules' penalty)",
                )
            )
            continue
        got = g(facts) if g else None
        if got is None:
            if g is not None:
                need = NEEDS.get(f.case, NEEDS["under_minimum"])
                f = replace(f, message=f"{f.message} (the {profile} profile grades this by {need})")
            out.append(f)
            continue
        clause, penalty, severity = got
        out.append(replace(f, clause=f"{f.clause}; {clause}", penalty=penalty, severity=severity))
    return out


# ------------------------------------------------------------------------------------------ referee facts


@dataclass(frozen=True)
class Step:
    """A fact's penalty at one count: the ruling's words (quoted verbatim, pieces joined by …), the English."""

    quote: str
    gloss: str
    severity: str = "violation"
    warns: bool = True  # the penalty includes a warning (counts for ruling 12's escalation)


@dataclass(frozen=True)
class FactRule:
    """An incident the referee reports (``--referee-fact NAME`` or ``NAME=N``): its ruling, what happened, and
    its penalty by count. ``steps[k]`` is the penalty of the (k+1)-th time in this hand; the last step holds for
    every later time. A fact of one step takes no count."""

    ruling: int
    what: str
    steps: tuple[Step, ...]

    @property
    def clause(self) -> str:
        return f"{R} {self.ruling}"


FACTS: dict[str, FactRule] = {
    "wrong_draw_touched": FactRule(
        5,
        "drew out of the order of play (抓错牌), touched the tile without seeing it",
        (
            Step(
                "而没有看到牌面或没有偷读（即手摸牌面）可向其提出警告 将牌放回原处",
                "a warning; the tile goes back where it was",
                "warning",
            ),
        ),
    ),
    "wrong_draw_seen": FactRule(
        5,
        "drew out of the order of play (抓错牌) and saw or felt the tile's face",
        (
            Step(
                "从违反行牌顺序规定处抓错牌，并已看到牌面或偷读 可向其提出警告 并罚扣 10分将牌放原处",
                "a warning and 10 points; the tile goes back",
            ),
        ),
    ),
    "wrong_draw_kept": FactRule(
        5,
        "drew out of the order of play (抓错牌) and put the tile into the hand",
        (
            Step(
                "并将本不属于自己的这张牌插入或混入手牌，经裁判或同桌牌手指明，裁判宣布其在该盘被处停和 并扣罚 10分",
                "barred from winning this hand and 10 points",
                warns=False,
            ),
        ),
    ),
    "early_draw": FactRule(
        6,
        "drew before the discard lay still (过急抓牌), without seeing the tile",
        (
            Step(
                "若只触及或抓起牌，并没有翻看牌面或偷读，第一次裁判给予警告，将牌放回原处",
                "the first time in a hand: a warning; the tile goes back",
                "warning",
            ),
            Step("一盘中出现第二次，裁判给予警告 罚扣 5分", "the second time in a hand: a warning and 5 points"),
            Step("第三次起 每出现一次扣罚 10分 以此类推", "the third time on: 10 points each time", warns=False),
        ),
    ),
    "early_draw_seen": FactRule(
        6,
        "drew early (过急抓牌) and saw or felt the tile's face",
        (
            Step(
                "过急抓牌已翻看牌面或偷读，裁判罚扣其 10分",
                "the first time: 10 points; the tile goes back",
                warns=False,
            ),
            Step(
                "在一盘中出现第二次过急抓牌，无论是否看到牌面或偷读均可罚扣其 20分",
                "the second time in a hand: 20 points",
                warns=False,
            ),
            Step("第三次罚扣其 30分，以此类推", "the third time: 30 points, 10 more each further time", warns=False),
        ),
    ),
    "early_draw_kept": FactRule(
        6,
        "drew early (过急抓牌) and put the tile into the hand",
        (
            Step(
                "过急抓牌，并把此牌放入手牌中，裁判可以判其该盘停和",
                "barred from winning this hand; the tile stays",
                warns=False,
            ),
        ),
    ),
    "call_changed_to_win": FactRule(
        11,
        "called chow or pung, then changed it to a win, hand not shown",
        (
            Step(
                "报吃或报碰不能改为报和，报告者未亮牌，对其提出警告 罚扣 10分 本巡不能成和。下一巡开始后 恢复报和权利",
                "a warning and 10 points; no win in this round, the right to win comes back in the next",
            ),
        ),
    ),
    "call_changed_to_win_shown": FactRule(
        11,
        "called chow or pung, then changed it to a win and showed the hand",
        (
            Step(
                "报吃或报碰改为报和，并随即亮明手牌，可判本盘停和 罚付3家各 10分，亮明的手牌陆续打出",
                "barred from winning this hand, 10 to each of the three others; the shown tiles are discarded in turn",
                warns=False,
            ),
        ),
    ),
    "pung_changed_to_kong": FactRule(
        11,
        "called pung, then changed it to a kong",
        (
            Step(
                "报碰不能改为报杠 只能碰牌 碰牌后另一张相同牌立即打出，给予警告",
                "only the pung stands; the fourth tile is discarded at once; a warning",
                "warning",
            ),
        ),
    ),
    "wrecked_hand": FactRule(
        13,
        "wrecked the hand (mixed it with wall or river, looked at the wall or another hand) "
        "before a declared win was confirmed, and the win failed",
        (
            Step(
                "罚毁牌者付给无过错的两家各20分 不付给错和者",
                "pays 20 to each of the two players at no fault; nothing to the false declarer",
                warns=False,
            ),
        ),
    ),
}
MAX_FACTS = 32
WARNINGS_BEFORE = "warnings_before"  # ruling 12: warnings this player had in this 局 before this hand's
ESCALATION = (
    "提出第二次警告，同时可以罚扣 10分…以此类推，自第二次提出警告后，每增加一次警告 则增加罚扣 10分",
    "from the second warning in a 局 on, each warning also costs 10 points more than the one before",
)


def parse_fact(text: str) -> tuple[str, int]:
    """'early_draw' -> ('early_draw', 1); 'early_draw=2' -> ('early_draw', 2); 'warnings_before=3'. ValueError
    (one line, naming the known facts) for an unknown name or a bad count."""
    name, _, count = str(text).strip().partition("=")
    known = [*FACTS, f"{WARNINGS_BEFORE}=N"]
    if name not in FACTS and name != WARNINGS_BEFORE:
        raise ValueError(f"unknown referee fact {shown(str(text))} (known: {', '.join(known)})")
    least = 0 if name == WARNINGS_BEFORE else 1
    if not count:
        if name == WARNINGS_BEFORE:
            raise ValueError(f"referee fact {WARNINGS_BEFORE} takes a count: {WARNINGS_BEFORE}=N (N >= 0)")
        return name, 1
    if name != WARNINGS_BEFORE and len(FACTS[name].steps) == 1:
        raise ValueError(f"referee fact {name} takes no count")
    if not count.isdigit() or len(count) > 3 or int(count) < least:
        raise ValueError(f"referee fact {shown(str(text))}: the count is a whole number from {least} to 999")
    return name, int(count)


def check_facts(facts: tuple[str, ...], rules: str) -> tuple[str, ...]:
    """The facts as given, once each is known to be readable and the rules to be MCR's (ValueError, one line)."""
    if len(facts) > MAX_FACTS:
        raise ValueError(f"more than {MAX_FACTS} referee facts")
    for x in facts:
        parse_fact(x)
    if facts and rules != "mcr":
        raise ValueError(f"referee facts are the MCR referee rulings (referee-rulings.txt), not for rules {rules!r}")
    return tuple(facts)


def _fact_finding(name: str, n: int) -> Finding:
    rule = FACTS[name]
    step = rule.steps[min(n, len(rule.steps)) - 1]
    times = f" (time {n} in this hand)" if len(rule.steps) > 1 else ""
    return Finding(
        "referee_fact",
        SUBJECT,
        f"reported by the referee: {rule.what}{times}",
        rule.clause,
        f"{step.quote} — {step.gloss}",
        step.severity,
        name,
    )


def _warns(f: Finding) -> bool:
    if f.kind == "referee_fact":
        rule = FACTS[f.case]
        return any(s.warns and f.penalty.startswith(s.quote) for s in rule.steps)
    return f.severity == "warning" and f.seat == SUBJECT  # the audit's warnings to the player judged


def fact_findings(facts: tuple[str, ...], findings: Sequence[Finding] = ()) -> list[Finding]:
    """The findings of the referee facts (names as ``parse_fact`` reads them), then, with ``warnings_before=N``,
    ruling 12's escalation: the k-th warning among ``findings`` and these is the player's (N+k)-th in the 局, and
    from the second on costs 10 points per warning before it. ValueError for a fact that cannot be read."""
    parsed = [parse_fact(x) for x in facts]
    out = [_fact_finding(name, n) for name, n in parsed if name != WARNINGS_BEFORE]
    before = max((n for name, n in parsed if name == WARNINGS_BEFORE), default=None)
    if before is None:
        return out
    warned = [f for f in [*findings, *out] if _warns(f)]
    for k, f in enumerate(warned, 1):
        nth = before + k
        if nth < 2:
            continue
        out.append(
            Finding(
                "referee_fact",
                f.seat,
                f"warning {nth} in this 局 for {f.case or f.kind}: {10 * (nth - 1)} points with it",
                f"{R} 12",
                f"{ESCALATION[0]} — {ESCALATION[1]}",
                "violation",
                WARNINGS_BEFORE,
            )
        )
    return out
