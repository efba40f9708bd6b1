"""Result types shared by the rule engines and the audit."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class FanHit:
    """One scored pattern: ``count`` times ``value`` = ``points``."""

    id: str  # stable id, e.g. "pure_straight"
    name_cn: str  # 清龙
    name_en: str  # Pure Straight
    value: int  # points (MCR) or fans (Sichuan) per occurrence
    count: int = 1

    @property
    def points(self) -> int:
        return self.value * self.count


@dataclass
class ScoreResult:
    """Outcome of scoring one hand under one rule profile.

    ``is_win`` False means ``reason`` says why (not a winning shape, impossible hand, too few points ...).
    ``total`` is the hand's value in the rule system's unit (MCR points incl. flowers; Sichuan fans).
    ``payments`` maps a payer ("discarder", "each", "left", ...) to what that payer owes the winner.
    """

    rules: str  # "mcr" or "sichuan"
    profile: str  # rule profile name, e.g. "default", "competition", "sbr2025"
    is_win: bool
    fans: list[FanHit] = field(default_factory=list)
    total: int = 0
    base: int = 0  # MCR: points without flowers; Sichuan: 2^capped fans
    payments: dict[str, int] = field(default_factory=dict)
    reason: str | None = None
    decomposition: str | None = None  # the winning shape chosen, in notation, for the referee
    notes: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # why the hand cannot exist (it was not scored)


@dataclass(frozen=True)
class Finding:
    """One audit finding (violation) for a referee report."""

    kind: str  # "exposed_tile", "wrong_tile_count", "too_many_copies", "illegal_meld",
    # "void_suit_tiles", "three_suits", "under_minimum", "false_win", "winning_tile_not_apart"
    seat: str | None  # table seat concerned, None for the whole table
    message: str  # human-readable, Chinese and/or English
    clause: str  # rule file and clause, e.g. "mcr-wmo-2006.txt §…"
    penalty: str  # the penalty the text prescribes
    severity: str = "violation"  # "violation" or "warning"
    case: str = ""  # the audit catalogue's case (scoring.audit.CATALOGUE), e.g. "chow_not_from_left"
