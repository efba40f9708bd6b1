"""JSON <-> the scoring data model (mjtable.scoring.hand, mjtable.scoring.result), shared by ``mjtable --json`` and
batch scoring.

A hand as JSON, either in notation::

    {"hand": "123m456p11z [345m<] [777z^] +6p 15f", "self_drawn": true, "seat_wind": "S"}

or structured::

    {"concealed": "123m456p11z" | [0, 1, 2, ...],
     "melds": [{"kind": "chow", "tiles": "345m", "source": "left"},   # kind may be left out
               {"tiles": "1111m", "concealed": true},                 # concealed kong
               "[777z^]"],                                            # or a meld in notation
     "winning_tile": "6p" | 14, "flowers": "15f" | [34, 38]}

plus, with either form, the situation (mjtable.scoring.situation_fields.FIELDS, one name each, the table of
docs/python-api.md) and the rules, all optional::

    "self_drawn", "last_tile", "kong_replacement", "robbing_kong", "last_copy", "winning_tile_apart",
    "heavenly_win", "earthly_win", "human_win", "after_kong_discard": true/false;
    "seat_wind", "prevalent_wind": "E"|"S"|"W"|"N" (or east.., or 27..30);  "void_suit": "m"|"p"|"s";
    "rules": "mcr"|"sichuan";  "profile": "default"|"competition"|"sbr2025"...;  "id": anything (echoed);
    "referee_facts": ["early_draw", "warnings_before=1", ...] (MCR: incidents the referee saw,
    mjtable.scoring.rulings.FACTS; batch output then has "findings").

The situation's old names (round_wind, heavenly_hand, earthly_hand, human_hand, winning_tile_not_apart) are
still read, deprecated, for the 0.2 release. Unknown keys are an error (a misspelt flag must not be silently ignored).
"""

from __future__ import annotations

import json
import math

from mjtable.errors import one_line, shown

from . import tiles as T
from .engines import DEFAULT_PROFILE
from .hand import MELD_KINDS, SOURCES, Hand, Meld, Situation
from .notation import NotationError, format_hand, parse_hand, parse_meld, parse_tiles
from .result import Finding, ScoreResult
from .situation import SituationError
from .situation_fields import CANONICAL, NAMES, fields_of, situation_from_fields


class JsonInputError(ValueError):
    """A JSON hand we cannot read; the message names the key and the problem."""


def loads(text: str | bytes, max_digits: int | None = None):
    """``json.loads`` for what a user gives (a batch line, a deal, a request body), every failure a JsonInputError
    of one line: bad syntax, bytes that are not UTF-8, nesting too deep for the decoder, NaN or Infinity, a number
    out of a float's range, or of more than ``max_digits`` digits (None: Python's own limit of thousands)."""

    def constant(name: str):
        raise JsonInputError(f"invalid JSON: {name} is not a number JSON allows")

    def finite(t: str) -> float:
        v = float(t)
        if not math.isfinite(v):
            raise JsonInputError(f"invalid JSON: number {one_line(t, 24)} out of range")
        return v

    def whole(t: str) -> int:
        if max_digits is not None and len(t.lstrip("-")) > max_digits:
            raise JsonInputError(f"invalid JSON: number {one_line(t, 24)} has more than {max_digits} digits")
        return int(t)

    try:
        return json.loads(text, parse_constant=constant, parse_float=finite, parse_int=whole)
    except JsonInputError:
        raise
    except RecursionError:
        raise JsonInputError("invalid JSON: nested too deep") from None
    except UnicodeDecodeError as e:
        raise JsonInputError(f"invalid JSON: not UTF-8 text ({e.reason} at byte {e.start})") from None
    except json.JSONDecodeError as e:
        raise JsonInputError(f"invalid JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
    except ValueError as e:  # a number of thousands of digits, say
        raise JsonInputError(f"invalid JSON: {one_line(str(e), 80)}") from None


_HAND_KEYS = ("concealed", "melds", "winning_tile", "flowers")
_OTHER_KEYS = ("hand", "rules", "profile", "id", "referee_facts")
KNOWN_KEYS = frozenset(_HAND_KEYS + _OTHER_KEYS) | NAMES
_SHOWN_KEYS = ", ".join(sorted(_HAND_KEYS + _OTHER_KEYS + CANONICAL))  # the old names are left unsaid


def _tiles(value, key: str) -> list[int]:
    """Notation string or list of tile ids (or of one-tile codes) -> tile ids."""
    try:
        if isinstance(value, str):
            return parse_tiles(value)
        if isinstance(value, list):
            out = []
            for v in value:
                if isinstance(v, bool) or not isinstance(v, (int, str)):
                    raise JsonInputError(f"{key}: {shown(v)} is not a tile")
                if isinstance(v, int):
                    if not 0 <= v < T.N_TILES:
                        raise JsonInputError(f"{key}: tile id {v} out of range 0..{T.N_TILES - 1}")
                    out.append(v)
                else:
                    out.extend(parse_tiles(v))
            return out
    except NotationError as e:
        raise JsonInputError(f"{key}: {e}") from None
    raise JsonInputError(f'{key}: want tiles as notation ("123m") or a list of tile ids, got {shown(value)}')


def _one_tile(value, key: str) -> int:
    ts = _tiles(value if isinstance(value, (str, list)) else [value], key)
    if len(ts) != 1:
        raise JsonInputError(f"{key}: want exactly one tile, got {shown(value)}")
    return ts[0]


def _meld(value, i: int) -> Meld:
    key = f"melds[{i}]"
    if isinstance(value, str):
        try:
            return parse_meld(value.strip())
        except NotationError as e:
            raise JsonInputError(f"{key}: {e}") from None
    if not isinstance(value, dict):
        raise JsonInputError(
            f'{key}: want an object like {{"tiles": "345m", "source": "left"}} or notation like "[345m<]"'
        )
    unknown = set(value) - {"kind", "tiles", "source", "concealed", "claimed", "added"}
    if unknown:
        raise JsonInputError(f"{key}: unknown key(s) {shown(', '.join(sorted(unknown)))}")
    if "tiles" not in value:
        raise JsonInputError(f'{key}: missing "tiles"')
    ts = sorted(_tiles(value["tiles"], f"{key}.tiles"))
    concealed = _bool(value.get("concealed", False), f"{key}.concealed")
    added = _bool(value.get("added", False), f"{key}.added")
    source = value.get("source")
    if source is not None and source not in SOURCES:
        raise JsonInputError(f"{key}.source: want one of {', '.join(SOURCES)}, got {shown(source)}")
    if len(ts) == 4 and len(set(ts)) == 1:
        kind = "kong"
    elif len(ts) == 3 and len(set(ts)) == 1:
        kind = "pung"
    elif T.is_run(ts):
        kind = "chow"
    else:
        raise JsonInputError(f"{key}: tiles {shown(value['tiles'])} are not a chow, pung or kong")
    given = value.get("kind")
    if given is not None and given not in MELD_KINDS:
        raise JsonInputError(f"{key}.kind: want one of {', '.join(MELD_KINDS)}, got {shown(given)}")
    if given is not None and given != kind:
        raise JsonInputError(f"{key}: kind {shown(given)} but tiles {shown(value['tiles'])} make a {kind}")
    claimed = None if value.get("claimed") is None else _one_tile(value["claimed"], f"{key}.claimed")
    m = Meld(kind, ts[0], concealed=concealed, source=None if concealed else source, claimed=claimed, added=added)
    try:
        m.validate()
    except ValueError as e:
        raise JsonInputError(f"{key}: {e}") from None
    return m


def _bool(value, key: str) -> bool:
    if not isinstance(value, bool):
        raise JsonInputError(f"{key}: want true or false, got {shown(value)}")
    return value


_SITUATIONS: dict = {}  # the situation fields' values -> (Situation, their types): few distinct ones


def situation_from_dict(d: dict) -> Situation:
    """The situation of a JSON hand (mjtable.scoring.situation_fields: canonical names, old ones accepted);
    JsonInputError naming the field. Shared between lines that give the same values."""
    key = tuple([kv for kv in d.items() if kv[0] in NAMES])
    types = tuple([type(kv[1]) for kv in key])
    try:
        got = _SITUATIONS.get(key)
    except TypeError:  # a list or an object as a value: read_fields says what
        return _situation(d)
    if got is not None and got[1] == types:  # 1 and True are equal keys but not equal input
        return got[0]
    made = _situation(d)
    if len(_SITUATIONS) < 4096:
        _SITUATIONS[key] = (made, types)
    return made


def _situation(d: dict) -> Situation:
    try:
        return situation_from_fields({k: v for k, v in d.items() if k in NAMES})
    except SituationError as e:
        raise JsonInputError(str(e)) from None


def hand_from_dict(d: dict) -> tuple[Hand, str, str]:
    """A JSON object -> (Hand, rules, profile). Raises JsonInputError with a readable message.

    The hand may still be impossible (wrong tile count, five copies ...): check ``hand.problems()``.
    """
    if not isinstance(d, dict):
        raise JsonInputError(f"want a JSON object per hand, got {type(d).__name__}")
    unknown = set(d) - KNOWN_KEYS
    if unknown:
        raise JsonInputError(f"unknown key(s) {shown(', '.join(sorted(unknown)))} (known: {_SHOWN_KEYS})")
    rules = d.get("rules", "mcr")
    if not isinstance(rules, str) or rules not in DEFAULT_PROFILE:
        raise JsonInputError(f"rules: want one of {', '.join(DEFAULT_PROFILE)}, got {shown(rules)}")
    profile = d.get("profile", DEFAULT_PROFILE[rules])
    if not isinstance(profile, str) or not profile:
        raise JsonInputError(f"profile: want a profile name, got {shown(profile)}")
    situation = situation_from_dict(d)
    if "hand" in d:
        if any(k in d for k in _HAND_KEYS):
            raise JsonInputError('give either "hand" (notation) or concealed/melds/winning_tile/flowers, not both')
        if not isinstance(d["hand"], str):
            raise JsonInputError(f"hand: want a notation string, got {shown(d['hand'])}")
        try:
            hand = parse_hand(d["hand"], situation)
        except NotationError as e:
            raise JsonInputError(f"hand: {e}") from None
        return hand, rules, profile
    if "concealed" not in d and "melds" not in d:
        raise JsonInputError('no hand: give "hand" (notation) or "concealed" (+ "melds", "winning_tile")')
    concealed = _tiles(d.get("concealed", []), "concealed")
    flowers = [t for t in concealed if T.is_flower(t)]  # flowers written among the tiles, as in notation
    concealed = [t for t in concealed if not T.is_flower(t)]
    melds = d.get("melds", [])
    if not isinstance(melds, list):
        raise JsonInputError("melds: want a list")
    winning = None if d.get("winning_tile") is None else _one_tile(d["winning_tile"], "winning_tile")
    if winning is not None and T.is_flower(winning):
        raise JsonInputError("winning_tile: a flower cannot be the winning tile")
    if "flowers" in d:
        flowers += _tiles(d["flowers"], "flowers")
    hand = Hand(tuple(concealed), tuple(_meld(m, i) for i, m in enumerate(melds)), winning, tuple(flowers), situation)
    return hand, rules, profile


def hand_to_dict(hand: Hand) -> dict:
    """The hand in notation plus its situation (the inverse of hand_from_dict, notation form)."""
    return {"hand": format_hand(hand), **fields_of(hand.situation)}


def fan_to_dict(f) -> dict:
    return {
        "id": f.id,
        "name_cn": f.name_cn,
        "name_en": f.name_en,
        "value": f.value,
        "count": f.count,
        "points": f.points,
    }


def result_to_dict(res: ScoreResult) -> dict:
    """A ScoreResult as plain JSON types. Every key is always present (``reason`` is null for a win)."""
    return {
        "rules": res.rules,
        "profile": res.profile,
        "is_win": res.is_win,
        "total": res.total,
        "base": res.base,
        "fans": [fan_to_dict(f) for f in res.fans],
        "payments": dict(res.payments),
        "reason": res.reason,
        "decomposition": res.decomposition,
        "notes": list(res.notes),
    }


def finding_to_dict(f: Finding) -> dict:
    return {
        "kind": f.kind,
        "seat": f.seat,
        "message": f.message,
        "clause": f.clause,
        "penalty": f.penalty,
        "severity": f.severity,
    }


def findings_to_dict(findings) -> list[dict]:
    return [finding_to_dict(f) for f in findings]
