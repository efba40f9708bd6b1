"""A league's archive of recorded games -> one Parquet row per hand: the items, how each is read, the output.

``mjtable archive`` (mjtable.archive.run) finds the items here, has each read by ``process`` on a Dask
worker, and writes what comes back with ``write_part``; ``combine`` then gathers the parts into ``hands.parquet``
and the per-game ``summary.parquet`` / ``summary.json``. Nothing here imports Dask; pyarrow only where Parquet is
written or read.

An item is one file: a photo (one row: its hand, or the table's findings), a video (one row per hand laid down,
with its frame and time), or a hand file (one row per line: text notation, or a JSON object as ``mjtable batch``
reads it). Its key is a hash of its source (the input folder's name and the path under it), size and
modification time: a changed file is a new item, and its new rows replace the old ones. A symbolic link under an
input folder is followed only when it leads to a file inside that folder; rows name files by their source, never
by the path the worker opened.

Output folder::

    parts/<key>.parquet      one per finished item, written atomically (temporary file, fsync, rename): it is
                             the item's done-marker, so a re-run skips it and a retried task cannot add rows twice
    hands.parquet            every part's rows, one per hand (SCHEMA)
    summary.parquet, .json   one row per game: items, hands, wins, errors, points by seat wind
"""
from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional

from mjtable import pipeline
from mjtable.errors import InputError, MjtableError, OutputError
from mjtable.outputs import check_outputs, write_atomic

PHOTO_EXT = frozenset({".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff"})
VIDEO_EXT = frozenset({".mp4", ".avi", ".mkv", ".mov", ".webm", ".m4v", ".mpg", ".mpeg"})
HANDS_EXT = frozenset({".jsonl", ".txt", ".hands"})
MAX_HAND_FILE = 16 << 20          # bytes; a larger hand file is refused as one error row
STATUSES = ("win", "not_win", "no_hand", "unreadable", "error")
WIND_CODES = ("E", "S", "W", "N")


# ------------------------------------------------------------------------------------------ items


@dataclass(frozen=True)
class Item:
    path: str              # as the workers open it (absolute)
    source: str            # input folder's name / path under it (POSIX), or the file's name
    game: str              # a video or a hand file is its own game; a photo belongs to its folder
    kind: str              # photo, video or hands
    size: int
    mtime_ns: int

    @property
    def key(self) -> str:
        h = hashlib.sha256(f"{self.source}\0{self.size}\0{self.mtime_ns}".encode("utf-8", "surrogateescape"))
        return h.hexdigest()[:24]


def kind_of(path: Path) -> Optional[str]:
    ext = path.suffix.lower()
    return "photo" if ext in PHOTO_EXT else "video" if ext in VIDEO_EXT else "hands" if ext in HANDS_EXT else None


def _item(path: Path, source: str, kind: str) -> Item:
    st = path.stat()
    game = source if kind != "photo" else (source.rsplit("/", 1)[0] if "/" in source else ".")
    return Item(str(path.resolve()), source, game, kind, st.st_size, st.st_mtime_ns)


def _add(items: dict[str, Item], it: Item) -> None:
    """An item, once: a second input giving the same source is the same file, or refused (InputError)."""
    seen = items.setdefault(it.source, it)
    if seen.path != it.path:
        raise InputError(f"{seen.path} and {it.path} would both be recorded as {it.source}: give folders or "
                         f"files with different names")


def discover(inputs: Iterable[str | os.PathLike]) -> tuple[list[Item], int, int]:
    """The items under the inputs (files, or folders walked in name order; hidden names skipped), how many
    files were passed over for an unknown extension, and how many symbolic links were passed over because they
    lead out of their input folder (a link to a folder is never walked). InputError (exit 3) for an input that
    does not exist or is neither a file nor a folder, or for two files that would have the same source."""
    items: dict[str, Item] = {}
    skipped = outside = 0
    for given in inputs:
        p = Path(given)
        if p.is_file():
            kind = kind_of(p)
            if kind is None:
                raise InputError(f"{p}: not a photo, video or hand file (extensions: "
                                 f"{' '.join(sorted(PHOTO_EXT | VIDEO_EXT | HANDS_EXT))})")
            _add(items, _item(p, p.name, kind))
        elif p.is_dir():
            root = p.resolve()
            for folder, dirs, files in os.walk(root):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(files):
                    f = Path(folder, name)
                    if name.startswith(".") or not f.is_file():
                        continue
                    if f.is_symlink() and not f.resolve().is_relative_to(root):
                        outside += 1
                        continue
                    kind = kind_of(f)
                    if kind is None:
                        skipped += 1
                        continue
                    source = f"{root.name}/{f.relative_to(root).as_posix()}"
                    _add(items, _item(f, source, kind))
        elif p.exists():
            raise InputError(f"{p}: not a regular file or a folder")
        else:
            raise InputError(f"{p}: no such file or folder")
    return sorted(items.values(), key=lambda it: it.source), skipped, outside


# ------------------------------------------------------------------------------------------ reading one item


@dataclass(frozen=True)
class Options:
    rules: str = "mcr"
    profile: Optional[str] = None
    kind: str = "auto"             # photos and videos: auto, phone or overhead
    every: float = 1.0             # videos: seconds between sampled frames
    hold: int = 2
    max_frames: Optional[int] = None
    threads: int = 1               # onnxruntime threads per worker process


_DETECTORS: dict[int, object] = {}     # one detector per worker process, loaded on its first photo or video
_LOADING = threading.Lock()


def _detector(threads: int):
    with _LOADING:                       # a worker with several threads loads it once
        if threads not in _DETECTORS:
            _DETECTORS[threads] = pipeline.load_detector(threads)
        return _DETECTORS[threads]


def process(item: Item, opt: Options) -> list[dict]:
    """Read one item -> its rows (never none). An input that cannot be read gives one error row; an unexpected
    exception is raised, for the scheduler to retry the item."""
    t0 = time.perf_counter()
    try:
        if item.kind == "photo":
            rows = _photo(item, opt)
        elif item.kind == "video":
            rows = _video(item, opt)
        else:
            rows = _hand_file(item, opt)
    except MjtableError as e:
        rows = [error_row(item, str(e))]
    ms = (time.perf_counter() - t0) * 1000 / len(rows)
    for i, r in enumerate(rows):
        r["index"] = i
        r["ms"] = round(ms, 2)
    return rows


def _photo(item: Item, opt: Options) -> list[dict]:
    from mjtable.errors import UnreadableError

    img, stretched = pipeline.load_frame(item.path)
    try:
        out = pipeline.read_image(img, _detector(opt.threads), pipeline.situation(), opt.rules, opt.profile,
                                  opt.kind, stretched=stretched)
    except UnreadableError as e:
        return [_row(item, status="unreadable", error=str(e))]
    return [reading_row(item, out)]


def _video(item: Item, opt: Options) -> list[dict]:
    from mjtable.errors import UnreadableError

    try:
        rd, hands = pipeline.read_video_hands(item.path, _detector(opt.threads), pipeline.situation(), opt.rules,
                                              opt.profile, opt.kind, opt.every, opt.hold, opt.max_frames)
    except UnreadableError as e:
        return [_row(item, status="unreadable", error=str(e))]
    rows = []
    for e, out in hands:
        where = {"frame": e.frame, "time_s": round(e.time_s, 3)} if e is not None else {}
        if isinstance(out, MjtableError):
            rows.append(_row(item, status="error", error=str(out), **where))
        else:
            rows.append(reading_row(item, out, confidence=None, **where))
    return rows


def _hand_file(item: Item, opt: Options) -> list[dict]:
    """One row per hand line; a line that is not UTF-8 text is an error row of its own, the others are read."""
    p = Path(item.path)
    try:
        if p.stat().st_size > MAX_HAND_FILE:
            raise InputError(f"{item.source}: hand file larger than {MAX_HAND_FILE >> 20} MB")
        data = p.read_bytes()
    except OSError as e:
        raise InputError(f"{item.source}: cannot read: {e.strerror or e}") from None
    rows = []
    for n, raw in enumerate(data.splitlines(), 1):
        try:
            s = raw.decode("utf-8").strip()
        except UnicodeDecodeError as e:
            rows.append(_row(item, status="error", line=n,
                             error=f"{item.source} line {n}: not UTF-8 text ({e.reason} at column {e.start + 1})"))
            continue
        if not s or s.startswith("#"):
            continue
        try:
            if s.startswith("{"):
                out, ident = _json_hand(s, opt)
            else:
                out, ident = pipeline.read_notation(s, pipeline.situation(), opt.rules, opt.profile), None
            rows.append(reading_row(item, out, confidence=1.0, line=n, hand_id=ident))
        except MjtableError as e:
            rows.append(_row(item, status="error", error=str(e), line=n))
    return rows or [_row(item, status="error", error=f"{item.source}: no hand in the file")]


def _json_hand(text: str, opt: Options):
    """One JSON line as ``mjtable batch`` reads it (mjtable.scoring.jsonio) -> (Reading, its id)."""
    from mjtable.errors import BadHandError
    from mjtable.scoring.jsonio import JsonInputError, hand_from_dict, loads

    try:
        d = loads(text)
    except JsonInputError as e:
        raise BadHandError(str(e)) from None
    ident = d.get("id") if isinstance(d, dict) else None
    if isinstance(d, dict):
        d = {"rules": opt.rules, **d}
        if "profile" not in d and opt.profile and d["rules"] == opt.rules:
            d["profile"] = opt.profile
    try:
        hand, rules, profile = hand_from_dict(d)
    except JsonInputError as e:
        raise BadHandError(str(e)) from None
    out = pipeline.review(pipeline.table_from_hand(hand), hand.situation, rules, profile)
    problems = out.result.problems if out.result is not None else hand.problems()
    if problems:
        raise BadHandError("impossible hand: " + "; ".join(problems))
    if out.hand is None:
        out.hand = hand
    return out, None if ident is None else str(ident)


# ------------------------------------------------------------------------------------------ rows


def _row(item: Item, **kw) -> dict:
    if kw.get("error"):                 # a message naming the file by the path the worker opened names its source
        kw["error"] = kw["error"].replace(item.path, item.source)
    row = {"source": item.source, "game": item.game, "item_key": item.key, "kind": item.kind, "index": 0,
           "line": None, "hand_id": None, "frame": None, "time_s": None, "status": "error", "error": None,
           "rules": None, "profile": None, "seat": None, "seat_wind": None, "seats": [], "hand": None,
           "is_win": None, "score": None, "base": None, "fans": [], "payments": [], "findings": [],
           "confidence": None, "detail": None, "ms": None}
    row.update(kw)
    return {k: _text(v) if isinstance(v, str) else v for k, v in row.items()}


def _text(s: str) -> str:
    """A string as the rows store it: a file name's bytes that are not UTF-8 (held as surrogates) written as
    backslash escapes (Parquet and JSON take only UTF-8: one such name had stopped the whole run)."""
    try:
        s.encode("utf-8")
        return s
    except UnicodeEncodeError:
        return s.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def error_row(item: Item, message: str, **kw) -> dict:
    """The row recording an item (or one of its hands) that could not be read."""
    return _row(item, status="error", error=message, **kw)


def reading_row(item: Item, out, confidence="tiles", **kw) -> dict:
    """A mjtable.pipeline.Reading -> one row. ``confidence``: "tiles" (from the tiles read), or a
    value (1.0 for a typed hand, None for a video's settled table)."""
    from mjtable.scoring import tiles as T
    from mjtable.scoring.jsonio import fan_to_dict, finding_to_dict
    from mjtable.scoring.notation import format_hand

    from mjtable.vision.video import value_text
    d = out.to_dict()
    r = out.result
    status = "no_hand" if r is None else "win" if r.is_win else "not_win"
    if r is None and out.kind != "overhead" and item.kind == "photo":
        status = "unreadable"                    # a phone photo whose hand cannot be scored (exit 4 alone)
    seats = [{"seat": p.seat, "hand": None if p.concealed is None else value_text("concealed", p.concealed),
              "face_down": p.concealed_face_down, "melds": value_text("melds", p.melds),
              "flowers": value_text("flowers", p.flowers), "river": value_text("discards", p.discards),
              "exposed": value_text("exposed", p.exposed)} for p in out.table.players]
    if confidence == "tiles":
        confidence = _confidence(d, out.seat)
    sit = out.situation
    return _row(item, status=status, error=(r.reason if r is not None and not r.is_win else out.note) or None,
                rules=out.rules, profile=out.profile, seat=out.seat,
                seat_wind=WIND_CODES[sit.seat_wind - T.EAST], seats=seats,
                hand=None if out.hand is None else format_hand(out.hand),
                is_win=None if r is None else r.is_win, score=None if r is None else r.total,
                base=None if r is None else r.base,
                fans=[] if r is None else [{k: f[k] for k in ("name_cn", "name_en", "value", "count", "points")}
                                           for f in map(fan_to_dict, r.fans)],
                payments=[] if r is None else [{"who": k, "points": int(v)} for k, v in r.payments.items()],
                findings=[{k: f[k] for k in ("kind", "severity", "seat", "message", "clause", "penalty")}
                          for f in map(finding_to_dict, out.findings)],
                confidence=None if confidence is None else round(float(confidence), 4),
                detail=json.dumps(d, ensure_ascii=False, allow_nan=False), **kw)


def _confidence(d: dict, seat: Optional[str]) -> Optional[float]:
    """The lowest probability among the tiles of the scored hand; with no scored hand, the mean over every tile
    read; None when no tile was read."""
    tiles = d.get("tiles") or []
    if seat is not None:
        mine = [t["p"] for t in tiles if t["seat"] == seat and
                (t["group"] in ("concealed", "winning", "flower") or t["group"].startswith("meld:"))]
        if mine:
            return min(mine)
    return sum(t["p"] for t in tiles) / len(tiles) if tiles else None


def schema():
    """The Parquet schema of a hand row (hands.parquet, parts/*.parquet)."""
    import pyarrow as pa
    s = pa.string()
    return pa.schema([
        ("source", s), ("game", s), ("item_key", s), ("kind", s), ("index", pa.int32()), ("line", pa.int32()),
        ("hand_id", s), ("frame", pa.int64()), ("time_s", pa.float64()), ("status", s), ("error", s),
        ("rules", s), ("profile", s), ("seat", s), ("seat_wind", s),
        ("seats", pa.list_(pa.struct([("seat", s), ("hand", s), ("face_down", pa.int32()), ("melds", s),
                                      ("flowers", s), ("river", s), ("exposed", s)]))),
        ("hand", s), ("is_win", pa.bool_()), ("score", pa.int32()), ("base", pa.int32()),
        ("fans", pa.list_(pa.struct([("name_cn", s), ("name_en", s), ("value", pa.int32()), ("count", pa.int32()),
                                     ("points", pa.int32())]))),
        ("payments", pa.list_(pa.struct([("who", s), ("points", pa.int32())]))),
        ("findings", pa.list_(pa.struct([("kind", s), ("severity", s), ("seat", s), ("message", s),
                                         ("clause", s), ("penalty", s)]))),
        ("confidence", pa.float64()), ("detail", s), ("ms", pa.float64()),
    ])


# ------------------------------------------------------------------------------------------ output


PARTS = "parts"
OUTPUTS = ("hands.parquet", "summary.parquet", "summary.json")


def prepare_out(out: str | os.PathLike) -> Path:
    """The output folder, created if need be, with its parts/ folder; a temporary file left by an interrupted
    run is removed. OutputError (exit 8) when it cannot be written."""
    d = Path(out)
    parts = d / PARTS
    if parts.is_symlink() or parts.exists() and not parts.is_dir():
        raise OutputError(f"cannot write to {parts}: it is {'a symbolic link' if parts.is_symlink() else 'no folder'}"
                          f"; the parts are written in a folder of the output's own")
    try:
        (d / PARTS).mkdir(parents=True, exist_ok=True)
        # only this command's own (outputs.write_atomic's ".NAME.XXXX.tmp"): the folder may hold the user's files
        for tmp in (d / PARTS).glob(".*.parquet.*.tmp"):
            tmp.unlink()
        for tmp in (t for name in OUTPUTS for t in d.glob(f".{name}.*.tmp")):
            tmp.unlink()
    except OSError as e:
        raise OutputError(f"cannot write to {d}: {e.strerror or e}") from None
    if not os.access(d / PARTS, os.W_OK | os.X_OK):
        raise OutputError(f"cannot write to {d / PARTS}: permission denied")
    check_outputs([d / name for name in OUTPUTS])     # before any item is read, not once all are
    return d


def done_keys(out: Path) -> set[str]:
    """The keys of the items whose part is written: they are done. A part that cannot be read (emptied or cut
    short on the disk, not by this command: it writes each whole or not at all) is removed, and its item read
    again."""
    import pyarrow.parquet as pq
    done = set()
    for p in (out / PARTS).glob("*.parquet"):
        try:
            pq.read_metadata(p)
            done.add(p.stem)
        except (OSError, ValueError):       # pyarrow's ArrowInvalid is a ValueError
            p.unlink(missing_ok=True)
    return done


def error_keys(out: Path, keys: Iterable[str]) -> set[str]:
    """Of these done items, those with an error row (``--retry-errors`` reads them again)."""
    import pyarrow.parquet as pq
    bad = set()
    for k in keys:
        status = pq.read_table(out / PARTS / f"{k}.parquet", columns=["status"]).column("status").to_pylist()
        if "error" in status:
            bad.add(k)
    return bad


def _write_table(path: Path, table) -> None:
    import pyarrow.parquet as pq
    write_atomic(path, lambda f: pq.write_table(table, f), fsync=True)


def write_part(out: Path, key: str, rows: list[dict]) -> None:
    """One finished item's rows, as parts/<key>.parquet (atomically: the part is there whole, or not at all)."""
    import pyarrow as pa
    _write_table(out / PARTS / f"{key}.parquet", pa.Table.from_pylist(rows, schema=schema()))


def combine(out: Path, items: Iterable[Item] = ()) -> dict:
    """Gather every part into hands.parquet and the per-game summary (summary.parquet, summary.json). When a
    source has parts under several keys (the file changed since), the one of ``items`` is kept, else the newest,
    and the others are removed. Returns the totals."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    current = {it.key for it in items}
    by_source: dict[str, list[tuple[bool, int, Path, object]]] = {}
    for p in sorted((out / PARTS).glob("*.parquet")):
        t = pq.read_table(p, schema=schema())
        src = t.column("source")[0].as_py() if t.num_rows else p.stem
        by_source.setdefault(src, []).append((p.stem in current, p.stat().st_mtime_ns, p, t))
    tables = []
    for src in sorted(by_source):
        keep, *stale = sorted(by_source[src], key=lambda x: (x[0], x[1]), reverse=True)
        tables.append(keep[3])
        for *_, p, _t in stale:
            p.unlink(missing_ok=True)
    hands = pa.concat_tables(tables) if tables else schema().empty_table()
    _write_table(out / "hands.parquet", hands)
    games = summarize(hands)
    _write_table(out / "summary.parquet", pa.Table.from_pylist(games, schema=summary_schema()))
    totals = {k: sum(g[k] for g in games) for k in ("items", "hands", "wins", "errors")}
    totals["rows"] = hands.num_rows
    doc = {"games": games, "total": totals}
    write_atomic(out / "summary.json", (json.dumps(doc, ensure_ascii=False, indent=1) + "\n").encode("utf-8"),
                 fsync=True)
    return totals


def up_to_date(out: Path) -> Optional[dict]:
    """The totals of summary.json when hands.parquet and the summary are newer than every part (nothing to
    gather again), else None."""
    try:
        oldest = min((out / n).stat().st_mtime_ns for n in OUTPUTS)
        if any(p.stat().st_mtime_ns > oldest for p in (out / PARTS).glob("*.parquet")):
            return None
        return json.loads((out / "summary.json").read_text(encoding="utf-8"))["total"]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def summarize(hands) -> list[dict]:
    """One short summary per game: its items, hands read, wins, hands not a win, unreadable items or hands,
    error rows, and the winning hands' points by the winner's seat wind (门风)."""
    cols = hands.select(["game", "source", "status", "seat_wind", "score"]).to_pylist()
    games: dict[str, dict] = {}
    for r in cols:
        g = games.setdefault(r["game"], {"game": r["game"], "items": set(), "hands": 0, "wins": 0, "not_wins": 0,
                                         "no_hand": 0, "unreadable": 0, "errors": 0,
                                         **{f"points_{w}": 0 for w in WIND_CODES}})
        g["items"].add(r["source"])
        st = r["status"]
        g["hands"] += st in ("win", "not_win")
        g["wins"] += st == "win"
        g["not_wins"] += st == "not_win"
        g["no_hand"] += st == "no_hand"
        g["unreadable"] += st == "unreadable"
        g["errors"] += st == "error"
        if st == "win" and r["seat_wind"] in WIND_CODES and r["score"] is not None:
            g[f"points_{r['seat_wind']}"] += r["score"]
    return [{**g, "items": len(g["items"])} for _, g in sorted(games.items())]


def summary_schema():
    import pyarrow as pa
    return pa.schema([("game", pa.string())] + [(k, pa.int64()) for k in (
        "items", "hands", "wins", "not_wins", "no_hand", "unreadable", "errors")] +
        [(f"points_{w}", pa.int64()) for w in WIND_CODES])
