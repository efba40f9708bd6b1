"""The situation's vocabulary: one canonical name for each field of ``Situation``, the words its values take, and
the old names kept as deprecated aliases for the 0.2 release.

``FIELDS`` is the one table. The pydantic model (``mjtable.scoring.situation_model.SituationModel``) is built from
it and reads the command line's flags, the web API's fields and the Python API's keywords; ``read_fields`` reads a
JSON hand line (``mjtable batch``, the archive's ``.jsonl`` files) from the same table without importing pydantic,
so that ``mjtable batch`` starts in a few tens of milliseconds. ``tests/test_situation_model.py`` holds the two to
the same answers.

Values: a flag is ``true``/``false``; a wind ``E`` ``S`` ``W`` ``N`` (also ``east``.., ``1z``..``4z``, ``东``..,
or the tile ids 27..30); a suit ``m`` ``p`` ``s`` (also ``man`` ``pin`` ``sou``, ``万`` ``饼``/``筒`` ``条``/``索``,
or 0..2). Read as text (a form field, a command-line word: ``text=True``), a flag is also ``1``/``0``, ``yes``/``no``,
``on``/``off`` and an empty value or ``None`` is the default. Every refusal is a SituationError (a usage error,
exit code 2) of one line naming the field as it was given.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mjtable.errors import shown

from . import tiles as T
from .hand import Situation
from .situation import SituationError

FLAG, WIND, SUIT = "flag", "wind", "suit"


@dataclass(frozen=True)
class Field:
    name: str  # the canonical name: the Situation field, the JSON key, the form field; the flag --name-with-dashes
    kind: str  # FLAG, WIND or SUIT
    help: str
    aliases: tuple[str, ...] = ()  # old names of the same meaning (deprecated, kept for the 0.2 release)
    inverted: str | None = None  # an old name meaning the opposite (deprecated, kept for the 0.2 release)

    @property
    def default(self) -> Any:
        return _DEFAULTS[self.name]

    @property
    def names(self) -> tuple[str, ...]:
        """The canonical name first, then the old names, as a mapping may give them."""
        return (self.name, *self.aliases) + ((self.inverted,) if self.inverted else ())


_DEFAULTS = {f.name: f.default for f in dataclasses.fields(Situation)}
FIELDS: tuple[Field, ...] = (
    Field("self_drawn", FLAG, "自摸: won on a self-drawn tile (default: on a discard)"),
    Field("seat_wind", WIND, "门风, the winner's seat wind (default E)"),
    Field("prevalent_wind", WIND, "圈风, the prevalent (round) wind (default E)", ("round_wind",)),
    Field("last_tile", FLAG, "won on the last tile (妙手回春 self-drawn, 海底捞月 on the last discard; Sichuan 海底)"),
    Field("kong_replacement", FLAG, "杠上开花 / 杠上花: won on a kong's replacement tile (self-drawn, with a kong)"),
    Field("robbing_kong", FLAG, "抢杠和 / 抢杠: won on the tile another player added to a pung (never self-drawn)"),
    Field("last_copy", FLAG, "和绝张: the winning tile is the last copy"),
    Field(
        "winning_tile_apart",
        FLAG,
        "the winning tile was set apart (default true). Not set apart: no 边/坎/钓 in any profile "
        "(mcr-wmo-2006.txt 3.4.28), nor 绝张/九莲宝灯 in the competition profiles (行牌 16)",
        inverted="winning_tile_not_apart",
    ),
    Field(
        "heavenly_win",
        FLAG,
        "天和: East's self-drawn win on the first 14 tiles (competition profiles)",
        ("heavenly_hand",),
    ),
    Field("earthly_win", FLAG, "地和: a win on East's first discard (competition profiles)", ("earthly_hand",)),
    Field("human_win", FLAG, "人和: ready from the deal, never changed (competition profiles)", ("human_hand",)),
    Field("void_suit", SUIT, "Sichuan 定缺: the void suit, m p or s (refused under MCR)"),
    Field("after_kong_discard", FLAG, "Sichuan 杠上炮: won on the discard right after the discarder's kong"),
)
BY_NAME: dict[str, Field] = {n: f for f in FIELDS for n in f.names}  # every name a mapping may give -> its field
CANONICAL: tuple[str, ...] = tuple(f.name for f in FIELDS)
NAMES = frozenset(BY_NAME)  # canonical and old names
OLD_NAMES: dict[str, str] = {n: f.name for f in FIELDS for n in f.names[1:]}  # old name -> canonical name

_TRUE, _FALSE = frozenset(("true", "1", "yes", "on")), frozenset(("false", "0", "no", "off"))
_WIND_WORDS = {
    word: T.EAST + i
    for i, words in enumerate(
        (("e", "east", "1z", "东"), ("s", "south", "2z", "南"), ("w", "west", "3z", "西"), ("n", "north", "4z", "北"))
    )
    for word in words
}
_SUIT_WORDS = {
    **dict.fromkeys(("m", "man", "万"), T.MAN),
    **dict.fromkeys(("p", "pin", "饼", "筒"), T.PIN),
    **dict.fromkeys(("s", "sou", "条", "索"), T.SOU),
}
_WANT = {FLAG: "want true or false", WIND: "want E, S, W or N", SUIT: "want m, p or s"}


class BadValue(ValueError):
    """A value that is not one of its field's words; the message says what is wanted (without the field's name)."""


def read_value(field: Field, value: object, text: bool = False) -> Any:
    """One field's value -> the Situation's (a bool, a wind's tile id, a suit or None); BadValue if it is none of
    the field's words."""
    if text and _blank(value):
        return field.default
    if field.kind == FLAG:
        if isinstance(value, bool):
            return value
        if text and isinstance(value, str):
            word = value.strip().lower()
            if word in _TRUE or word in _FALSE:
                return word in _TRUE
    elif isinstance(value, str):
        got = (_WIND_WORDS if field.kind == WIND else _SUIT_WORDS).get(value.strip().lower())
        if got is not None:
            return got
    elif isinstance(value, int) and not isinstance(value, bool):
        if value in (T.WINDS if field.kind == WIND else (T.MAN, T.PIN, T.SOU)):
            return value
    elif value is None and field.kind == SUIT:
        return None
    raise BadValue(f"{_WANT[field.kind]}, got {shown(value)}")


def _blank(value: object) -> bool:
    """A value that, read as text, is not given: None or an empty word."""
    return value is None or (isinstance(value, str) and not value.strip())


def fold_inverted(fields: Mapping[str, object], text: bool = False) -> dict[str, object]:
    """The mapping with each inverted old name (winning_tile_not_apart) replaced by its canonical name and the
    opposite value; SituationError when both are given or the value is not a flag."""
    out = dict(fields)
    for f in FIELDS:
        if f.inverted is None or f.inverted not in out:
            continue
        if f.name in out:
            raise SituationError(twice(f.inverted))
        value = out.pop(f.inverted)
        if text and _blank(value):  # not given: the default
            continue
        try:
            out[f.name] = not read_value(f, value, text)
        except BadValue as e:
            raise SituationError(f"{f.inverted}: {e}") from None
    return out


def read_fields(fields: Mapping[str, object], text: bool = False) -> dict[str, Any]:
    """The fields of a mapping (canonical or old names; every other key refused) -> the Situation's keywords.

    SituationError names the first problem in the order the pydantic model names them: an inverted old name, then
    each field in the table's order, then a name it does not know or a field given twice."""
    out: dict[str, Any] = {}
    try:  # one pass over what is given (a JSON line's few fields); a problem is named by _first_problem
        for name, value in fields.items():
            f = BY_NAME[name]
            v = read_value(f, value, text)
            if f.name in out:
                raise KeyError(name)
            if name == f.inverted and not (text and _blank(value)):
                v = not v
            out[f.name] = v
    except (KeyError, BadValue):
        _first_problem(fields, text)
    return out


def _first_problem(fields: Mapping[str, object], text: bool) -> None:
    """SituationError for the first problem of these fields, in the pydantic model's order."""
    given = fold_inverted(fields, text)
    used = set()
    for f in FIELDS:
        name = next((n for n in f.names if n in given), None)
        if name is not None:
            used.add(name)
            try:
                read_value(f, given[name], text)
            except BadValue as e:
                raise SituationError(f"{name}: {e}") from None
    for name in given:
        if name not in used:
            raise SituationError(twice(name) if name in BY_NAME else unknown([name]))
    raise AssertionError(f"no problem found in {sorted(fields)}")  # read_fields saw one: never reached


def twice(name: str) -> str:
    f = BY_NAME[name]
    old = "the old name (the opposite)" if name == f.inverted else "the old name"
    return f"{name}: {old} of {f.name}, given together with it: give {f.name} alone"


def unknown(names: list[str]) -> str:
    """The line refusing names that are no situation field's."""
    return f"unknown situation field(s) {shown(', '.join(names))} (known: {', '.join(CANONICAL)})"


def situation_from_fields(fields: Mapping[str, object], text: bool = False) -> Situation:
    """A Situation from a mapping of its fields (pydantic-free: JSON hand lines); SituationError in one line."""
    return Situation(**read_fields(fields, text))


def fields_of(sit: Situation) -> dict[str, object]:
    """A Situation in the canonical words (winds as letters, the void suit as a letter, left out when None)."""
    out: dict[str, object] = {}
    for f in FIELDS:
        v = getattr(sit, f.name)
        if f.kind == WIND:
            out[f.name] = T.WIND_NAMES[v - T.EAST]
        elif f.kind == SUIT:
            if v is not None:
                out[f.name] = T.SUIT_LETTERS[v]
        else:
            out[f.name] = v
    return out
