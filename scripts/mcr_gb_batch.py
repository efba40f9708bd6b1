"""The reference engine pymahjonggb over a JSON-lines hands file, as one process (benchmark use only).

    python scripts/mcr_gb_batch.py hands.jsonl > results.jsonl

The counterpart of ``mjtable batch`` for ``scripts/bench_mcr_oracle.py``: it reads the same lines (the notation
form that ``mjtable.scoring.jsonio.hand_to_dict`` writes), turns each into pymahjonggb's arguments as
``mjtable.scoring.mcr.reference`` does, scores it and writes ``{"line": n, "total": t, "fans": {english name: count}}``
(``"total": null`` when pymahjonggb says it is not a win). It imports nothing from mjtable, so that the process
pays only for Python, the JSON module and pymahjonggb, and it is run as a file, not as ``-m scripts...``.
"""
from __future__ import annotations

import json
import sys

from MahjongGB import MahjongFanCalculator

_SUIT = {"m": "W", "p": "B", "s": "T"}           # pymahjonggb: W characters, B dots (饼), T bamboo (条)
_HONOR = ("F1", "F2", "F3", "F4", "J3", "J2", "J1")   # E S W N, White=J3 Green=J2 Red=J1
_OFFER = {"<": 3, "^": 2, ">": 1}
_WIND = {"E": 0, "S": 1, "W": 2, "N": 3}


def _tiles(group: str) -> list:
    """``"123m11z"`` -> pymahjonggb tile names (flowers ``f`` give ``"f"``)."""
    out, digits = [], ""
    for ch in group:
        if ch.isdigit():
            digits += ch
            continue
        for d in digits:
            r = 5 if d == "0" else int(d)
            out.append(_HONOR[r - 1] if ch == "z" else "f" if ch == "f" else _SUIT[ch] + str(r))
        digits = ""
    return out


def ref_args(d: dict) -> dict:
    hand, packs, win, flowers = [], [], None, 0
    for tok in d["hand"].split():
        if tok[0] == "[":
            body = tok[1:-1].rstrip("+")
            mark = body[-1] if body[-1] in _OFFER else None
            ts = _tiles(body[:-1] if mark else body)
            if len(ts) == 4:
                packs.append(("GANG", ts[0], _OFFER[mark] if mark else 0))
            elif ts[0] == ts[1]:
                packs.append(("PENG", ts[0], _OFFER[mark]))
            else:
                packs.append(("CHI", ts[1], 1))
        elif tok[0] == "+":
            win = _tiles(tok[1:])[0]
        else:
            for t in _tiles(tok):
                if t == "f":
                    flowers += 1
                else:
                    hand.append(t)
    return dict(pack=tuple(packs), hand=tuple(hand), winTile=win, flowerCount=flowers,
                isSelfDrawn=d.get("self_drawn", False), is4thTile=d.get("last_copy", False),
                isAboutKong=d.get("kong_replacement", False) or d.get("robbing_kong", False),
                isWallLast=d.get("last_tile", False), seatWind=_WIND[d.get("seat_wind", "E")],
                prevalentWind=_WIND[d.get("prevalent_wind", "E")])


def main(path: str) -> int:
    out = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            try:
                fans = MahjongFanCalculator(**ref_args(json.loads(line)), verbose=True)
            except TypeError:
                out.append(json.dumps({"line": n, "total": None}))
                continue
            out.append(json.dumps({"line": n, "total": sum(v * c for v, c, _, _ in fans),
                                   "fans": {en: c for _, c, _, en in fans}}, ensure_ascii=False))
    sys.stdout.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
