"""Layout parser: tile detections -> what lies on the table (mjtable.scoring.table.TableState).

Split by what it reads (imports flow down this list):

* ``base``: the tunables, the errors, and the Layout / Placed results;
* ``rows``: rows and orientation (duplicates, the row direction, rows, groups, sideways tiles);
* ``melds``: melds and the seats they were claimed from;
* ``flowers``: flowers and seasons;
* ``winning``: the winning tile set apart, and which way a hand row reads;
* ``phone``: the phone view (one player's finished hand);
* ``seats``, ``rivers``, ``overhead``: the overhead view (four seats, their hands, melds, flowers and rivers);
* ``hand``: a player's area as a Hand for the rule engines.

``parse(detections, kind, frame)`` is the entry point; base's docstring tells how a frame is read.
"""
from __future__ import annotations

from typing import Optional

from ..types import Detection
from .base import OVERHEAD, PHONE, HandError, Layout, LayoutError, Placed
from .hand import table_to_hand
from .overhead import parse_overhead
from .phone import parse_phone
from .rivers import _count_touching, _main_run
from .rows import _Tile

__all__ = ["parse", "parse_phone", "parse_overhead", "table_to_hand", "Layout", "Placed", "LayoutError",
           "HandError", "PHONE", "OVERHEAD", "_count_touching", "_main_run", "_Tile"]


def parse(dets: list[Detection], kind: str = PHONE, frame: Optional[tuple[int, int]] = None) -> Layout:
    """frame: the image's (width, height), when known."""
    if kind == PHONE:
        return parse_phone(dets, frame)
    if kind == OVERHEAD:
        return parse_overhead(dets)
    raise ValueError(f"unknown frame kind {kind!r} (phone or overhead)")
