"""Corrections to labels of the shared real photo sets, each checked by eye and kept as data.

A fix names a photo, the labelled box's centre (normalised, as in its YOLO file), the kind it was labelled and
the kind the tile shows, with the evidence (the corner index and the face printed on the tile). Every fix must
meet exactly one label row: a fix that meets none is stale and is refused, so that a changed export is noticed.
The files live in ``datasets/labels/fixes/<dataset>.csv``.
"""
from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from mjtable.scoring.notation import parse_tiles

FIXES = Path(__file__).resolve().parent / "labels" / "fixes"
NEAR = 0.01                 # a fix meets a row whose box centre lies this close (normalised) in x and in y


@dataclass(frozen=True)
class Fix:
    image: str
    x: float
    y: float
    was: int                # tile ids (mjtable.scoring.tiles)
    now: int
    evidence: str


class StaleFix(ValueError):
    """A fix that meets no label row, or more than one."""


def _tile(code: str) -> int:
    (t,) = parse_tiles(code)
    return t


def load_fixes(dataset: str, folder: Path = FIXES) -> dict[str, list[Fix]]:
    """The fixes of one dataset by image name ({} when it has none)."""
    path = folder / f"{dataset}.csv"
    out: dict[str, list[Fix]] = {}
    if not path.exists():
        return out
    with path.open(encoding="utf-8", newline="") as f:
        for r in csv.DictReader(f):
            fix = Fix(r["image"], float(r["x"]), float(r["y"]), _tile(r["was"]), _tile(r["now"]), r["evidence"])
            out.setdefault(fix.image, []).append(fix)
    return out


def apply_fixes(rows: list[str], fixes: list[Fix]) -> list[str]:
    """YOLO rows (tile id first) with each fix applied to the one row it meets; StaleFix when a fix meets none
    or several."""
    rows = list(rows)
    for fix in fixes:
        hits = [i for i, r in enumerate(rows) if _meets(r.split(), fix)]
        if len(hits) != 1:
            raise StaleFix(f"label fix {fix.image} ({fix.x}, {fix.y}) meets {len(hits)} rows, not one")
        v = rows[hits[0]].split()
        rows[hits[0]] = " ".join([str(fix.now)] + v[1:])
    return rows


def refuse_unmet(fixes: dict[str, list[Fix]], src) -> None:
    """StaleFix when fixes (by photo name) are left that no photo of ``src`` took: a changed export."""
    if fixes:
        raise StaleFix(f"label fixes for photos not in {src}: {', '.join(sorted(fixes))}")


def _meets(v: list[str], fix: Fix) -> bool:
    return (len(v) == 5 and int(v[0]) == fix.was and abs(float(v[1]) - fix.x) <= NEAR
            and abs(float(v[2]) - fix.y) <= NEAR)
