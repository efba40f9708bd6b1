"""Ground-truth JSON of a generated scene <-> mjtable.scoring.table.TableState (format: notes/contracts.md).

    gt = GroundTruth(kind="phone", image="000001.jpg", table=TableState(...), situation=Situation(...),
                     objects=[GTObject(box, kind, orientation, seat, group), ...])
    d = to_json(gt); gt2 = from_json(d)      # dict (or JSON text) round trip
    hand = phone_hand(gt)                    # the photographed winning hand as mjtable.scoring.hand.Hand
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Optional, Union

from mjtable.scoring import tiles as T
from mjtable.scoring.hand import Hand, Meld, Situation
from mjtable.scoring.table import MeldOnTable, PlayerArea, TableState

GROUPS = ("concealed", "winning", "flower", "discard", "wall", "exposed")   # plus "meld:<i>"


@dataclass(frozen=True)
class GTObject:
    box: tuple[float, float, float, float]
    kind: int
    orientation: str
    seat: str
    group: str


@dataclass
class GroundTruth:
    kind: str
    image: str
    table: TableState
    situation: Situation = field(default_factory=Situation)
    objects: list[GTObject] = field(default_factory=list)


def _wind(t: int) -> str:
    return T.WIND_NAMES[T.WINDS.index(t)]


def _meld_to(m: Meld) -> dict:
    return {"kind": m.kind, "tile": m.tile, "concealed": m.concealed, "source": m.source}


def _meld_from(d: Optional[dict]) -> Optional[Meld]:
    if d is None:
        return None
    return Meld(d["kind"], int(d["tile"]), bool(d.get("concealed", False)), d.get("source"))


def _player_to(p: PlayerArea) -> dict:
    return {
        "seat": p.seat,
        "concealed": None if p.concealed is None else list(p.concealed),
        "concealed_face_down": p.concealed_face_down,
        "melds": [{"tiles": list(m.tiles), "sideways": m.sideways,
                   "meld": None if m.meld is None else _meld_to(m.meld)} for m in p.melds],
        "winning_tile": p.winning_tile,
        "winning_tile_apart": p.winning_tile_apart,
        "flowers": list(p.flowers),
        "discards": list(p.discards),
        "exposed": list(p.exposed),
    }


def _player_from(d: dict) -> PlayerArea:
    conc = d.get("concealed")
    return PlayerArea(
        seat=d["seat"],
        concealed=None if conc is None else tuple(int(t) for t in conc),
        concealed_face_down=int(d.get("concealed_face_down", 0)),
        melds=tuple(MeldOnTable(tuple(None if t is None else int(t) for t in m["tiles"]), m.get("sideways"),
                                _meld_from(m.get("meld"))) for m in d.get("melds", [])),
        winning_tile=d.get("winning_tile"),
        winning_tile_apart=bool(d.get("winning_tile_apart", True)),
        flowers=tuple(d.get("flowers", [])),
        discards=tuple(d.get("discards", [])),
        exposed=tuple(d.get("exposed", [])),
    )


def to_json(gt: GroundTruth) -> dict:
    s = gt.situation
    return {
        "kind": gt.kind,
        "image": gt.image,
        "situation": {"self_drawn": s.self_drawn, "seat_wind": _wind(s.seat_wind),
                      "prevalent_wind": _wind(s.prevalent_wind)},
        "players": [_player_to(p) for p in gt.table.players],
        "objects": [{"box": [round(float(v), 1) for v in o.box], "kind": o.kind, "orientation": o.orientation,
                     "seat": o.seat, "group": o.group} for o in gt.objects],
    }


def from_json(d: Union[dict, str]) -> GroundTruth:
    if isinstance(d, str):
        d = json.loads(d)
    s = d.get("situation", {})
    situation = Situation(self_drawn=bool(s.get("self_drawn", False)),
                          seat_wind=T.WINDS[T.WIND_NAMES.index(s.get("seat_wind", "E"))],
                          prevalent_wind=T.WINDS[T.WIND_NAMES.index(s.get("prevalent_wind", "E"))])
    table = TableState(players=[_player_from(p) for p in d.get("players", [])])
    objects = [GTObject(tuple(float(v) for v in o["box"]), int(o["kind"]), o["orientation"], o["seat"], o["group"])
               for o in d.get("objects", [])]
    return GroundTruth(d["kind"], d["image"], table, situation, objects)


def phone_hand(gt: GroundTruth) -> Hand:
    """The photographed player's hand (concealed + melds + winning tile + flowers) as a Hand."""
    p = gt.table.player("self")
    if p is None or p.concealed is None:
        raise ValueError("ground truth has no revealed hand for seat 'self'")
    melds = tuple(m.meld for m in p.melds if m.meld is not None)
    return Hand(tuple(p.concealed), melds, p.winning_tile, tuple(p.flowers), gt.situation)
