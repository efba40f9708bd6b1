"""A player's area on the table as a Hand for the rule engines."""
from __future__ import annotations

from dataclasses import replace

from mjtable.scoring import tiles as T
from mjtable.scoring.hand import Hand, Situation
from mjtable.scoring.table import (
    PlayerArea,
)

from .base import HandError


def table_to_hand(area: PlayerArea, situation: Situation | None = None) -> Hand:
    """Turn one player's area into a Hand for the rule engines.

    The winning tile is the one set apart; if none was set apart the last tile of the concealed row
    (reading order) is taken and ``situation.winning_tile_apart`` is set False.
    Raises HandError if a meld could not be read or there is no concealed part at all.
    """
    situation = situation or Situation()
    bad = [m for m in area.melds if m.meld is None]
    if bad:
        desc = " ".join("[" + " ".join("back" if t is None else T.code(t) for t in m.tiles) + "]" for m in bad)
        raise HandError(f"could not read meld(s) {desc}")
    concealed = list(area.concealed or ())
    winning = area.winning_tile
    apart = area.winning_tile_apart and winning is not None
    if winning is None:
        if not concealed:
            raise HandError("no concealed tiles and no winning tile")
        winning = concealed.pop()
    return Hand(tuple(concealed), tuple(m.meld for m in area.melds), winning, tuple(area.flowers),
                replace(situation, winning_tile_apart=apart))
