"""Text notation for tiles and hands, both ways.

Tiles use the common ``123m456p789s1234567z`` style (m = characters, p = dots, s = bamboo,
z = honours 1-7 = East South West North White Green Red) and ``1f..8f`` for flowers
(spring summer autumn winter plum orchid chrysanthemum bamboo). ``0`` is read as a red five (5).

A hand is whitespace-separated groups:

    123m456p11z [345m<] [777z^] [1111m>] [5555p] +6p 15f

* plain groups: the concealed tiles (flowers written here go to the flowers);
* ``[...]``: a meld; the mark says where the claimed tile came from:
  ``<`` left player (上家), ``^`` across (对家), ``>`` right player (下家).
  Four tiles with no mark are a concealed kong; ``[1111m>+]`` is a kong added to a pung.
* ``+X``: the winning tile (exactly one tile).
"""

from __future__ import annotations

import re

from mjtable.errors import BadHandError, shown

from . import tiles as T
from .hand import ACROSS, CHOW, KONG, LEFT, PUNG, RIGHT, Hand, Meld, Situation


class NotationError(BadHandError, ValueError):
    """Bad notation; the message names the offending token."""


MAX_LENGTH = 300  # characters; a hand with four kongs, eight flowers and every mark fits in well under 100
_MARKS = {"<": LEFT, "^": ACROSS, ">": RIGHT}
_MARK_OF = {v: k for k, v in _MARKS.items()}


def _check_length(text: str) -> None:
    if len(text) > MAX_LENGTH:
        raise NotationError(f"notation too long: {len(text)} characters (at most {MAX_LENGTH})")


# per suit letter: digit -> tile id ("0" is a red five in the suits)
_DIGITS = {
    ch: {str(r): T.make(su, r) for r in range(1, (9 if su < T.HONOR else 7 if su == T.HONOR else 8) + 1)}
    for su, ch in enumerate(T.SUIT_LETTERS)
}
for _su in (T.MAN, T.PIN, T.SOU):
    _DIGITS[T.SUIT_LETTERS[_su]]["0"] = T.make(_su, 5)
_GROUP = re.compile(r"([0-9]+)([mpszf])")
_TEXT = tuple(str(T.rank(t)) for t in range(T.BACK))  # tile id -> its digit ...
_LETTER = tuple(T.SUIT_LETTERS[T.suit(t)] for t in range(T.BACK))  # ... and its suit letter


def parse_tiles(text: str) -> list[int]:
    """``"123m11z2f"`` -> tile ids, in one pass. Raises NotationError naming the bad token."""
    _check_length(text)
    s = text.replace(" ", "")
    out: list[int] = []
    end = 0
    try:
        for m in _GROUP.finditer(s):
            if m.start() != end:
                break
            lut = _DIGITS[m.group(2)]
            out += [lut[d] for d in m.group(1)]
            end = m.end()
    except KeyError:  # a digit that is no tile of its suit
        end = -1
    if end != len(s):
        _bad_tiles(text)
    return out


def _bad_tiles(text: str) -> None:
    """Raise the NotationError that names the first bad token of ``text``."""
    s = text.replace(" ", "")
    start = 0  # where the pending digit group began
    for i, ch in enumerate(s):
        if ch.isascii() and ch.isdigit():
            continue
        if ch not in T.SUIT_LETTERS or i == start:
            raise NotationError(f"bad tile token {shown(s[start : i + 1])} in {shown(text)}")
        for d in s[start:i]:
            if d not in _DIGITS[ch]:
                raise NotationError(f"bad tile token {shown(d + ch)} in {shown(text)}: no such tile")
        start = i + 1
    raise NotationError(
        f"bad tile token {shown(s[start:])} in {shown(text)} (a digit group must end with m, p, s, z or f)"
    )


def format_tiles(tiles) -> str:
    """Tile ids -> compact notation, in the given order (consecutive tiles of a suit share a letter)."""
    out: list[str] = []
    run = None
    for t in tiles:
        if t == T.BACK:
            raise NotationError("a face-down tile has no notation")
        letter = _LETTER[t]
        if letter != run and run is not None:
            out.append(run)
        out.append(_TEXT[t])
        run = letter
    if run is not None:
        out.append(run)
    return "".join(out)


def format_sorted(tiles) -> str:
    return format_tiles(sorted(tiles))


def parse_meld(token: str) -> Meld:
    """``"[345m<]"`` -> Meld."""
    if not (token.startswith("[") and token.endswith("]")):
        raise NotationError(f"bad meld {shown(token)}: write melds as [345m<], [777z^], [1111m>] or [1111m]")
    body = token[1:-1]
    added = body.endswith("+")
    if added:
        body = body[:-1]
    source = None
    if body and body[-1] in _MARKS:
        source = _MARKS[body[-1]]
        body = body[:-1]
    try:
        ts = parse_tiles(body)
    except NotationError as e:
        raise NotationError(f"bad meld {shown(token)}: {e}") from None
    ts.sort()
    if any(T.is_flower(t) for t in ts):
        raise NotationError(f"bad meld {shown(token)}: flowers cannot be melded")
    if len(ts) == 3 and ts[0] == ts[1] == ts[2]:
        kind = PUNG
    elif T.is_run(ts):
        kind = CHOW
    elif len(ts) == 4 and len(set(ts)) == 1:
        kind = KONG
    else:
        raise NotationError(f"bad meld {shown(token)}: not a chow, pung or kong")
    if source is None and kind != KONG:
        raise NotationError(f"bad meld {shown(token)}: a melded {kind} needs its source mark < ^ or >")
    if added and (kind != KONG or source is None):
        raise NotationError(f"bad meld {shown(token)}: '+' (added kong) only goes on a melded kong")
    return Meld(kind, ts[0], concealed=source is None, source=source, added=added)


def format_meld(m: Meld) -> str:
    mark = "" if m.concealed else "?" if m.source is None else _MARK_OF.get(m.source, "?")
    return f"[{format_tiles(m.tiles)}{mark}{'+' if m.added else ''}]"


_MELDS: dict = {}  # meld notation -> Meld (immutable, shared)


def parse_hand(text: str, situation: Situation | None = None) -> Hand:
    """Parse the hand notation described in the module docstring."""
    _check_length(text)
    concealed: list[int] = []
    flowers: list[int] = []
    melds: list[Meld] = []
    winning = None
    for tok in text.split():
        if tok.startswith("["):
            m = _MELDS.get(tok)
            if m is None:
                m = parse_meld(tok)
                if len(_MELDS) < 4096:  # a few hundred distinct melds exist: a bounded table of them
                    _MELDS[tok] = m
            melds.append(m)
        elif tok.startswith("+"):
            ts = parse_tiles(tok[1:])
            if len(ts) != 1 or T.is_flower(ts[0]):
                raise NotationError(f"bad winning tile {shown(tok)}: write exactly one playing tile, e.g. +6p")
            if winning is not None:
                raise NotationError(f"second winning tile {shown(tok)}")
            winning = ts[0]
        else:
            ts = parse_tiles(tok)
            if ts and max(ts) < T.N_KINDS:
                concealed += ts
            else:
                for t in ts:
                    (flowers if T.is_flower(t) else concealed).append(t)
    if not concealed and not melds and winning is None:
        raise NotationError(f"no tiles in {shown(text)}")
    return Hand(tuple(concealed), tuple(melds), winning, tuple(flowers), situation or Situation())


def format_hand(h: Hand) -> str:
    parts = []
    if h.concealed:
        parts.append(format_sorted(h.concealed))
    parts += [format_meld(m) for m in h.melds]
    if h.winning_tile is not None:
        parts.append("+" + format_tiles([h.winning_tile]))
    if h.flowers:
        parts.append(format_sorted(h.flowers))
    return " ".join(parts)


def chinese_tiles(tiles) -> str:
    return " ".join(T.chinese(t) for t in tiles)


def chinese_hand(h: Hand) -> str:
    src: dict[str | None, str] = {LEFT: "上家", ACROSS: "对家", RIGHT: "下家"}  # None: KeyError, as any bad source
    parts = ["手牌: " + chinese_tiles(sorted(h.concealed))]
    for m in h.melds:
        kind = {"chow": "吃", "pung": "碰", "kong": "杠"}[m.kind]
        where = "暗杠" if m.concealed else f"{kind}({src[m.source]})"
        parts.append(f"{where}: {chinese_tiles(m.tiles)}")
    if h.winning_tile is not None:
        parts.append("和张: " + T.chinese(h.winning_tile))
    if h.flowers:
        parts.append("花: " + chinese_tiles(sorted(h.flowers)))
    return "; ".join(parts)
