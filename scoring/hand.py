"""Plain dataclasses for a finished hand and its situation (input to every rule engine)."""

from __future__ import annotations

from dataclasses import dataclass, field

from . import tiles as T

CHOW, PUNG, KONG = "chow", "pung", "kong"
MELD_KINDS = (CHOW, PUNG, KONG)
# Where a claimed tile came from, relative to the player who melded it.
LEFT, ACROSS, RIGHT = "left", "across", "right"  # 上家, 对家, 下家
SOURCES = (LEFT, ACROSS, RIGHT)


@dataclass(frozen=True)
class Meld:
    """A declared set lying on the table.

    ``tile`` is the lowest tile of a chow, or the tile of a pung/kong.
    ``concealed`` is True only for a concealed kong (暗杠); every other meld was claimed
    and has ``source`` = the seat the claimed tile came from (left/across/right).
    ``claimed`` optionally says which tile of a chow was claimed (a tile id).
    ``added`` marks a kong made by adding a self-drawn tile to a melded pung (加杠).
    """

    kind: str
    tile: int
    concealed: bool = False
    source: str | None = None
    claimed: int | None = None
    added: bool = False

    @property
    def tiles(self) -> tuple[int, ...]:
        if self.kind == CHOW:
            return (self.tile, self.tile + 1, self.tile + 2)
        return (self.tile,) * (4 if self.kind == KONG else 3)

    def validate(self) -> None:
        """Raise ValueError with a readable reason if the meld cannot exist."""
        if self.kind not in MELD_KINDS:
            raise ValueError(f"unknown meld kind {self.kind!r}")
        if not 0 <= self.tile < T.N_KINDS:
            raise ValueError(f"meld tile {self.tile} is not a playing tile")
        if self.kind == CHOW and (not T.is_suited(self.tile) or T.rank(self.tile) > 7):
            raise ValueError(f"chow cannot start at {T.code(self.tile)}")
        if self.concealed and self.kind != KONG:
            raise ValueError("only a kong can be declared concealed")
        if not self.concealed and self.source not in SOURCES:
            raise ValueError(f"melded {self.kind} needs a source seat (left/across/right), got {self.source!r}")
        if self.claimed is not None and self.claimed not in self.tiles:
            raise ValueError(f"claimed tile {T.code(self.claimed)} is not in the meld")


@dataclass(frozen=True)
class Situation:
    """How the hand was won. Winds are tile ids (T.EAST..T.NORTH).

    The field names are the situation's vocabulary in every front end; they are read, old names included, by
    mjtable.scoring.situation_model (situation_fields.FIELDS)."""

    self_drawn: bool = False  # 自摸
    seat_wind: int = T.EAST  # 门风
    prevalent_wind: int = T.EAST  # 圈风
    last_tile: bool = False  # 妙手回春 (self-drawn) / 海底捞月 (discard)
    kong_replacement: bool = False  # 杠上开花
    robbing_kong: bool = False  # 抢杠和
    last_copy: bool = False  # 和绝张: the winning tile is the 4th copy visible
    winning_tile_apart: bool = True  # the winning tile was set apart (competition profile)
    heavenly_win: bool = False  # 天和: dealer wins on the first 14 tiles (competition profile)
    earthly_win: bool = False  # 地和: wins on the dealer's first discard (competition profile)
    human_win: bool = False  # 人和: ready from the deal, never changed (competition profile)
    # Sichuan only
    void_suit: int | None = None  # 定缺 suit (T.MAN/T.PIN/T.SOU)
    after_kong_discard: bool = False  # 杠上炮: won on a discard made right after the discarder's kong


@dataclass(frozen=True)
class Hand:
    """A finished (or claimed-finished) hand.

    ``concealed`` holds the standing tiles *without* the winning tile; ``winning_tile`` is separate.
    """

    concealed: tuple[int, ...]
    melds: tuple[Meld, ...] = ()
    winning_tile: int | None = None
    flowers: tuple[int, ...] = ()
    situation: Situation = field(default_factory=Situation)

    def all_tiles(self) -> list[int]:
        """Every playing tile of the hand (concealed + melds + winning tile), kongs counted as 4."""
        out = list(self.concealed)
        for m in self.melds:
            out.extend(m.tiles)
        if self.winning_tile is not None:
            out.append(self.winning_tile)
        return out

    def counts(self) -> list[int]:
        c = [0] * T.N_KINDS
        for t in self.all_tiles():
            c[t] += 1
        return c

    def problems(self) -> list[str]:
        """Reasons this hand cannot be a complete 14(+kongs)-tile hand; empty if the shape is possible."""
        out: list[str] = []
        for m in self.melds:
            try:
                m.validate()
            except ValueError as e:
                out.append(str(e))
        for t in list(self.concealed) + ([self.winning_tile] if self.winning_tile is not None else []):
            if not 0 <= t < T.N_KINDS:
                out.append(f"{T.code(t) if 0 <= t <= T.BACK else t} cannot stand in a hand")
        for f in self.flowers:
            if not T.is_flower(f):
                out.append(f"{T.code(f)} is not a flower")
        if len(set(self.flowers)) != len(self.flowers):
            out.append("a flower appears twice")
        if out:
            return out
        if self.winning_tile is None:
            out.append("no winning tile")
        n_kong = sum(m.kind == KONG for m in self.melds)
        n = len(self.all_tiles())
        if n != 14 + n_kong:
            out.append(f"wrong tile count: {n} tiles with {n_kong} kong(s), a finished hand has {14 + n_kong}")
        for t, c in enumerate(self.counts()):
            if c > 4:
                out.append(f"{c} copies of {T.code(t)} ({T.chinese(t)}); a set has 4")
        return out
