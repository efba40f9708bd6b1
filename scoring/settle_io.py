"""A Sichuan deal's events as JSON or a short text form -> mjtable.scoring.settlement.Deal, and the settlement
as a zero-sum table whose every line cites its clause (``mjtable settle``).

Text form, one event per line (``#`` starts a comment; seats 0-3):

    kong 1 concealed                  # 下雨: 2 from each player still in
    kong 0 melded from 2              # 刮风: the discarder pays 2
    kong 3 added                      # 加杠 with the tile just drawn (``added late`` = with a hand tile: nothing)
    win 2 3fan from 0                 # a discard win; ``win 2,3 1fan,3fan from 0`` = 一炮多响
    win 1 2fan self                   # self-drawn (杠上花 too)
    win 2,3 1fan,3fan from 0 kong     # 杠上炮: the discarder's last kong is refunded
    falsewin 2                        # 诈和 / 顺和
    barred 3                          # 停和陪打
    draw 0 333p44p55p [111m<] [222m^] void s discards 9s   # a player still in when the wall ran out

JSON: ``{"events": [{"kong": {"seat": 1, "kind": "concealed"}}, {"win": {"winners": [2], "fans": [3],
"discarder": 0, "kong_discard": false}}, {"false_win": 2}, {"barred": 3}], "draw": {"0": {"hand": "333p44p55p
[111m<] [222m^]", "void_suit": "s", "discards": "9s"}}}``.
"""
from __future__ import annotations

import json
from typing import Optional

from mjtable.errors import BadHandError, shown

from . import tiles as T
from .notation import NotationError, parse_hand, parse_tiles
from .settlement import Barred, Deal, EndHand, FalseWin, Kong, Settlement, SettlementError, Win

S = "sichuan-sbr-2025.txt"
CLAUSES = {"kong": f"{S} 第十条一（一）（二）", "kong_refund": f"{S} 第十条一（三）（四）; 第十一条四（五）",
           "win": f"{S} 第十条二（四）（五）", "cha_da_jiao": f"{S} 第十条三（四）",
           "pig_penalty": f"{S} 第十二条十（一）; 第十一条二（二）", "false_win_penalty": f"{S} 第十二条十一（一）"}
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


def _end_hand(notation: str, void: Optional[str], discards: str, where: str) -> EndHand:
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


def parse_text(text: str) -> Deal:
    events, draw = [], {}
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
                raise DealError(f"{where}: write 'kong SEAT concealed', 'kong SEAT added [late]' or "
                                f"'kong SEAT melded from SEAT'")
        elif verb == "win" and len(w) >= 4:
            winners = tuple(_seat(s, where) for s in w[1].split(","))
            try:
                fans = tuple(int(f.removesuffix("fan")) for f in w[2].split(","))
            except ValueError:
                raise DealError(f"{where}: fans as '2fan' or '1fan,3fan', got {shown(w[2])}") from None
            if w[3] == "self" and len(w) == 4:
                events.append(Win(winners, fans))
            elif w[3] == "from" and len(w) in (5, 6) and w[5:] in ([], ["kong"]):
                events.append(Win(winners, fans, _seat(w[4], where), kong_discard=len(w) == 6))
            else:
                raise DealError(f"{where}: write 'win SEATS FANS from SEAT [kong]' or 'win SEAT FANS self'")
        elif verb in ("falsewin", "barred") and len(w) == 2:
            events.append((FalseWin if verb == "falsewin" else Barred)(_seat(w[1], where)))
        elif verb == "draw" and len(w) >= 3:
            seat, rest = _seat(w[1], where), w[2:]
            void = discards = None
            if "discards" in rest:
                i = rest.index("discards")
                rest, discards = rest[:i], "".join(rest[i + 1:])
            if "void" in rest:
                i = rest.index("void")
                if i + 2 != len(rest):
                    raise DealError(f"{where}: 'void m|p|s' comes after the hand")
                rest, void = rest[:i], rest[i + 1]
            draw[seat] = _end_hand(" ".join(rest), void, discards or "", where)
        else:
            raise DealError(f"{where}: cannot read {shown(line)} (kong, win, falsewin, barred or draw)")
    return Deal(events, draw or None)


def parse_json(text: str) -> Deal:
    try:
        d = json.loads(text)
    except json.JSONDecodeError as e:
        raise DealError(f"invalid JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
    if not isinstance(d, dict) or not isinstance(d.get("events", []), list):
        raise DealError('want a JSON object {"events": [...], "draw": {...}}')
    events = []
    for i, ev in enumerate(d.get("events", [])):
        where = f"event {i}"
        if not isinstance(ev, dict) or len(ev) != 1:
            raise DealError(f"{where}: want one of {{\"kong\": ...}}, {{\"win\": ...}}, {{\"false_win\": SEAT}}, "
                            f"{{\"barred\": SEAT}}")
        (kind, v), = ev.items()
        try:
            if kind == "kong":
                events.append(Kong(_seat(v["seat"], where), str(v["kind"]),
                                   None if v.get("discarder") is None else _seat(v["discarder"], where),
                                   bool(v.get("drawn", True))))
            elif kind == "win":
                disc = v.get("discarder")
                events.append(Win(tuple(_seat(s, where) for s in v["winners"]), tuple(int(f) for f in v["fans"]),
                                  None if disc is None else _seat(disc, where), bool(v.get("kong_discard", False))))
            elif kind in ("false_win", "barred"):
                events.append((FalseWin if kind == "false_win" else Barred)(_seat(v, where)))
            else:
                raise DealError(f"{where}: unknown event {shown(kind)}")
        except (KeyError, TypeError, ValueError) as e:
            raise DealError(f"{where}: {kind}: bad or missing field {e}") from None
    draw = {}
    for seat, h in (d.get("draw") or {}).items():
        where = f"draw seat {seat}"
        if not isinstance(h, dict) or not isinstance(h.get("hand"), str):
            raise DealError(f"{where}: want {{\"hand\": NOTATION, \"void_suit\": m|p|s, \"discards\": TILES}}")
        draw[_seat(seat, where)] = _end_hand(h["hand"], h.get("void_suit"), h.get("discards", ""), where)
    return Deal(events, draw or None)


def parse_deal(text: str) -> Deal:
    """JSON when the text starts with '{', the text form otherwise."""
    return parse_json(text) if text.lstrip().startswith("{") else parse_text(text)


def settle_text(s: Settlement) -> str:
    lines = ["seat   transfers  penalties   net"]
    lines += [f"{p:>4} {s.transfers[p]:>10} {s.penalties[p]:>10} {s.net[p]:>5}" for p in range(4)]
    lines.append(f"total {sum(s.transfers):>9} (transfers sum to zero; penalties are paid to nobody)")
    if s.statuses:
        lines.append("draw: " + ", ".join(f"seat {p} {st}" for p, st in sorted(s.statuses.items())))
    lines.append("ledger:")
    for it in s.ledger:
        to = "penalty" if it.payee is None else f"-> seat {it.payee}"
        lines.append(f"  seat {it.payer} {to}: {it.amount}  {it.note}  [{CLAUSES.get(it.kind, S)}]")
    return "\n".join(lines) + "\n"


def settle_dict(s: Settlement) -> dict:
    return {"transfers": s.transfers, "penalties": s.penalties, "net": s.net,
            "statuses": {str(k): v for k, v in s.statuses.items()},
            "ledger": [{"kind": it.kind, "payer": it.payer, "payee": it.payee, "amount": it.amount,
                        "note": it.note, "clause": CLAUSES.get(it.kind, S)} for it in s.ledger]}


def settle(text: str):
    """Text or JSON -> Settlement; DealError (exit 6) for a deal that cannot be read or cannot have happened."""
    from .settlement import settle as run
    deal = parse_deal(text)
    try:
        return run(deal)
    except SettlementError as e:
        raise DealError(str(e)) from None
