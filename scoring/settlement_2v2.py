"""Sichuan SBR 2025, the 2V2 supplement (2V2 双打补充细则, printed after the rules in sichuan-sbr-2025.txt): one
deal settled for two teams of partners, and a duplicate board (复式赛制: the same deal at two tables) with its IMP.

What the supplement changes, clause by clause (where it says nothing, the rules hold: 前言, 第三条一):

* 第一条二 (复式赛制): a team's pairs sit 东西 at one table and 南北 at the other, so partners sit opposite:
  seats 0 and 2, 1 and 3 (seats in turn order). A team holding 0, 2 in one room holds 1, 3 in the other.
* 第二条一: no 定缺; a win still lacks one suit (the Sichuan engine refuses three suits) and a standing hand at a
  draw holds at most two suits.
* 第二条二: 花猪 is checked at the settlement only: a standing hand (with its melds) holding all three suits. A
  player whose discards were all of one suit is a passive pig (被动花猪) and pays 查大叫 as one not ready; one who
  discarded two suits or more is penalised (第四条六（二）): 第二类, 24 deal points (第三条三（四）); in a duplicate
  match 第三类 (1-12 deal points, the referee's grade, given with the hand).
* 第二条三: no 顺和: a player may win any tile of any player at any time (a ``FalseWin`` is 诈和 only).
* 第二条四: once both partners of a team have won, the deal is over: the other pair plays no further and is
  checked for neither 叫 nor 花猪 (no draw settlement, so no kong refunds either). Any later event is refused.
* 第三条四（三）: in a duplicate match the other pair at the table gets the points a penalised player loses.
* 第一条五, 六, 七: a pair's result is the sum of the partners' deal points (副分之和); on a duplicate board a
  team's 副差分 is its open- and closed-room pairs' sum when positive (else 0), turned into IMP by the table
  (``settlement.imp``).

Payments between players are those of the rules (第十条), per player, teammates included: a self-drawn win is paid
by every player still in, the winner's partner too; a team's result is the partners' sum.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from .settlement import (
    FALSE_WIN_PENALTY,
    N_SEATS,
    PIG_ACTIVE,
    PIG_PASSIVE,
    Barred,
    Deal,
    EndHand,
    FalseWin,
    Kong,
    Pig,
    Settlement,
    SettlementError,
    Win,
    _Books,
    _penalise,
    _refund_barred,
    _settle_draw,
    _settle_kong,
    _settle_referee,
    _settle_win,
    draw_status,
    imp,
)
from .sichuan import SUIT_CN, suits_of

S = "sichuan-sbr-2025.txt"
SUPP = f"{S} 2V2 双打补充细则"
PIG_PENALTY = 24  # 第四条六（二） 第二类 -> 第三条三（四） 扣当盘副分 24 分：适用于花猪、诈和
DUPLICATE_PIG_RANGE = (1, 12)  # 第四条六（二） 复式比赛 第三类 -> 第三条二（三） 扣当盘副分 1-12 分

# Each clause of the supplement this module applies, with its words quoted verbatim (tests/test_settle_2v2.py
# checks every quote against the supplement's text). A ledger item's key is its kind, or "kind:cause".
CLAUSES_2V2 = {
    "teams": f"{SUPP} 第一条二 “分别坐在一桌的东西方与另一桌的南北方”",
    "rooms": f"{SUPP} 第一条四 “一场复式比赛包含两桌，分别在开室和闭室举行”",
    "no_void": f"{SUPP} 第二条一 “每副牌开始时，选手不用定缺”",
    "shunhe": f"{SUPP} 第二条三 “随时可以和任何选手任何番数的牌”",
    "win": f"{S} 第十条二（四）（五）; {SUPP} 第二条三 “随时可以和任何选手任何番数的牌”",
    "deal_over": f"{SUPP} 第二条四 “同队两人先和牌之后本副比赛结束，剩余同队两人不用血战到底，也不查叫和查花猪”",
    "pig": f"{SUPP} 第二条二 “总共含有全部三种花色的牌，则视为花猪” … “若该选手打出过至少两个花色的牌，则按花猪判罚”",
    "pig_passive": f"{SUPP} 第二条二 “若该选手打出的牌张全部为同一个花色，则视为被动花猪并查大叫”",
    "pig_penalty": f"{SUPP} 第四条六（二） “除被动花猪外，花猪的选手按第二类判罚尺度判罚”; "
    f"第三条三（四） “扣当盘副分 24 分：适用于花猪、诈和”",
    "pig_penalty:duplicate": f"{SUPP} 第四条六（二） “特殊的，复式比赛中，花猪的选手按第三类判罚尺度判罚”; "
    f"第三条二（三） “第三类判罚尺度：扣当盘副分 1-12 分”",
    "false_win_penalty": f"{SUPP} 第四条七（一） “视为诈和，按第二类判罚尺度判罚”; "
    f"第三条三（四） “扣当盘副分 24 分：适用于花猪、诈和”",
    "kong_refund:barred": f"{SUPP} 第三条四（七） “该选手应退回其本副牌所有杠所获得的分数”; {S} 第十二条十一（一）",
    "penalty_credit": f"{SUPP} 第三条四（三） “复式赛制中，某选手被罚分时，当副另一对搭档会获得对应正分”",
    "team_points": f"{SUPP} 第一条五 “比较同桌内两对搭档获得副分之和”",
    "board": f"{SUPP} 第一条六 “开、闭室同队搭档所获得副分之和，若为正数即为该队伍该副获得的副差分，"
    f"若不为正数则记为获得 0 分”; 第一条七 “参赛队伍将每副牌获得的副差分对应下表换算成国际比赛分”",
}

# docs/profiles.md's table of what the supplement changes against the rules' individual blood battle: (point, the
# rules, 2V2, clause keys). tests/test_settle_2v2.py checks the docs' table against differences_table().
DIFFERENCES: tuple[tuple[str, str, str, tuple[str, ...]], ...] = (
    ("seats", "four players, each for oneself", "two teams; partners sit opposite (0 and 2, 1 and 3)", ("teams",)),
    ("定缺", "each player declares a void suit (第六条)", "none; a win still lacks one suit", ("no_void",)),
    ("顺和", "24 deal points (第十二条十一（一）)", "no offence: any tile of any player, any time", ("shunhe",)),
    ("deal end", "three winners, or the wall runs out (第四条二)", "both partners of a team have won", ("deal_over",)),
    ("查叫, 查花猪", "at a draw (第十条三)", "at a draw; none once a team's pair has won", ("deal_over",)),
    ("花猪", "the void suit held (第十条三（三）)", "all three suits held, hand and melds", ("pig",)),
    ("被动花猪", "void-suit discards only: as not ready", "discards of one suit: pays 查大叫", ("pig_passive",)),
    (
        "花猪 penalty",
        "主动花猪: 24 (第十二条十)",
        "24; duplicate: 1-12, the referee's grade",
        ("pig_penalty", "pig_penalty:duplicate"),
    ),
    ("penalties", "paid to nobody", "duplicate: to the other pair at the table", ("penalty_credit",)),
    ("result", "each player's deal points", "the partners' sum (副分之和)", ("team_points",)),
    ("duplicate board", "none", "both rooms' sum: 副差分, then IMP", ("rooms", "board")),
)


def differences_table() -> list[str]:
    """DIFFERENCES as the Markdown table of docs/profiles.md."""
    lines = ["| point | the rules (individual) | 2V2 | clause |", "|---|---|---|---|"]
    for point, rules, two, keys in DIFFERENCES:
        lines.append(f"| {point} | {rules} | {two} | {'; '.join(CLAUSES_2V2[k] for k in keys)} |")
    return lines


def clause(key: str) -> str:
    """The supplement's clause (quoted) for a key of CLAUSES_2V2."""
    return CLAUSES_2V2[key]


@dataclass(frozen=True)
class Teams:
    """Two teams of partners: names and seats, in the order given."""

    names: tuple[str, str]
    seats: tuple[tuple[int, int], tuple[int, int]]

    def of(self, seat: int) -> int:
        """The index (0 or 1) of the seat's team."""
        return 0 if seat in self.seats[0] else 1

    def label(self, t: int) -> str:
        a, b = self.seats[t]
        return f"team {self.names[t]} (seats {a}, {b})"


def check_teams(teams: Teams) -> None:
    """Raises SettlementError unless the two teams hold the four seats, two partners each, sitting opposite."""
    if len(teams.names) != 2 or len(teams.seats) != 2 or teams.names[0] == teams.names[1]:
        raise SettlementError("teams: two teams with two different names")
    for name, seats in zip(teams.names, teams.seats):
        if len(seats) != 2:
            raise SettlementError(f"team {name}: a team is two partners, got {len(seats)} seat(s)")
        if any(not isinstance(s, int) or not 0 <= s < N_SEATS for s in seats):
            raise SettlementError(f"team {name}: seats are 0-{N_SEATS - 1}")
    every = sorted(teams.seats[0] + teams.seats[1])
    if every != list(range(N_SEATS)):
        raise SettlementError(f"teams: the two teams hold each of the four seats once, got seats {every}")
    for name, (a, b) in zip(teams.names, teams.seats):
        if abs(a - b) != 2:
            raise SettlementError(
                f"team {name}: partners sit opposite each other (seats 0 and 2, 1 and 3), not {a} and {b} "
                f"[{clause('teams')}]"
            )


@dataclass(frozen=True)
class Finding:
    """A fact of the 2V2 settlement that is not a payment: the deal's end, a pig, a penalty's credit."""

    kind: str  # "deal_over", "pig", "pig_passive", "penalty_credit"
    note: str
    seat: int | None = None
    team: int | None = None
    amount: int = 0


@dataclass
class TeamTable:
    """One table's deal under the supplement: the per-seat settlement, the teams, how the deal ended, findings."""

    settlement: Settlement
    teams: Teams
    duplicate: bool = False
    ended: tuple[int, int] | None = None  # (event index, team index) when a team's pair had both won
    findings: list[Finding] = field(default_factory=list)
    credits: list[int] = field(default_factory=lambda: [0, 0])  # duplicate: the other pair's deductions, per team

    @property
    def team_points(self) -> list[int]:
        """Each team's result: the partners' net deal points (副分之和), plus any duplicate credit."""
        net = self.settlement.net
        return [net[a] + net[b] + self.credits[t] for t, (a, b) in enumerate(self.teams.seats)]


def status_2v2(h: EndHand) -> tuple[str, tuple[int, int] | None]:
    """A standing hand's status at a draw under 第二条一、二: no void suit; all three suits held (hand and melds) is
    花猪, passive when every discard was of one suit; otherwise ready (with its 查大叫 price) or not."""
    if h.void_suit is not None:
        raise SettlementError(f"draw: no void suit in a 2V2 deal [{clause('no_void')}]")
    st, best = draw_status(h)  # checks the hand's size; with no void suit a three-suit hand is never ready
    own = list(h.concealed) + [t for m in h.melds for t in m.tiles]
    if len(suits_of(own)) == 3:
        return (PIG_ACTIVE if len(suits_of(h.discards)) >= 2 else PIG_PASSIVE), None
    return st, best


def _pig_rule(duplicate: bool, graded: dict[int, int]) -> Callable[[_Books, int, EndHand], None]:
    """Books a 2V2 花猪 penalty: 24 deal points; in a duplicate match the referee's grade, 1-12 (graded[seat])."""

    def pig(books: _Books, seat: int, hand: EndHand) -> None:
        if not duplicate:
            _penalise(
                books,
                seat,
                "pig_penalty",
                PIG_PENALTY,
                f"花猪 (three suits held, two or more discarded): 第二类, {PIG_PENALTY}",
            )
            return
        lo, hi = DUPLICATE_PIG_RANGE
        if seat not in graded:
            raise SettlementError(
                f"draw seat {seat}: 花猪 in a duplicate match is graded by the referee, {lo}-{hi} deal points: "
                f"give the seat's penalty [{clause('pig_penalty:duplicate')}]"
            )
        note = f"花猪 (three suits held, two or more discarded): 第三类, graded {graded[seat]}"
        _penalise(books, seat, "pig_penalty", graded[seat], note, "duplicate")

    return pig


def _check_graded(graded: dict[int, int], duplicate: bool) -> None:
    lo, hi = DUPLICATE_PIG_RANGE
    for seat, n in graded.items():
        if not duplicate:
            raise SettlementError(f"draw seat {seat}: a graded penalty is a duplicate match's; 花猪 costs 24 here")
        if not isinstance(n, int) or isinstance(n, bool) or not lo <= n <= hi:
            raise SettlementError(f"draw seat {seat}: a duplicate 花猪 penalty is {lo}-{hi} deal points, got {n!r}")


def settle_2v2(
    deal: Deal, teams: Teams, duplicate: bool = False, pig_penalties: dict[int, int] | None = None
) -> TeamTable:
    """Settles one table's deal under the supplement (see the module's docstring); raises SettlementError on a
    deal the supplement makes impossible (bad teams, an event after the deal ended, a void suit, ...).
    ``pig_penalties``: duplicate only, the referee's grade (1-12) of each active pig at a draw."""
    check_teams(teams)
    graded = dict(pig_penalties or {})
    _check_graded(graded, duplicate)
    books = _Books()
    table = TeamTable(books.out, teams, duplicate)
    winners: set[int] = set()
    for i, ev in enumerate(deal.events):
        if table.ended is not None:
            at, t = table.ended
            raise SettlementError(
                f"event {i}: the deal ended at event {at}, when {teams.label(t)} had both won: nothing comes "
                f"after [{clause('deal_over')}]"
            )
        if isinstance(ev, Kong):
            _settle_kong(books, ev, i)
        elif isinstance(ev, Win):
            _settle_win(books, ev, i)
            winners.update(ev.winners)
            done = [t for t, pair in enumerate(teams.seats) if set(pair) <= winners]
            if done:
                table.ended = (i, done[0])
        elif isinstance(ev, (FalseWin, Barred)):
            _settle_referee(books, ev, i, f"诈和: 第二类, {FALSE_WIN_PENALTY} (顺和 is no offence in 2V2)")
        elif isinstance(ev, Pig):
            raise SettlementError(
                f"event {i}: 2V2 declares no void suit: a 花猪 is judged at the deal's end (第二条二)"
            )
        else:
            raise SettlementError(f"event {i}: unknown event {type(ev).__name__}")
    _refund_barred(books)
    _end(deal, table, books, graded)
    return table


def _end(deal: Deal, table: TeamTable, books: _Books, graded: dict[int, int]) -> None:
    """The deal's end: the pair that won (第二条四), or the draw with its pigs (第二条二); then the duplicate
    credits of each penalty to the other pair (第三条四（三）)."""
    teams, out = table.teams, table.settlement
    if table.ended is not None:
        at, t = table.ended
        if deal.draw is not None:
            raise SettlementError(
                f"draw: the deal ended at event {at}, when {teams.label(t)} had both won: no draw, no 查叫 or "
                f"查花猪 [{clause('deal_over')}]"
            )
        rest = [p for p in range(N_SEATS) if p not in books.won]
        left = ", ".join(map(str, rest)) or "none"
        table.findings.append(
            Finding("deal_over", f"{teams.label(t)} have both won: the deal is over; still in: {left}", team=t)
        )
    elif deal.draw is not None:
        _settle_draw(deal.draw, books, status_2v2, _pig_rule(table.duplicate, graded))
        for p, st in sorted(out.statuses.items()):
            if st in (PIG_ACTIVE, PIG_PASSIVE):
                discarded = " ".join(SUIT_CN[s] for s in sorted(suits_of(deal.draw[p].discards))) or "nothing"
                how = "penalised" if st == PIG_ACTIVE else "pays 查大叫 as not ready"
                kind = "pig" if st == PIG_ACTIVE else "pig_passive"
                note = f"seat {p} holds all three suits (花猪), discarded {discarded}: {how}"
                table.findings.append(Finding(kind, note, seat=p))
    for seat in graded:
        if out.statuses.get(seat) != PIG_ACTIVE:
            raise SettlementError(f"draw seat {seat}: a 花猪 penalty is given, but the seat is no 花猪 to penalise")
    if table.duplicate:
        for it in out.ledger:
            if it.payee is None:
                t = 1 - teams.of(it.payer)
                table.credits[t] += it.amount
                note = f"seat {it.payer} loses {it.amount}: {teams.label(t)} gets {it.amount}"
                table.findings.append(Finding("penalty_credit", note, seat=it.payer, team=t, amount=it.amount))


@dataclass
class Board:
    """A duplicate board: the same deal in the open and the closed room, the teams swapping 东西 and 南北."""

    open: TeamTable
    closed: TeamTable

    @property
    def names(self) -> tuple[str, str]:
        return self.open.teams.names

    def points(self, name: str) -> int:
        """The team's 副分之和 over both rooms."""
        return sum(t.team_points[t.teams.names.index(name)] for t in (self.open, self.closed))

    def diff(self, name: str) -> int:
        """副差分: the sum when positive, else 0 (第一条六)."""
        return max(0, self.points(name))

    def imp(self, name: str) -> int:
        """The team's IMP for this board (第一条七)."""
        return imp(self.diff(name))


def settle_board(open_room: TeamTable, closed_room: TeamTable) -> Board:
    """Joins the two rooms of a duplicate board; raises SettlementError unless both name the same two teams and
    each team sits 东西 in one room and 南北 in the other (第一条二)."""
    if not (open_room.duplicate and closed_room.duplicate):
        raise SettlementError("board: both rooms are settled as duplicate tables")
    if sorted(open_room.teams.names) != sorted(closed_room.teams.names):
        raise SettlementError(
            f"board: the rooms name different teams ({', '.join(open_room.teams.names)} / "
            f"{', '.join(closed_room.teams.names)})"
        )
    for name in open_room.teams.names:
        a = open_room.teams.seats[open_room.teams.names.index(name)]
        b = closed_room.teams.seats[closed_room.teams.names.index(name)]
        if set(a) == set(b):
            raise SettlementError(
                f"board: team {name} holds seats {a[0]}, {a[1]} in both rooms; it sits 东西 in one and 南北 in the "
                f"other [{clause('teams')}]"
            )
    return Board(open_room, closed_room)
