"""What a referee sees on the table: output of the layout parser, input of the audit.

Seats are absolute positions around the table as seen by the camera/referee:
``self`` (the photographed player, or the bottom of an overhead frame), ``right``, ``across``, ``left``.
For a phone photo only the ``self`` area is filled.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .hand import ACROSS, LEFT, RIGHT, Meld

SEATS = ("self", "right", "across", "left")  # counter-clockwise from the bottom of the frame
SEAT_ANGLE = {"self": 0.0, "right": 90.0, "across": 180.0, "left": 270.0}  # counter-clockwise on screen


def source_of_sideways(sideways: int, n: int) -> str:
    """The seat a claimed tile came from, by where it lies sideways in a meld of n tiles (from the owner's
    point of view): first = the left player, last = the right player, any tile between = across."""
    if not 0 <= sideways < n:
        raise ValueError(f"sideways index {sideways} outside a meld of {n}")
    return LEFT if sideways == 0 else RIGHT if sideways == n - 1 else ACROSS


def sideways_index(source: str, n: int) -> int:
    """Where the claimed tile lies in a meld of n tiles claimed from ``source`` (the inverse of
    source_of_sideways; from across it lies second)."""
    return {LEFT: 0, ACROSS: 1, RIGHT: n - 1}[source]


@dataclass(frozen=True)
class MeldOnTable:
    """A meld as it lies: its tiles left to right (from the owner's point of view).

    ``tiles``: tile id per position, or None where the tile lies face down.
    ``sideways``: index of the tile lying sideways (the claimed tile), or None.
    ``meld``: the interpreted meld (source seat from the sideways position), None if it could not be read.
    """

    tiles: tuple[int | None, ...]
    sideways: int | None = None
    meld: Meld | None = None


@dataclass
class PlayerArea:
    seat: str = "self"
    concealed: tuple[int, ...] | None = None  # standing/laid-down hand, None if not shown
    concealed_face_down: int = 0  # hand tiles seen only from the back
    melds: tuple[MeldOnTable, ...] = ()
    winning_tile: int | None = None
    winning_tile_apart: bool = True  # was it set apart from the hand
    flowers: tuple[int, ...] = ()
    discards: tuple[int, ...] = ()  # river, in order (rows of 6, left to right)
    exposed: tuple[int, ...] = ()  # face-up tiles lying where they should not (暴露张)
    declared_win: bool = False
    void_suit: int | None = None  # Sichuan 定缺


@dataclass
class TableState:
    players: list[PlayerArea] = field(default_factory=list)
    rules: str = "mcr"  # "mcr" or "sichuan"
    unplaced: list[str] = field(default_factory=list)  # what the layout parser could not place, in words

    def player(self, seat: str) -> PlayerArea | None:
        for p in self.players:
            if p.seat == seat:
                return p
        return None
