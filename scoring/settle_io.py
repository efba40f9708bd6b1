"""A Sichuan deal's events as JSON or a short text form -> mjtable.scoring.settlement.Deal, and the settlement
as a zero-sum table whose every line cites its clause (``mjtable settle``).

Text form, one event per line (``#`` starts a comment; seats 0-3):

    kong 1 concealed                  # 下雨: 2 from each player still in
    kong 0 melded from 2              # 刮风: the discarder pays 2
    kong 3 added                      # 加杠 with the tile just drawn (``added late`` = with a hand tile: nothing)
    win 2 3fan from 0                 # a discard win; ``win 2,3 1fan,3fan from 0`` = 一炮多响
    win 1 2fan self                   # self-drawn (杠上花 too)
    win 2,3 1fan,3fan from 0 kong     # 杠上炮: the discarder's last kong is refunded
    win 2 hand "123m456m789m1p [555p^] +1p" from 0 kong    # the hand scored (杠上炮 +1 fan)
    win 1 3fan hand "1112223334455m +5m" self             # a typed count is checked against the hand (exit 6)
    falsewin 2                        # 诈和 / 顺和
    falsewin 2 from 0 kong            # 诈和 on a 杠上炮 discard: seat 0's last kong still scores nothing
    pig 3                             # 主动花猪 judged during play: 24 deducted, barred, an active 花猪 at a draw
    barred 3                          # 停和陪打
    draw 0 333p44p55p [111m<] [222m^] void s discards 9s   # a player still in when the wall ran out

A hand is scored with the Sichuan engine in the win's situation (``self``: self-drawn; ``kong``: 杠上炮 on a
discard, 杠上花 self-drawn; ``last``: 海底; ``robbing``: 抢杠); a typed count must agree with it. The void suit
is not known here: a hand holding three suits is refused, the 定缺 is the audit's to check.

A first line ``mode 2v2`` or ``mode 2v2-duplicate`` (JSON ``"mode"``) makes the deal a 2V2 one, read by
settle_io_2v2; ``mode individual`` is the default.

JSON: ``{"events": [{"kong": {"seat": 1, "kind": "concealed"}}, {"win": {"winners": [2], "fans": [3],
"discarder": 0, "kong_discard": false}}, {"win": {"winners": [1], "hand": "1112223334455m +5m"}},
{"false_win": 2}, {"barred": 3}], "draw": {"0": {"hand": "333p44p55p
[111m<] [222m^]", "void_suit": "s", "discards": "9s"}}}``.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable

from mjtable.errors import BadHandError, shown

from . import tiles as T
from .hand import Situation
from .jsonio import JsonInputError, loads
from .notation import NotationError, parse_hand, parse_tiles
from .settlement import Barred, Deal, EndHand, FalseWin, Kong, LedgerItem, Pig, Settlement, SettlementError, Win
from .sichuan import score
from .situation import SituationError
from .situation import check as check_situation

S = "sichuan-sbr-2025.txt"
MAX_FANS = 99  # a typed fan count beyond any hand's (a typo, or a number from elsewhere) is refused
# ledger kind (or "kind:cause") -> clause. A kong refund's clause depends on its cause: 杠上炮 第十条一（四）; a
# barred player (停和陪打) 第十一条四（五）, a false win 第十二条十一（一）; no ready hand at a draw 第十条一（三）.
CLAUSES = {
    "kong": f"{S} 第十条一（一）（二）",
    "kong_refund": f"{S} 第十条一（三）（四）; 第十一条四（五）; 第十二条十一（一）",
    "kong_refund:kong_discard": f"{S} 第十条一（四）",
    "kong_refund:false_win_kong_discard": f"{S} 第十二条十一（一）",
    "kong_refund:not_ready": f"{S} 第十条一（三）",
    "kong_refund:barred": f"{S} 第十一条四（五）; 第十二条十一（一）",
    "win": f"{S} 第十条二（四）（五）",
    "cha_da_jiao": f"{S} 第十条三（四）",
    "pig_penalty": f"{S} 第十二条十（一）; 第十一条二（二）",
    "false_win_penalty": f"{S} 第十二条十一（一）",
}
SUITS = {"m": T.MAN, "p": T.PIN, "s": T.SOU}


class DealError(BadHandError):
    """A deal that cannot be read or cannot have happened; the message names the line or event."""


def _seat(v, where: str) -> int:
    try:
        s = int(v)
    except (TypeError, ValueError):
        raise DealError(f"{where}: seat {shown(v)} is not 0-3") from None
    if not 0 <= s <= 3 or isinstance(v, bool):
        raise DealError(f"{where}: seat {shown(v)} is not 0-3")
    return s


def _end_hand(notation: str, void: str | None, discards: str, where: str) -> EndHand:
    try:
        h = parse_hand(notation)
        dis = tuple(parse_tiles(discards or ""))
    except NotationError as e:
        raise DealError(f"{where}: {e}") from None
    if void is not None and void not in SUITS:
        raise DealError(f"{where}: void suit {shown(void)} is not m, p or s")
    if h.winning_tile is not None or h.flowers:
        raise DealError(f"{where}: a standing hand has no winning tile and no flowers")
    return EndHand(tuple(h.concealed), tuple(h.melds), None if void is None else SUITS[void], dis)


WIN_FORM = (
    "write 'win SEATS [FANS] [hand NOTATION ...] from SEAT [kong] [last] [robbing]' or "
    "'win SEAT [FANS] [hand NOTATION] self [kong] [last]'"
)
MODIFIERS = {"kong", "last", "robbing"}


def _win_line(line: str, where: str) -> Win:
    """One text ``win`` line -> a Win priced by its typed fan counts, its hands, or both (which must agree)."""
    try:
        w = shlex.split(line)
    except ValueError as e:
        raise DealError(f"{where}: {e} ({WIN_FORM})") from None
    if len(w) < 3:
        raise DealError(f"{where}: {WIN_FORM}")
    winners = tuple(_seat(s, where) for s in w[1].split(","))
    rest, fans = w[2:], None
    if rest[0] not in ("hand", "self", "from"):
        try:
            fans = tuple(int(f.removesuffix("fan")) for f in rest[0].split(","))
        except ValueError:
            raise DealError(f"{where}: fans as '2fan' or '1fan,3fan', got {shown(rest[0])}") from None
        fans = _fans(fans, where)
        rest = rest[1:]
    hands = []
    while len(rest) >= 2 and rest[0] == "hand":
        hands.append(rest[1])
        rest = rest[2:]
    discarder = None
    if rest[:1] == ["from"] and len(rest) >= 2:
        discarder, mods = _seat(rest[1], where), rest[2:]
    elif rest[:1] == ["self"]:
        mods = rest[1:]
    else:
        raise DealError(f"{where}: {WIN_FORM}")
    if not set(mods) <= MODIFIERS or len(set(mods)) != len(mods) or ("robbing" in mods and discarder is None):
        raise DealError(f"{where}: {WIN_FORM}")
    return priced_win(where, winners, fans, hands, discarder, set(mods))


def _fans(values, where: str) -> tuple[int, ...]:
    """Typed fan counts, each a whole number from 0 to MAX_FANS (DealError naming the event otherwise)."""
    if not isinstance(values, (list, tuple)) or not all(
        isinstance(f, int) and not isinstance(f, bool) and 0 <= f <= MAX_FANS for f in values
    ):
        raise DealError(
            f"{where}: fans: want a whole number of fans from 0 to {MAX_FANS} per winner, got {shown(values)}"
        )
    return tuple(values)


def _hand_fans(where: str, seat: int, notation, sit: Situation) -> int:
    """The Sichuan engine's fan count of one winner's hand; DealError if it is not a winning hand."""
    if not isinstance(notation, str):
        raise DealError(f"{where}: seat {seat}'s hand: want notation, got {notation!r}")
    try:
        h = parse_hand(notation, sit)
    except NotationError as e:
        raise DealError(f"{where}: seat {seat}'s hand: {e}") from None
    try:  # what ``mjtable score`` refuses (杠上花 with no kong in the hand, 杠上炮 with 抢杠) is no win here either
        check_situation(h.situation, "sichuan", h)
    except SituationError as e:
        raise DealError(f"{where}: seat {seat}'s hand: {e}") from None
    r = score(h)
    if r.problems:
        raise DealError(f"{where}: seat {seat}'s hand cannot exist: {'; '.join(r.problems)}")
    if not r.is_win:
        raise DealError(f"{where}: seat {seat}'s hand is not a win: {r.reason}")
    return r.total


def priced_win(where: str, winners: tuple[int, ...], fans, hands, discarder: int | None, mods: set) -> Win:
    """A Win from typed fan counts and/or the winners' hands in notation (one per winner, in order), scored by
    the Sichuan engine in the win's situation (self-drawn, 杠上炮 / 杠上花 with ``kong``, 海底 ``last``, 抢杠
    ``robbing``). A typed count that disagrees with its hand's score is refused (DealError, naming the event)."""
    if not hands:
        if fans is None:
            raise DealError(f"{where}: a win needs each winner's fans or hand ({WIN_FORM})")
        if mods - {"kong"} or ("kong" in mods and discarder is None):
            raise DealError(f"{where}: 'last', 'robbing' and 'self kong' describe a hand: give the hand")
        return Win(winners, fans, discarder, kong_discard="kong" in mods)
    if len(hands) != len(winners) or (fans is not None and len(fans) != len(winners)):
        raise DealError(f"{where}: one hand (and one fan count, if typed) per winner")
    kong = "kong" in mods
    sit = Situation(
        self_drawn=discarder is None,
        kong_replacement=kong and discarder is None,
        after_kong_discard=kong and discarder is not None,
        last_tile="last" in mods,
        robbing_kong="robbing" in mods,
    )
    scored = tuple(_hand_fans(where, s, h, sit) for s, h in zip(winners, hands))
    for s, typed, got in zip(winners, fans or scored, scored):
        if typed != got:
            raise DealError(f"{where}: seat {s}'s hand scores {got} fan(s), not the {typed}fan typed")
    return Win(winners, scored, discarder, kong_discard=kong and discarder is not None)


def parse_text(text: str) -> Deal:
    events: list[Kong | Win | FalseWin | Barred | Pig] = []
    draw = {}
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        w, where = line.split(), f"line {n}"
        verb = w[0].lower()
        if verb == "kong" and len(w) in (3, 4, 5):
            seat, kind = _seat(w[1], where), w[2]
            if kind == "melded" and len(w) == 5 and w[3] == "from":
                events.append(Kong(seat, "melded", _seat(w[4], where)))
            elif kind in ("concealed", "added") and (len(w) == 3 or (kind == "added" and w[3:] == ["late"])):
                events.append(Kong(seat, kind, drawn=len(w) == 3))
            else:
                raise DealError(
                    f"{where}: write 'kong SEAT concealed', 'kong SEAT added [late]' or 'kong SEAT melded from SEAT'"
                )
        elif verb == "win":
            events.append(_win_line(line, where))
        elif verb in ("falsewin", "barred") and len(w) == 2:
            events.append((FalseWin if verb == "falsewin" else Barred)(_seat(w[1], where)))
        elif verb == "pig" and len(w) == 2:
            events.append(Pig(_seat(w[1], where)))
        elif verb == "falsewin" and len(w) == 5 and w[2] == "from" and w[4] == "kong":
            events.append(FalseWin(_seat(w[1], where), _seat(w[3], where)))
        elif verb == "draw" and len(w) >= 3:
            seat, rest = _seat(w[1], where), w[2:]
            void = discards = None
            if "discards" in rest:
                i = rest.index("discards")
                rest, discards = rest[:i], "".join(rest[i + 1 :])
            if "void" in rest:
                i = rest.index("void")
                if i + 2 != len(rest):
                    raise DealError(f"{where}: 'void m|p|s' comes after the hand")
                rest, void = rest[:i], rest[i + 1]
            draw[seat] = _end_hand(" ".join(rest), void, discards or "", where)
        else:
            raise DealError(f"{where}: cannot read {shown(line)} (kong, win, falsewin, barred, pig or draw)")
    return Deal(events, draw or None)


def _win_json(v: dict, where: str) -> Win:
    """A JSON win: "winners", "fans" and/or "hand" (one winner) or "hands" (one per winner), "discarder",
    "kong_discard" (杠上炮; with no discarder and a hand: 杠上花), "last_tile", "robbing_kong"."""
    disc = v.get("discarder")
    disc = None if disc is None else _seat(disc, where)
    hands = [v["hand"]] if "hand" in v else list(v.get("hands") or ())
    fans = None if v.get("fans") is None else _fans(v["fans"], where)
    mods = {m for m, k in (("kong", "kong_discard"), ("last", "last_tile"), ("robbing", "robbing_kong")) if v.get(k)}
    if "robbing" in mods and disc is None:
        raise DealError(f"{where}: robbing_kong needs a discarder (the player whose kong was robbed)")
    return priced_win(where, tuple(_seat(s, where) for s in v["winners"]), fans, hands, disc, mods)


def load_json(text: str) -> dict:
    """The deal's JSON object; DealError for invalid JSON or anything but an object."""
    try:
        d = loads(text)
    except JsonInputError as e:
        raise DealError(str(e)) from None
    if not isinstance(d, dict):
        raise DealError('want a JSON object {"events": [...], "draw": {...}}')
    return d


def parse_json(text: str) -> Deal:
    return deal_of_json(load_json(text))


def deal_of_json(d: dict, where_: str = "") -> Deal:
    """A deal from its JSON object's "events" and "draw" (``where_`` prefixes each message, e.g. a room)."""
    if not isinstance(d.get("events", []), list):
        raise DealError(f'{where_}want a JSON object {{"events": [...], "draw": {{...}}}}')
    events: list[Kong | Win | FalseWin | Barred | Pig] = []
    for i, ev in enumerate(d.get("events", [])):
        where = f"{where_}event {i}"
        if not isinstance(ev, dict) or len(ev) != 1:
            raise DealError(
                f'{where}: want one of {{"kong": ...}}, {{"win": ...}}, {{"false_win": SEAT}}, {{"barred": SEAT}}, '
                f'{{"active_pig": SEAT}}'
            )
        ((kind, v),) = ev.items()
        try:
            if kind == "kong":
                events.append(
                    Kong(
                        _seat(v["seat"], where),
                        str(v["kind"]),
                        None if v.get("discarder") is None else _seat(v["discarder"], where),
                        bool(v.get("drawn", True)),
                    )
                )
            elif kind == "win":
                events.append(_win_json(v, where))
            elif kind == "false_win" and isinstance(v, dict):  # {"seat": 1, "discarder": 0, "kong_discard": true}
                if not v.get("kong_discard") or v.get("discarder") is None:
                    raise DealError(
                        f'{where}: false_win: give a seat, or {{"seat", "discarder", "kong_discard": true}}'
                    )
                events.append(FalseWin(_seat(v["seat"], where), _seat(v["discarder"], where)))
            elif kind in ("false_win", "barred"):
                events.append((FalseWin if kind == "false_win" else Barred)(_seat(v, where)))
            elif kind == "active_pig":
                events.append(Pig(_seat(v, where)))
            else:
                raise DealError(f"{where}: unknown event {shown(kind)}")
        except (KeyError, TypeError, ValueError) as e:
            raise DealError(f"{where}: {kind}: bad or missing field {e}") from None
    draw = {}
    draw_obj = d.get("draw") or {}
    if not isinstance(draw_obj, dict):
        raise DealError(f'{where_}"draw": want {{SEAT: {{"hand": NOTATION, ...}}}}')
    for seat, h in draw_obj.items():
        where = f"{where_}draw seat {seat}"
        if not isinstance(h, dict) or not isinstance(h.get("hand"), str):
            raise DealError(f'{where}: want {{"hand": NOTATION, "void_suit": m|p|s, "discards": TILES}}')
        draw[_seat(seat, where)] = _end_hand(h["hand"], h.get("void_suit"), h.get("discards", ""), where)
    return Deal(events, draw or None)


def parse_deal(text: str) -> Deal:
    """JSON when the text starts with '{', the text form otherwise."""
    return parse_json(text) if text.lstrip().startswith("{") else parse_text(text)


def clause_of(it: LedgerItem) -> str:
    """The clause of one ledger item (by its kind, and its cause where the clause depends on it)."""
    return CLAUSES.get(f"{it.kind}:{it.cause}") or CLAUSES.get(it.kind, S)


def seat_lines(s: Settlement, penalties: str = "penalties are paid to nobody") -> list[str]:
    """The per-seat table: transfers, penalties, net, the zero-sum total and any draw statuses."""
    lines = ["seat   transfers  penalties   net"]
    lines += [f"{p:>4} {s.transfers[p]:>10} {s.penalties[p]:>10} {s.net[p]:>5}" for p in range(4)]
    lines.append(f"total {sum(s.transfers):>9} (transfers sum to zero; {penalties})")
    if s.statuses:
        lines.append("draw: " + ", ".join(f"seat {p} {st}" for p, st in sorted(s.statuses.items())))
    return lines


def ledger_lines(s: Settlement, clause: Callable[[LedgerItem], str] = clause_of) -> list[str]:
    lines = ["ledger:"]
    for it in s.ledger:
        to = "penalty" if it.payee is None else f"-> seat {it.payee}"
        lines.append(f"  seat {it.payer} {to}: {it.amount}  {it.note}  [{clause(it)}]")
    return lines


def settle_text(s) -> str:
    """The settlement as text: an individual deal's Settlement, or a 2V2 table or board (settle_io_2v2)."""
    if not isinstance(s, Settlement):
        from .settle_io_2v2 import result_text

        return result_text(s)
    return "\n".join(seat_lines(s) + ledger_lines(s)) + "\n"


def settlement_dict(s: Settlement, clause: Callable[[LedgerItem], str] = clause_of) -> dict:
    return {
        "transfers": s.transfers,
        "penalties": s.penalties,
        "net": s.net,
        "statuses": {str(k): v for k, v in s.statuses.items()},
        "ledger": [
            {
                "kind": it.kind,
                "payer": it.payer,
                "payee": it.payee,
                "amount": it.amount,
                "note": it.note,
                "clause": clause(it),
            }
            for it in s.ledger
        ],
    }


def settle_dict(s) -> dict:
    """The settlement as one JSON object: an individual deal's, or a 2V2 table's or board's (settle_io_2v2)."""
    if not isinstance(s, Settlement):
        from .settle_io_2v2 import result_dict

        return result_dict(s)
    return settlement_dict(s)


def settle(text: str):
    """Text or JSON -> Settlement, or for a deal that declares a 2V2 mode (``mode 2v2``, ``mode 2v2-duplicate``)
    a TeamTable or a Board (settle_io_2v2); DealError (exit 6) for a deal that cannot be read or cannot have
    happened."""
    from .settle_io_2v2 import read_mode, settle_2v2

    mode, body = read_mode(text)
    if mode != "individual":
        return settle_2v2(mode, body)
    deal = deal_of_json(body) if isinstance(body, dict) else parse_text(body)
    return run_settle(deal)


def run_settle(deal: Deal) -> Settlement:
    from .settlement import settle as run

    try:
        return run(deal)
    except SettlementError as e:
        raise DealError(str(e)) from None
