"""Referee profiles: how a finding's penalty is graded by what happened, beyond the rule text's one penalty.

The 2006 rules give one penalty per violation. The referee rulings (referee-rulings.txt) grade two of them by the
facts of the case:

* ruling 8, 错吃 (a wrong chow): found within the round (本巡内), it may be corrected with a warning; found later,
  the hand is dead (该盘停和);
* ruling 10, 错和 (a win declared that is none): without showing the hand, 10 points and a warning; with the hand
  shown, the hand is dead and 10 to each player; with the tiles mixed into the wall, 诈和 and 20 to each.

A referee profile is data: ``PROFILES[name]`` maps an audit case to a grading of facts -> (clause, penalty,
severity). ``grade(findings, profile, facts)`` returns the findings with the graded penalty; a fact not given
leaves the finding as the rule text has it, and says which fact would grade it.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Optional

from .result import Finding

R = "referee-rulings.txt"


@dataclass(frozen=True)
class Facts:
    """What the referee found out about the incident (None: not known)."""
    found_within_round: Optional[bool] = None    # ruling 8: the wrong chow was found before the player drew again
    hand_shown: Optional[bool] = None            # ruling 10: the declarer laid the hand open
    tiles_mixed: Optional[bool] = None           # ruling 10: the hand was mixed into the wall or the river


Grading = Callable[[Facts], Optional[tuple[str, str, str]]]      # facts -> (clause, penalty, severity) or None


def _wrong_chow(f: Facts):
    if f.found_within_round is None:
        return None
    if f.found_within_round:
        return (f"{R} 8", "在一巡内发现 允许调换取回二万 给予警告 — found within the round: corrected, a warning",
                "warning")
    return (f"{R} 8", "若迟误超过一巡，则不得再调换取回二万，该盘判为停和 — found later: the hand is dead",
            "violation")


def _wrong_win(f: Facts):
    if f.tiles_mixed:
        return (f"{R} 10", "应判为诈和，罚付3家各20分并提出警告 — tiles mixed into the wall: 诈和, 20 to each "
                "player and a warning", "violation")
    if f.hand_shown is None:
        return None
    if f.hand_shown:
        return (f"{R} 10", "判为该盘停和，罚付各家各10分继续比赛，本人陪打 — hand shown: the hand is dead, 10 to "
                "each player", "violation")
    return (f"{R} 10", "没有亮牌可扣罚10分并提出警告继续比赛 — hand not shown: 10 points and a warning", "warning")


# profile -> {audit case: grading}
PROFILES: dict[str, dict[str, Grading]] = {
    "rules": {},                                          # the rule text's penalties as written
    "rulings": {"chow_not_from_left": _wrong_chow,
                "under_minimum": _wrong_win, "wrong_winning_tile": _wrong_win, "false_win": _wrong_win},
}
NEEDS = {"chow_not_from_left": "--found-within-round / --found-later",
         "under_minimum": "--hand-shown / --hand-not-shown (and --tiles-mixed)"}


def grade(findings: list[Finding], profile: str, facts: Facts) -> list[Finding]:
    """The findings with each graded penalty of the referee profile (KeyError-free: unknown -> ValueError)."""
    if profile not in PROFILES:
        raise ValueError(f"unknown referee profile {profile!r} (known: {', '.join(PROFILES)})")
    out = []
    for f in findings:
        g = PROFILES[profile].get(f.case)
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
