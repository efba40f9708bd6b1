"""Referee audit of a table state (both rule systems): what is wrong on the table, the clause, the penalty.

    from mjtable.scoring.audit import audit
    findings = audit(table, situation, rules="mcr", profile="competition")

Checks (each a small function; the clause and penalty of every case live in ``scoring.catalogue.CATALOGUE``):
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
from .areas import (  # noqa: F401  (read from here too)
    SUBJECT_SEAT,
    AreaScore,
    ReadMeld,
    _void_of,
    declared,
    hands_of,
    read_meld,
    score_area,
    tenpai_distance,
)
from .catalogue import CATALOGUE, Rule, rule_for  # noqa: F401  (the catalogue, imported from here too)
from .engines import RULES, engine
from .hand import CHOW, KONG, LEFT, Situation
from .result import Finding
from .table import MeldOnTable, PlayerArea, TableState


class AuditError(ValueError):
    """Bad audit input (unknown rule system, unusable table state); the message says what."""


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
    known = [t for t in ts if t is not None]  # equals ts exactly when no tile is face down
    if (
        len(ts) != 3
        or mt.sideways is None
        or len(known) != len(ts)
        or any(not T.is_suited(t) for t in known)
        or len({T.suit(t) for t in known}) != 1
        or len(set(known)) != 3
    ):
        return "not_a_set"
    a, b = sorted(t for i, t in enumerate(known) if i != mt.sideways)
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


# ----------------------------------------------------------------------------------------------- wins


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
                "false_win_miscount",
                p.seat,
                f"win declared with {size} tiles (kongs as 3); a winning hand has 14",
            )
        )
        return out
    if sc.result is None or sc.result.is_win:
        return out
    return out + (_sichuan_no_win(p, sc) if rs == "sichuan" else _mcr_no_win(p, rs, sc, self_drawn))


def _sichuan_no_win(p: PlayerArea, sc: AreaScore) -> list[Finding]:
    """A Sichuan win declared of a hand that is none: three suits, the void suit held, or no winning shape (诈和)."""
    h, r = sc.hand, sc.result
    assert h is not None and r is not None  # score_area sets the hand whenever it sets a result
    suits = {T.suit(t) for t in h.all_tiles()}
    void = h.situation.void_suit
    if len(suits) == 3:
        return [_finding("sichuan", "three_suits", p.seat, f"win declared with three suits (诈和): {r.reason}")]
    if void is not None and void in suits:
        return [_finding("sichuan", "void_suit_win", p.seat, f"win declared holding void-suit tiles: {r.reason}")]
    return [_finding("sichuan", "false_win", p.seat, f"not a winning hand (诈和): {r.reason}")]


def _mcr_no_win(p: PlayerArea, rs: str, sc: AreaScore, self_drawn: bool) -> list[Finding]:
    """An MCR win declared of a hand that is none: under 8 points (a warning when a wait no one could check would
    make 8), self-drawn under the WMO texts (their 错和 and 诈和 are on another's discard), ready on other tiles
    (错和), one tile from ready (寻常诈和) or more (有意诈和)."""
    h, r = sc.hand, sc.result
    assert h is not None and r is not None  # score_area sets the hand whenever it sets a result
    if engine("mcr").is_winning_shape(h):
        f = _finding(
            rs,
            "under_minimum",
            p.seat,
            f"winning shape but {r.base} points without flowers, under the 8-point minimum (错和)",
        )
        if sc.wait_would_win:  # the penalty would rest on a wait no one could check
            f = replace(
                f,
                severity="warning",
                message=f"{r.base} points without flowers, but 8 or more with the wait (边张/坎张/单钓将) that a "
                "winning tile not set apart leaves uncounted: check which tile won before any penalty for 错和",
            )
        return [f]
    d = tenpai_distance(h)
    if rs == "mcr" and self_drawn:
        # mcr-wmo-2006.txt 3.11.6 6 grades 错和 and 诈和 on another's discard (他人打出的牌, 在他人打出牌时): a
        # self-drawn hand declared that is no win has no penalty there but the referee's warning (3.11.1)
        how = "ready, but not on this tile" if d == 0 else "not ready"
        return [_finding(rs, "false_win_self_drawn", p.seat, f"self-drawn, declared, and no win ({how}): {r.reason}")]
    if d == 0:
        assert h.winning_tile is not None  # hands_of gives every candidate Hand a winning tile
        why = f"the hand waits on other tiles, not {T.code(h.winning_tile)} (错和): {r.reason}"
        return [_finding(rs, "wrong_winning_tile", p.seat, why)]
    if d == 1:
        return [_finding(rs, "false_win", p.seat, f"not a winning hand, one tile from tenpai (寻常诈和): {r.reason}")]
    why = f"not a winning hand, two or more tiles from tenpai (有意诈和): {r.reason}"
    return [_finding(rs, "false_win_deliberate", p.seat, why)]


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
    if len(held) == 1 and other and len(p.concealed or ()) + 3 * len(p.melds) == 14:
        # one more tile than a standing hand: the void-suit tile may be the one just drawn (第七条二)
        return [
            _finding(
                "sichuan",
                "void_suit_drawn",
                p.seat,
                f"holds one void-suit {cn} tile {_codes(held)} in a hand of 14 after discarding another suit: "
                f"the tile just drawn is no 花猪 if it was kept apart; check whether it was put into the hand",
            )
        ]
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


# the MCR cases whose penalty is 停和陪打 (barred from winning this hand, mcr-wmo-2006.txt 3.11.6 2, 8): a declarer
# they are found on has no win that stands, whatever its tiles score
BARRING = frozenset({"chow_not_from_left", "not_a_set", "wrong_chow_pair", "wrong_tile_count"})


def _check_exposed(p: PlayerArea, rs: str, win_ok: dict[str, bool | None]) -> list[Finding]:
    if not p.exposed:
        return []
    if rs != "sichuan" and declared(p):  # MCR: a declarer's shown tiles are not exposed tiles (3.11.6 7(4));
        return []  # SBR 第十二条六（二） applies 无论自己是否已和 (won or not)
    msg = f"{len(p.exposed)} tile(s) lying face up outside hand, melds and discards: {_codes(p.exposed)}"
    if rs != "sichuan" and win_ok:
        others = ", ".join(win_ok)
        if all(win_ok.values()):
            return [_finding(rs, "exposed_on_valid_win", p.seat, msg + f"; shown while {others} declared a win")]
        if False not in win_ok.values():  # a declared hand that could not be read: whether it stands is unknown
            f = _finding(
                rs,
                "exposed_on_false_win",
                p.seat,
                msg + f"; shown while {others} declared a win that "
                "could not be read: a warning if it stands, the penalty below if it fails; check it",
            )
            return [replace(f, severity="warning")]
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
    by_seat = {p.seat: p for p in winners}  # the same areas table.player(s) finds: the seats are unique
    # each declarer's win: it stands (True), fails (False), or its hand could not be read (None: face down)
    win_ok = {
        s: None
        if a.result is None and a.hand is None
        else bool(a.result and a.result.is_win and hand_size(by_seat[s]) in (14, None))
        for s, a in scores.items()
    }
    own = {p.seat: _check_melds(p, rs, bool(winners)) + _check_count(p, rs) for p in table.players}
    for s in win_ok:  # a declarer barred by a violation of its own melds or count (停和陪打) has no win that stands
        if any(f.severity == "violation" and f.case in BARRING for f in own[s]):
            win_ok[s] = False
    out = _check_copies(table, rs)
    for p in table.players:
        out += own[p.seat]
        out += _check_exposed(p, rs, {s: ok for s, ok in win_ok.items() if s != p.seat})
        if rs == "sichuan":
            out += _check_void(p, situation)
        if declared(p):
            out += _check_win(p, rs, scores[p.seat], hand_size(p), situation.self_drawn)
    return Review(out, scores)


def audit(table: TableState, situation: Situation, rules: str = "mcr", profile: str | None = None) -> list[Finding]:
    """Every violation visible in the table state, each with the rule clause and the penalty the text prescribes."""
    return review(table, situation, rules, profile).findings
