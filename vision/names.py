"""Map another data set's class names to the project's tile ids (mjtable.scoring.tiles), and read its names file.

Accepted names (case, spaces, ``_`` and ``-`` are ignored), for every tile:

* project notation ``1m``..``9m`` ``1p``.. ``1s``.. ``1z``..``7z`` ``1f``..``8f`` (``0m`` ``0p`` ``0s`` = red five);
* letter first ``m1``..``m9`` ``p1``.. ``s1``.. ``z1``..``z7`` (z1-z4 = E S W N, z5 white, z6 green, z7 red)
  ``f1``..``f8``;
* riichi style ``1man``..``9man`` ``1pin``.. ``1sou``.. ``east south west north haku hatsu chun`` (also ``man1``,
  ``ton nan sha pei``);
* Chinese style ``1wan`` ``1tong``/``1bing`` ``1tiao``, ``dong nan xi bei``, ``zhong fa bai``, and the Chinese names
  (一万 五饼 五筒 三条 三索 东风 东 红中 中 发财 白板 春 梅 ...);
* English ``1crak`` ``1character(s)`` ``1dot(s)`` ``1bam`` ``1bamboo``, ``white green red`` (also ``white dragon``,
  ``east wind``), flowers ``spring summer autumn winter plum orchid chrysanthemum bamboo``;
* ``back`` / ``face down`` / 牌背 for a face-down tile.

A names file is the usual ultralytics ``data.yaml`` (``names:`` as a list, or a mapping ``{0: 5m, ...}`` — the
mapping form is also the way to give an explicit mapping), or a JSON file with the same ``names`` key.
Only the small YAML subset such files use is read (no PyYAML at run time).
"""
from __future__ import annotations

import re
from pathlib import Path

from mjtable.scoring import tiles as T

MAX_NAMES_BYTES = 1 << 20           # a names file lists 43 classes at most: a few KB


class NamesError(ValueError):
    """A names file or class name we cannot use; the message says which."""


def _norm(name: str) -> str:
    return re.sub(r"[\s_\-]+", "", str(name).strip().lower())


_SUIT_WORDS = {
    T.MAN: ("m", "man", "wan", "crak", "character", "characters", "万"),
    T.PIN: ("p", "pin", "tong", "bing", "dot", "dots", "饼", "筒"),
    T.SOU: ("s", "sou", "tiao", "bam", "bamboo", "条", "索"),
}
_HONOR_WORDS = (
    ("east", "ton", "dong", "eastwind", "东", "東"),
    ("south", "nan", "southwind", "南"),
    ("west", "sha", "xi", "westwind", "西"),
    ("north", "pei", "bei", "northwind", "北"),
    ("white", "haku", "bai", "whitedragon", "白"),
    ("green", "hatsu", "fa", "greendragon", "发", "發"),
    ("red", "chun", "zhong", "reddragon", "中"),
)
_FLOWER_WORDS = ("spring", "summer", "autumn", "winter", "plum", "orchid", "chrysanthemum", "bamboo")
_BACK_WORDS = ("back", "facedown", "牌背")


def _build_table() -> dict[str, int]:
    table: dict[str, int] = {}

    def add(name: str, tile: int) -> None:
        key = _norm(name)
        if table.get(key, tile) != tile:
            raise AssertionError(f"name {name!r} would mean two tiles")
        table[key] = tile

    for t in range(T.N_TILES):
        letter, r = T.SUIT_LETTERS[T.suit(t)], T.rank(t)
        add(f"{r}{letter}", t)
        add(f"{letter}{r}", t)
        add(T.chinese(t), t)
    for su, words in _SUIT_WORDS.items():
        for w in words:
            for r in range(1, 10):
                add(f"{r}{w}", T.make(su, r))
                add(f"{w}{r}", T.make(su, r))
            add(f"0{w}", T.make(su, 5))            # red five
            add(f"{w}0", T.make(su, 5))
    for i, words in enumerate(_HONOR_WORDS):
        for w in words:
            add(w, T.EAST + i)
    for i, w in enumerate(_FLOWER_WORDS):
        add(w, T.FLOWERS[i])
    for w in _BACK_WORDS:
        add(w, T.BACK)
    return table


NAME_TABLE = _build_table()


def tile_of(name: str) -> int | None:
    """Tile id (0..41) or T.BACK for a class name in any accepted scheme, None if unknown."""
    return NAME_TABLE.get(_norm(name))


def _index(k):
    try:
        return int(k)
    except (TypeError, ValueError):
        return None


def map_names(names) -> dict[int, int]:
    """``names`` (list, or dict index -> name) -> {dataset class index: tile id}.

    Raises NamesError listing every name it does not know.
    """
    if isinstance(names, dict):
        items = []
        for k, v in names.items():
            try:
                items.append((int(k), v))
            except (TypeError, ValueError):
                raise NamesError(f"class index {k!r} is not a number") from None
        twice = sorted({k for k, _ in items if sum(k == j for j, _ in items) > 1})
        if twice:
            given = ", ".join(repr(k) for k in names if _index(k) == twice[0])
            raise NamesError(f"class index {twice[0]} is given more than once (as {given})")
    elif isinstance(names, (list, tuple)):
        items = list(enumerate(names))
    else:
        raise NamesError("names must be a list or a mapping {index: name}")
    if not items:
        raise NamesError("no class names given")
    out, unknown = {}, []
    for k, v in items:
        t = tile_of(v) if isinstance(v, (str, int)) else None
        if t is None:
            unknown.append(f"{k}: {v!r}")
        else:
            out[k] = t
    if unknown:
        raise NamesError("unknown class name(s) " + ", ".join(unknown)
                         + " (use names like 1m / m1 / 1man / east / haku / 1f / back, "
                           "or give an explicit mapping names: {0: 5m})")
    return out


# ---------------------------------------------------------------- names file (tiny YAML subset or JSON)

_COMMENT = re.compile(r"(^|\s)#.*$")
_TOP_KEY = re.compile(r"^([A-Za-z_][\w\-]*)\s*:(.*)$")


def _strip_comment(line: str) -> str:
    return _COMMENT.sub("", line).rstrip()


def _scalar(s: str) -> str:
    s = s.strip()
    if len(s) >= 2 and s[0] == s[-1] and s[0] in "'\"":
        return s[1:-1]
    return s


def _flow(text: str):
    text = text.strip()
    body = text[1:-1].strip()
    parts = [p for p in (x.strip() for x in body.split(",")) if p] if body else []
    if text[0] == "[":
        return [_scalar(p) for p in parts]
    out = {}
    for p in parts:
        if ":" not in p:
            raise NamesError(f"bad entry {p!r} in names mapping (want index: name)")
        k, v = p.split(":", 1)
        out[_scalar(k)] = _scalar(v)
    return out


def parse_yaml_names(text: str):
    """``names`` (list or dict) and ``nc`` (int or None) from the text of a data.yaml."""
    lines = text.splitlines()
    nc = None
    names = None
    i = 0
    while i < len(lines):
        line = _strip_comment(lines[i])
        m = _TOP_KEY.match(line)
        i += 1
        if not m:
            continue
        key, rest = m.group(1), m.group(2).strip()
        if key == "nc":
            try:
                nc = int(_scalar(rest))
            except ValueError:
                raise NamesError(f"nc: {rest!r} is not a number") from None
        if key != "names":
            continue
        if rest.startswith(("[", "{")):
            close = "]" if rest[0] == "[" else "}"
            buf = rest
            while not buf.rstrip().endswith(close) and i < len(lines):
                buf += " " + _strip_comment(lines[i]).strip()
                i += 1
            if not buf.rstrip().endswith(close):
                raise NamesError(f"names: unclosed {rest[0]!r}")
            names = _flow(buf)
        elif rest:
            raise NamesError(f"names: must be a list or a mapping, got {rest!r}")
        else:
            items: list = []
            mapping: dict = {}
            while i < len(lines):
                raw = _strip_comment(lines[i])
                if not raw.strip():
                    i += 1
                    continue
                if not raw[0].isspace() and not raw.startswith("-"):
                    break                       # next top-level key
                s = raw.strip()
                i += 1
                if s.startswith("-"):
                    items.append(_scalar(s[1:]))
                elif ":" in s:
                    k, v = s.split(":", 1)
                    mapping[_scalar(k)] = _scalar(v)
                else:
                    raise NamesError(f"cannot read names entry {s!r}")
            if items and mapping:
                raise NamesError("names: mixes list items and mapping entries")
            names = items or mapping
    if names is None:
        raise NamesError("no 'names:' key found")
    return names, nc


def load_names(path) -> dict[int, int]:
    """Read a names file (data.yaml or JSON) -> {dataset class index: tile id}. Raises NamesError."""
    from mjtable.scoring.jsonio import JsonInputError, loads

    from .labels import read_text_file
    path = Path(path)
    text = read_text_file(path, MAX_NAMES_BYTES, NamesError, "names file")
    nc = None
    if path.suffix.lower() == ".json" or text.lstrip().startswith(("{", "[")) and _looks_json(text):
        try:
            obj = loads(text)
        except JsonInputError as e:
            raise NamesError(f"{path}: bad JSON: {str(e).removeprefix('invalid JSON: ')}") from None
        names = obj.get("names") if isinstance(obj, dict) and "names" in obj else obj
        nc = obj.get("nc") if isinstance(obj, dict) else None
    else:
        try:
            names, nc = parse_yaml_names(text)
        except NamesError as e:
            raise NamesError(f"{path}: {e}") from None
    try:
        mapping = map_names(names)
    except NamesError as e:
        raise NamesError(f"{path}: {e}") from None
    if nc is not None and (isinstance(nc, bool) or not isinstance(nc, int)):
        raise NamesError(f"{path}: nc: want the number of classes, got {nc!r}")
    if nc is not None and nc != len(mapping):
        raise NamesError(f"{path}: nc is {nc} but {len(mapping)} names are given")
    return mapping


def _looks_json(text: str) -> bool:
    from mjtable.scoring.jsonio import JsonInputError, loads
    try:
        loads(text)
        return True
    except JsonInputError:
        return False
