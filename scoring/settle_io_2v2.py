"""The settle modes: a deal says which rules it was played under, and a 2V2 deal (the supplement, 2V2 双打补充细则,
mjtable.scoring.settlement_2v2) is read, settled and shown here (``mjtable settle``).

A deal's first line names its mode; without one it is ``individual`` (the rules' blood battle, settle_io):

    mode 2v2                        # one table of a 2V2 match (双人赛, 团体赛)
    teams A=0,2 B=1,3               # two teams of partners, sitting opposite (第一条二)
    kong 1 concealed
    win 0 hand "..." from 1         # events as settle_io reads them
    draw 1 HAND discards TILES      # at a draw: no ``void`` (no 定缺 in 2V2, 第二条一)

    mode 2v2-duplicate              # a duplicate board (复式赛制): the same deal in both rooms
    room open
    teams A=0,2 B=1,3
    ...                             # the open room's events; ``draw SEAT HAND discards TILES penalty N``:
    room closed                     # the referee's 1-12 for a 花猪 (第四条六（二） 第三类)
    teams A=1,3 B=0,2               # each team sits 东西 in one room, 南北 in the other
    ...

JSON: ``{"mode": "2v2", "teams": {"A": [0, 2], "B": [1, 3]}, "events": [...], "draw": {...}}``;
``{"mode": "2v2-duplicate", "rooms": {"open": {"teams": ..., "events": ..., "draw": ...}, "closed": {...}}}``,
a draw hand ``{"hand": ..., "discards": ..., "penalty": N}``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from mjtable.errors import shown

from .settle_io import (
    DealError,
    _seat,
    clause_of,
    deal_of_json,
    ledger_lines,
    load_json,
    parse_text,
    seat_lines,
    settlement_dict,
)
from .settlement import Deal, LedgerItem, SettlementError
from .settlement_2v2 import (
    CLAUSES_2V2,
    SUPP,
    Board,
    Teams,
    TeamTable,
    check_teams,
    clause,
    settle_board,
)
from .settlement_2v2 import (
    settle_2v2 as run_table,
)

MODES = ("individual", "2v2", "2v2-duplicate")
ROOMS = ("open", "closed")
TEAM_NAME = re.compile(r"[^\s=,]{1,20}")
TEAM_WORD = re.compile(r"([^\s=,]{1,20})=(\S+)")
TWO_V_TWO_WORDS = ("teams", "room")


def read_mode(text: str) -> tuple[str, Any]:
    """(mode, body): the body is the JSON object, or the text with its ``mode`` line blanked (line numbers kept).
    DealError for an unknown mode, a ``mode`` line that is not the first, or 2V2 words in an individual deal."""
    if text.lstrip().startswith("{"):
        d = load_json(text)
        mode = d.get("mode", "individual")
        if mode not in MODES:
            raise DealError(f'"mode": {shown(mode)} is not one of {", ".join(MODES)}')
        if mode == "individual" and {"teams", "rooms"} & set(d):
            raise DealError('"teams" and "rooms" belong to a 2V2 deal: add "mode": "2v2" or "2v2-duplicate"')
        return mode, d
    lines, mode, first = text.splitlines(), "individual", True
    for n, raw in enumerate(lines, 1):
        w = raw.split("#", 1)[0].split()
        if not w:
            continue
        if w[0].lower() == "mode":
            if not first:
                raise DealError(f"line {n}: 'mode' is the deal's first line")
            if len(w) != 2 or w[1].lower() not in MODES:
                raise DealError(f"line {n}: write 'mode individual', 'mode 2v2' or 'mode 2v2-duplicate'")
            mode, lines[n - 1] = w[1].lower(), ""
        elif mode == "individual" and w[0].lower() in TWO_V_TWO_WORDS:
            raise DealError(
                f"line {n}: '{w[0]}' belongs to a 2V2 deal: begin it with 'mode 2v2' or 'mode 2v2-duplicate'"
            )
        first = False
    return mode, "\n".join(lines)


# ------------------------------------------------------------------------------------------ reading


def _teams_text(words: list[str], where: str) -> Teams:
    """``teams A=0,2 B=1,3`` -> Teams (seats checked by settle_io's rules, seating by check_teams)."""
    got = [TEAM_WORD.fullmatch(w) for w in words]
    if len(words) != 2 or not all(got):
        raise DealError(f"{where}: write 'teams NAME=SEAT,SEAT NAME=SEAT,SEAT', e.g. 'teams A=0,2 B=1,3'")
    return _teams(where, [(m.group(1), m.group(2).split(",")) for m in got if m])


def _teams_json(v: Any, where: str) -> Teams:
    if not isinstance(v, dict) or not all(isinstance(s, list) for s in v.values()):
        raise DealError(f'{where}: "teams": want {{"A": [0, 2], "B": [1, 3]}}')
    if len(v) != 2:
        raise DealError(f'{where}: "teams": two teams, got {len(v)}')
    return _teams(where, [(str(k), s) for k, s in v.items()])


def _teams(where: str, pairs: list[tuple[str, list]]) -> Teams:
    """Two (name, seats) pairs -> Teams: names of 1-20 characters, seats 0-3, two partners sitting opposite."""
    if pairs[0][0] == pairs[1][0] or not all(TEAM_NAME.fullmatch(n) for n, _ in pairs):
        raise DealError(f"{where}: two teams, each named once (1-20 characters, no space, '=' or ',')")
    seats = [tuple(_seat(s, f"{where}: team {name}") for s in ss) for name, ss in pairs]
    for (name, _), ss in zip(pairs, seats):
        if len(ss) != 2:
            raise DealError(f"{where}: team {name}: a team is two partners, got {len(ss)} seat(s)")
    t = Teams((pairs[0][0], pairs[1][0]), ((seats[0][0], seats[0][1]), (seats[1][0], seats[1][1])))
    try:
        check_teams(t)
    except SettlementError as e:
        raise DealError(f"{where}: {e}") from None
    return t


@dataclass
class _Table:
    """One table as read: its teams, its deal, the referee's graded 花猪 penalties and a prefix for messages."""

    teams: Teams
    deal: Deal
    graded: dict[int, Any]
    where: str


def _draw_line(w: list[str], where: str, duplicate: bool, graded: dict[int, Any]) -> list[str]:
    """A 2V2 ``draw`` line's words without its ``penalty N`` (recorded in graded); no ``void`` (第二条一)."""
    if "void" in w:
        raise DealError(f"{where}: no void suit in a 2V2 deal [{clause('no_void')}]")
    if "penalty" not in w:
        return w
    i = w.index("penalty")
    if not duplicate:
        raise DealError(f"{where}: 'penalty N' is a duplicate board's graded 花猪; here 花猪 costs 24")
    if i != len(w) - 2 or not w[-1].isdigit():
        raise DealError(f"{where}: 'penalty N' (1-12) ends a draw line")
    graded[_seat(w[1], where)] = int(w[-1])
    return w[:i]


def _tables_text(body: str, duplicate: bool) -> list[_Table]:
    """The table (2v2) or the two rooms (2v2-duplicate) of a text deal, each parsed by settle_io.parse_text on
    the text with every other line blanked, so that messages keep the deal's line numbers."""
    lines = body.splitlines()
    names = list(ROOMS) if duplicate else ["table"]
    keep: dict[str, list[str]] = {r: [""] * len(lines) for r in names}
    teams: dict[str, Teams] = {}
    graded: dict[str, dict[int, Any]] = {r: {} for r in names}
    room = None if duplicate else "table"
    seen: set[str] = set()
    for n, raw in enumerate(lines, 1):
        w, where = raw.split("#", 1)[0].split(), f"line {n}"
        if not w:
            continue
        verb = w[0].lower()
        if verb == "room":
            if not duplicate:
                raise DealError(f"{where}: 'room' belongs to a duplicate board (mode 2v2-duplicate)")
            if len(w) != 2 or w[1].lower() not in ROOMS or w[1].lower() in seen:
                raise DealError(f"{where}: write 'room open' and 'room closed', once each")
            room = w[1].lower()
            seen.add(room)
            continue
        if room is None:
            raise DealError(f"{where}: a duplicate board's lines follow 'room open' or 'room closed'")
        if verb == "teams":
            if room in teams:
                raise DealError(f"{where}: one 'teams' line per table")
            teams[room] = _teams_text(w[1:], where)
        elif verb == "draw":
            keep[room][n - 1] = " ".join(_draw_line(w, where, duplicate, graded[room]))
        else:
            keep[room][n - 1] = raw
    out = []
    for r in names:
        where = f"room {r}: " if duplicate else ""
        if r not in teams:
            raise DealError(f"{where or 'the deal: '}no 'teams' line (e.g. 'teams A=0,2 B=1,3')")
        out.append(_Table(teams[r], parse_text("\n".join(keep[r])), graded[r], where))
    return out


def _graded_json(room: dict, where: str) -> dict[int, Any]:
    """A JSON table's draw hands' ``"penalty"`` (the referee's graded 花猪); no ``"void_suit"`` (第二条一)."""
    graded: dict[int, Any] = {}
    draw = room.get("draw")
    for seat, h in draw.items() if isinstance(draw, dict) else ():
        if isinstance(h, dict) and "void_suit" in h:
            raise DealError(f"{where}draw seat {seat}: no void suit in a 2V2 deal [{clause('no_void')}]")
        if isinstance(h, dict) and "penalty" in h:
            graded[_seat(seat, f"{where}draw seat {seat}")] = h["penalty"]
    return graded


def _tables_json(d: dict, duplicate: bool) -> list[_Table]:
    """The table (2v2) or the two rooms (2v2-duplicate) of a JSON deal."""
    if duplicate:
        rooms = d.get("rooms")
        if {"events", "draw", "teams"} & set(d) or not isinstance(rooms, dict) or sorted(rooms) != sorted(ROOMS):
            raise DealError('a duplicate board: {"mode": "2v2-duplicate", "rooms": {"open": {...}, "closed": {...}}}')
        parts = [(f"room {r}: ", rooms[r]) for r in ROOMS]
    else:
        if "rooms" in d:
            raise DealError('"rooms" belong to a duplicate board ("mode": "2v2-duplicate")')
        parts = [("", d)]
    out = []
    for where, room in parts:
        if not isinstance(room, dict) or "teams" not in room:
            raise DealError(f'{where or "the deal: "}no "teams" (e.g. {{"A": [0, 2], "B": [1, 3]}})')
        teams = _teams_json(room["teams"], where.rstrip(": ") or "the deal")
        out.append(_Table(teams, deal_of_json(room, where), _graded_json(room, where), where))
    return out


def settle_2v2(mode: str, body: Any) -> TeamTable | Board:
    """A 2V2 deal (mode "2v2": one table; "2v2-duplicate": a board of two rooms), from read_mode's body;
    DealError (exit 6), naming the room, line or event, for one the supplement makes impossible."""
    duplicate = mode == "2v2-duplicate"
    tables = _tables_json(body, duplicate) if isinstance(body, dict) else _tables_text(body, duplicate)
    done = []
    for t in tables:
        try:
            done.append(run_table(t.deal, t.teams, duplicate, t.graded))
        except SettlementError as e:
            raise DealError(f"{t.where}{e}") from None
    if not duplicate:
        return done[0]
    try:
        return settle_board(done[0], done[1])
    except SettlementError as e:
        raise DealError(str(e)) from None


# ------------------------------------------------------------------------------------------ showing


def clause_2v2(it: LedgerItem) -> str:
    """A 2V2 ledger item's clause: the supplement's where it speaks (a win, a penalty, a barred player's kong
    refund), else the rules' (settle_io.clause_of)."""
    return CLAUSES_2V2.get(f"{it.kind}:{it.cause}") or CLAUSES_2V2.get(it.kind) or clause_of(it)


def _team_line(t: TeamTable) -> str:
    pts = t.team_points
    both = ", ".join(f"{t.teams.label(i)} {pts[i]}" for i in (0, 1))
    return f"team points (副分之和): {both}  [{clause('team_points')}]"


def table_lines(t: TeamTable) -> list[str]:
    """One table: teams, the per-seat table, each team's points, findings and the ledger, each citing its clause."""
    teams = "; ".join(t.teams.label(i) for i in (0, 1))
    lines = [f"teams: {teams}  [{clause('teams')}]"]
    to = "penalties go to the other pair" if t.duplicate else "penalties are paid to nobody"
    lines += seat_lines(t.settlement, to) + [_team_line(t)]
    if t.findings:
        lines.append("findings:")
        lines += [f"  {f.note}  [{clause(f.kind)}]" for f in t.findings]
    return lines + ledger_lines(t.settlement, clause_2v2)


def board_lines(b: Board) -> list[str]:
    lines = ["board:"]
    for name in b.names:
        o, c = (r.team_points[r.teams.names.index(name)] for r in (b.open, b.closed))
        lines.append(f"  team {name}: open {o}, closed {c}, sum {o + c}: 副差分 {b.diff(name)}, IMP {b.imp(name)}")
    return lines + [f"  [{clause('board')}]"]


def result_text(r: TeamTable | Board) -> str:
    if isinstance(r, TeamTable):
        lines = [f"mode 2v2: {SUPP}"] + table_lines(r)
    else:
        lines = [f"mode 2v2-duplicate: {SUPP}"]
        for name, t in (("open", r.open), ("closed", r.closed)):
            lines += [f"room {name}:"] + ["  " + x for x in table_lines(t)]
        lines += board_lines(r)
    return "\n".join(lines) + "\n"


def table_dict(t: TeamTable) -> dict:
    names = t.teams.names
    return {
        "teams": {n: list(s) for n, s in zip(names, t.teams.seats)},
        **settlement_dict(t.settlement, clause_2v2),
        "team_points": dict(zip(names, t.team_points)),
        "team_points_clause": clause("team_points"),
        "ended": None if t.ended is None else {"event": t.ended[0], "team": names[t.ended[1]]},
        "findings": [
            {
                "kind": f.kind,
                "seat": f.seat,
                "team": None if f.team is None else names[f.team],
                "amount": f.amount,
                "note": f.note,
                "clause": clause(f.kind),
            }
            for f in t.findings
        ],
    }


def result_dict(r: TeamTable | Board) -> dict:
    if isinstance(r, TeamTable):
        return {"mode": "2v2", **table_dict(r)}
    return {
        "mode": "2v2-duplicate",
        "rooms": {"open": table_dict(r.open), "closed": table_dict(r.closed)},
        "board": {n: {"points": r.points(n), "diff": r.diff(n), "imp": r.imp(n)} for n in r.names},
        "board_clause": clause("board"),
    }
