"""The fan table as data, and the ``@fan`` decorator that puts each row next to its predicate.

A row: number in the 1998 national table (house fans of the competition variant use 101+), a stable id,
Chinese and English names, the point value, and ``excludes`` — the 不计 list of the 1998 table
(shared/rules/mcr-1998-table.txt). An ``excludes`` entry is a fan id (not counted at all) or
``(fan id, n)`` (n occurrences not counted, e.g. the one 幺九刻 inside 九莲宝灯).

A predicate takes the evaluation context (see ``context.Ctx``) and returns how many times the fan occurs
(0 = absent; True counts as 1). Its ``group`` says which part of the context it reads, so that the engine
can cache a group's results on that part alone (``Ctx.group_key``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

_ROWS: dict[str, "FanDef"] = {}


@dataclass(frozen=True)
class FanDef:
    number: int
    id: str
    name_cn: str
    name_en: str
    value: int
    excludes: tuple = ()
    family: str = ""
    predicate: Optional[Callable] = None
    house: bool = False          # only in profiles that enable the competition variant's extra fans
    group: str = "hand"          # what the predicate reads (see context.Ctx.group_key); results cached per group
    implied: tuple = ()          # house fans: fans the row implies by the 不重复原则 beyond its printed 不计 list

    @property
    def excludes_ids(self) -> tuple:
        return tuple(e if isinstance(e, str) else e[0] for e in self.excludes)


def fan(number: int, id_: str, name_cn: str, name_en: str, value: int, excludes: tuple = (), house: bool = False,
        group: str = "hand", implied: tuple = ()):
    """Register a table row with the decorated predicate. ``group`` names the part of the context the
    predicate reads ("tiles", "sets", "winds", "situation", "waits"; "hand" = anything, never cached)."""
    def deco(pred):
        if id_ in _ROWS:
            raise ValueError(f"fan {id_} registered twice")
        family = pred.__module__.rsplit(".", 1)[-1].removeprefix("fans_")
        _ROWS[id_] = FanDef(number, id_, name_cn, name_en, value, tuple(excludes), family, pred, house, group,
                            tuple(implied))
        return pred
    return deco


def row(number: int, id_: str, name_cn: str, name_en: str, value: int, excludes: tuple = (), family: str = "",
        house: bool = False):
    """Register a row that has no predicate (无番和, flowers and adjustments are computed by the engine)."""
    _ROWS[id_] = FanDef(number, id_, name_cn, name_en, value, tuple(excludes), family, None, house)


def all_rows() -> dict[str, FanDef]:
    return _ROWS
