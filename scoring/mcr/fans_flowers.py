"""Flower points (花牌) and 无番和: rows the engine fills in itself, not per-reading predicates.

Flowers: 1 point each, added after the hand has reached the 8-point minimum (they never count toward it);
a flower replacement that wins is 自摸, not 杠上开花. 无番和: the hand scores no fan at all (flowers aside).
"""

from __future__ import annotations

from .fantable import row

row(43, "chicken_hand", "无番和", "Chicken Hand", 8, family="flowers")
row(82, "flowers", "花牌", "Flower Tiles", 1, family="flowers")
# competition profile only: the 幺九刻 already inside 字一色/混幺九, taken off each honour-pung fan (核分实例 3)
row(110, "implied_terminal_pung", "幺九刻减计", "Implied Terminal Pung", -1, family="flowers", house=True)
