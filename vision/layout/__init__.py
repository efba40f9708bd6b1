"""Layout parser: tile detections -> what lies on the table (mjtable.scoring.table.TableState).

Split by what it reads (imports flow down this list):

* ``base``: the tunable numbers (``LayoutParams``), the errors, and the Layout / Placed results;
* ``geometry``: the shared geometry every stage reads boxes through (tiles in a rotated frame, the row direction,
  rows, groups, sideways tiles, medians), public names only;
* ``duplicates``: the same tile found twice, a box astride two, a shadow found as a tile;
* ``melds``: melds and the seats they were claimed from;
* ``flowers``: flowers and seasons;
* ``winning``: the winning tile set apart, and which way a hand row reads;
* ``phone``: the phone view (one player's finished hand);
* ``seats``, ``rivers``, ``overhead``: the overhead view (four seats, their hands, melds, flowers and rivers);
* ``hand``: a player's area as a Hand for the rule engines.

``parse(detections, kind, frame, params)`` is the entry point; base's docstring tells how a frame is read. No module
imports another's private (``_``) name: what two stages share is public in the module that owns it.
"""
from __future__ import annotations

from typing import Optional

from ..types import Detection
from .base import OVERHEAD, PHONE, HandError, Layout, LayoutError, LayoutParams, Placed, current_params
from .hand import table_to_hand
from .overhead import parse_overhead
from .phone import parse_phone

__all__ = ["parse", "parse_phone", "parse_overhead", "table_to_hand", "Layout", "Placed", "LayoutError",
           "HandError", "LayoutParams", "current_params", "PHONE", "OVERHEAD"]


def parse(dets: list[Detection], kind: str = PHONE, frame: Optional[tuple[int, int]] = None,
          params: Optional[LayoutParams] = None) -> Layout:
    """frame: the image's (width, height), when known; params: the layout's tunable numbers (None: the defaults,
    or those of a parse under way)."""
    if kind == PHONE:
        return parse_phone(dets, frame, params)
    if kind == OVERHEAD:
        return parse_overhead(dets, params)
    raise ValueError(f"unknown frame kind {kind!r} (phone or overhead)")
