"""The fan table as data, and the ``@fan`` decorator that puts each row next to its predicate.

A row: number in the 1998 national table (house fans of the competition variant use 101+), a stable id,
Chinese and English names, the point value, and ``excludes`` — the 不计 list of the 1998 table
(shared/rules/mcr-1998-table.txt). An ``excludes`` entry is a fan id (not counted at all) or
``(fan id, n)`` (n occurrences not counted, e.g. the one 幺九刻 inside 九莲宝灯).

A predicate takes the evaluation context (see ``context.Ctx``) and returns how many times the fan occurs
(0 = absent; True counts as 1). Its ``group`` says which part of the context it reads, so that the engine
can cache a group's results on that part alone (``Ctx.group_key``).

``needs`` and ``forms`` say when a predicate can return anything but 0: at least so many chows / pungs (kongs
included) / kongs / concealed pungs in the reading, and one of the named forms. The scorer skips a predicate whose
conditions the reading does not meet; ``tests/test_mcr_fast.py`` checks on random hands that no predicate ever
scores outside them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

_ROWS: dict[str, FanDef] = {}


@dataclass(frozen=True)
class FanDef:
    number: int
    id: str
    name_cn: str
    name_en: str
    value: int
    excludes: tuple = ()
    family: str = ""
    predicate: Callable | None = None
    house: bool = False  # only in profiles that enable the competition variant's extra fans
    group: str = "hand"  # what the predicate reads (see context.Ctx.group_key); results cached per group
    implied: tuple = ()  # house fans: fans the row implies by the 不重复原则 beyond its printed 不计 list
    needs: tuple = (0, 0, 0, 0)  # at least (chows, pungs incl. kongs, kongs, concealed pungs) for a non-zero result
    forms: tuple = ()  # the forms (shapes.Candidate.form) it can occur in; () = any

    @property
    def excludes_ids(self) -> tuple:
        return tuple(e if isinstance(e, str) else e[0] for e in self.excludes)


NEEDS = ("chows", "pungs", "kongs", "concealed_pungs")


def fan(
    number: int,
    id_: str,
    name_cn: str,
    name_en: str,
    value: int,
    excludes: tuple = (),
    house: bool = False,
    group: str = "hand",
    implied: tuple = (),
    needs: dict | None = None,
    forms: tuple = (),
):
    """Register a table row with the decorated predicate. ``group`` names the part of the context the
    predicate reads ("tiles", "sets", "winds", "situation", "waits"; "hand" = anything, never cached);
    ``needs`` ({"chows": 3} ...) and ``forms`` when it can score at all."""
    if needs and set(needs) - set(NEEDS):
        raise ValueError(f"fan {id_}: unknown needs {sorted(set(needs) - set(NEEDS))}")
    need = tuple((needs or {}).get(k, 0) for k in NEEDS)

    def deco(pred):
        if id_ in _ROWS:
            raise ValueError(f"fan {id_} registered twice")
        family = pred.__module__.rsplit(".", 1)[-1].removeprefix("fans_")
        _ROWS[id_] = FanDef(
            number,
            id_,
            name_cn,
            name_en,
            value,
            tuple(excludes),
            family,
            pred,
            house,
            group,
            tuple(implied),
            need,
            tuple(forms),
        )
        return pred

    return deco


def row(
    number: int,
    id_: str,
    name_cn: str,
    name_en: str,
    value: int,
    excludes: tuple = (),
    family: str = "",
    house: bool = False,
):
    """Register a row that has no predicate (无番和, flowers and adjustments are computed by the engine)."""
    _ROWS[id_] = FanDef(number, id_, name_cn, name_en, value, tuple(excludes), family, None, house)


def all_rows() -> dict[str, FanDef]:
    return _ROWS
