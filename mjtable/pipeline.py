"""The one pipeline: frame -> detections -> layout -> hand -> score + findings.

Every front end calls this module: the CLI (photo, score, audit, video), the Python API (``mjtable.read``,
``mjtable.score``) and the web server. Each stage takes and returns plain dataclasses:

    img = load_image("photo.jpg")                       # BGR uint8 array (InputError if unreadable)
    view = locate(img, detector, kind="auto")           # View: detections, the kind decided, the Layout
    reading = review(view.layout.table, situation, rules, profile, layout=view.layout)
    reading.hand, reading.result, reading.findings      # the hand, its ScoreResult, the audit's Findings

``read_image`` and ``read_notation`` chain them. Errors are the typed errors of ``mjtable.errors``, each with
its exit code; ``verdict`` turns a reading without a winning hand into the right one.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Optional

from mjtable.errors import BadHandError, NotAWinError, UnreadableError, UsageError, shown
from mjtable.scoring import tiles as T
from mjtable.scoring.engines import RULES, resolve_profile
from mjtable.scoring.hand import Hand, Situation
from mjtable.scoring.notation import NotationError, parse_hand
from mjtable.scoring.result import Finding, ScoreResult
from mjtable.scoring.rulings import Facts, check_facts, fact_findings, grade
from mjtable.scoring.situation import check as check_situation
from mjtable.scoring.table import MeldOnTable, PlayerArea, TableState, sideways_index

if TYPE_CHECKING:                    # the image path's types; imported when a frame is read, not for a typed hand
    import numpy as np

    from mjtable.vision.locate import View
    from mjtable.vision.trust import Trust
    from mjtable.vision.types import Detection

# The frame -> layout stage is vision's (mjtable.vision.locate); its names are the pipeline's too, imported on
# first use so that a typed hand (read_notation) loads no numpy, OpenCV or vision code.
_LAZY = {**dict.fromkeys(("KINDS", "NO_TILES_ADVICE", "load_image", "load_frame", "FileDetector", "load_detector",
                           "View", "UnknownKind", "check_kind", "locate", "MAX_COORD", "MAX_BOXES", "MAX_DEPTH",
                           "MAX_DETECTIONS_BYTES"), "mjtable.vision.locate"),
         "DOUBT": "mjtable.vision.types"}         # DOUBT: a tile of the scored hand read with less is doubtful


def __getattr__(name: str):
    if name in _LAZY:
        import importlib
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


HAND_GROUPS = ("concealed", "winning", "flower")    # and "meld:<i>": the groups a scored hand is made of


# ------------------------------------------------------------------------------------------ inputs


def situation(**fields) -> Situation:
    """How the hand was won, from keywords (mjtable.scoring.situation_model: one name each, docs/python-api.md):
    ``situation(seat_wind="S", self_drawn=True)``. SituationError (a UsageError, exit code 2) for an unknown name
    or a bad value."""
    from mjtable.scoring.situation_model import situation as read
    return read(fields)


def check_rules(rules: str, profile: Optional[str]) -> str:
    """The engine's profile name for (rules, profile); UsageError for an unknown one."""
    if rules not in RULES:
        raise UsageError(f"unknown rules {shown(rules)} (known: {', '.join(RULES)})")
    return resolve_profile(rules, profile)



@dataclass(frozen=True)
class Doubt:
    """A tile of the scored hand the classifier was unsure of, with its next likeliest kinds."""
    group: str                                   # concealed, winning, flower or meld:<i>
    kind: int
    p: float
    alternatives: tuple[tuple[int, float], ...]
    flower_p: float = 0.0                        # > 0: read as no flower, but likely some flower or season

    @property
    def level(self) -> float:
        """The probability the doubt is judged by (vision.types.doubt_level): 0.0, doubtful at any limit, for a
        tile likely some flower or season."""
        from mjtable.vision.types import doubt_level
        return doubt_level(self.kind, self.p, self.flower_p)

    def __str__(self) -> str:
        alt = ", ".join(f"{T.code(k)} {q:.2f}" for k, q in self.alternatives)
        flower = f"; a flower or season {self.flower_p:.2f}" if self.flower_p else ""
        return f"{T.code(self.kind)} ({self.group}) read with p {self.p:.2f}" + (f"; or {alt}" if alt else "") \
            + flower


@dataclass
class Reading:
    """Everything one run found: what lies on the table, the hand, its score, the findings, the timings."""
    rules: str
    profile: str
    situation: Situation
    table: TableState
    layout: object = None                  # mjtable.vision.layout.Layout for a frame
    hand: Optional[Hand] = None
    result: Optional[ScoreResult] = None
    seat: Optional[str] = None             # whose hand was scored
    note: str = ""                         # why there is no hand / how it was read
    findings: list[Finding] = field(default_factory=list)
    review: object = None                  # mjtable.scoring.audit.Review, reused by the referee report
    ms: dict[str, float] = field(default_factory=dict)
    trust: Optional[Trust] = None          # how far a frame's reading can be relied on (None: nothing read)
    legal: object = None                   # mjtable.vision.legal.LegalReading: what the rules allow, if not this

    @property
    def doubts(self) -> list[Doubt]:
        """The tiles of the scored hand read with doubt (vision.types.is_doubtful): the score depends on them."""
        from mjtable.vision.types import DOUBT
        return self.doubts_under(DOUBT)

    def doubts_under(self, limit: float) -> list[Doubt]:
        """The face-up tiles of the scored hand read with a probability under ``limit``, or read as no flower
        while likely some flower or season (vision.types.is_doubtful)."""
        from mjtable.vision.types import is_doubtful, likely_flower
        if self.layout is None or self.seat is None or self.hand is None:
            return []
        out = []
        for p in self.layout.placed:
            if p.seat != self.seat or not (p.group in HAND_GROUPS or p.group.startswith("meld:")):
                continue
            p_kind, others = _belief(p.det)
            if p.det.kind != T.BACK and is_doubtful(p.det.kind, p_kind, p.det.flower_p, limit):
                flower = p.det.flower_p if likely_flower(p.det.kind, p.det.flower_p) else 0.0
                out.append(Doubt(p.group, p.det.kind, p_kind, others, flower))
        return out

    @property
    def kind(self) -> Optional[str]:
        return None if self.layout is None else self.layout.kind

    def to_dict(self) -> dict:
        """The JSON object that ``mjtable --json`` prints."""
        from mjtable.scoring.jsonio import (
            findings_to_dict,
            hand_to_dict,
            result_to_dict,
        )
        d = {"rules": self.rules, "profile": self.profile, "seat": self.seat,
             "hand": None, "result": None if self.result is None else result_to_dict(self.result),
             "note": self.note or None, "findings": findings_to_dict(self.findings),
             "players": [_player_dict(p) for p in self.table.players], "unplaced": list(self.table.unplaced),
             "timing_ms": {k: round(v, 2) for k, v in self.ms.items()}}
        if self.trust is not None:
            d["trust"] = self.trust.to_dict()
        if self.layout is not None:
            d["kind"] = self.layout.kind
            d["tiles"] = [_tile_dict(p) for p in self.layout.placed]
            d["doubtful"] = [{"kind": T.code(x.kind), "group": x.group, "p": round(x.p, 3),
                              "alternatives": [{"kind": T.code(k), "p": round(q, 3)} for k, q in x.alternatives],
                              **({"flower_p": round(x.flower_p, 3)} if x.flower_p else {})}
                             for x in self.doubts]
        if self.legal is not None:
            d["legal"] = self.legal.to_dict()
        if self.hand is not None:
            try:
                d["hand"] = hand_to_dict(self.hand)
            except NotationError:
                d["hand"] = None
        return d


def _tile_dict(p) -> dict:
    """A placed detection: where it lies, what it was read as, how sure, and the next two likeliest kinds."""
    d = p.det
    p_kind, others = _belief(d)
    if d.kind != T.BACK:                        # what a face-up tile may be corrected to: faces, not a back,
        others = tuple((k, q) for k, q in others if k != T.BACK)
        known = {k for k, _ in others} | {d.kind}    # and the classifier's next kinds below 1 % if need be
        others = (others + tuple((k, q) for k, q in d.alternatives if k not in known))[:2]
    return {"box": [round(v, 1) for v in d.box], "kind": T.code(d.kind), "orientation": d.orientation,
            "confidence": round(d.confidence, 3), "p": round(p_kind, 3), "seat": p.seat, "group": p.group,
            "alternatives": [{"kind": T.code(k), "p": round(q, 3)} for k, q in others]}


def _belief(d: Detection) -> tuple[float, tuple[tuple[int, float], ...]]:
    """The classifier's probability of the kind the tile was read as (after any correction by the layout
    parser), and its next two likeliest kinds; a detection without candidates (from a file) counts its
    confidence."""
    return d.kind_p, tuple((k, q) for k, q in d.candidates if k != d.kind)[:2]


def _player_dict(p: PlayerArea) -> dict:
    return {"seat": p.seat, "concealed": None if p.concealed is None else list(p.concealed),
            "concealed_face_down": p.concealed_face_down,
            "melds": [{"tiles": list(m.tiles), "sideways": m.sideways,
                       "meld": None if m.meld is None else
                       {"kind": m.meld.kind, "tile": m.meld.tile, "concealed": m.meld.concealed,
                        "source": m.meld.source}} for m in p.melds],
            "winning_tile": p.winning_tile, "winning_tile_apart": p.winning_tile_apart,
            "flowers": list(p.flowers), "discards": list(p.discards), "exposed": list(p.exposed)}


def review(table: TableState, sit: Situation, rules: str = "mcr", profile: Optional[str] = None,
           layout=None, referee: str = "rules", facts: Optional[Facts] = None) -> Reading:
    """Table -> the declared winner's hand and score, and the audit's findings (graded by the referee profile,
    mjtable.scoring.rulings, with the facts of the case)."""
    from mjtable.scoring.audit import AuditError
    from mjtable.scoring.audit import review as audit_review
    from mjtable.scoring.mcr import MIN_POINTS
    prof = check_rules(rules, profile)
    check_situation(sit, rules, profile=prof)
    out = Reading(rules, prof, sit, table, layout)
    t0 = time.perf_counter()
    try:
        rev = audit_review(table, sit, rules, profile)
    except AuditError as e:
        raise UnreadableError(f"cannot audit what was read: {e}") from None
    except ValueError as e:                  # an engine refusing a hand
        raise BadHandError(str(e)) from None
    try:
        short = {s: MIN_POINTS - a.result.base for s, a in rev.scores.items()
                 if rules == "mcr" and a.result is not None and not a.result.is_win}
        findings = grade(rev.findings, referee, facts or Facts(), short)
    except ValueError as e:
        raise UsageError(str(e)) from None
    rev = replace(rev, findings=findings)
    out.findings, out.review = findings, rev
    if rev.scores:
        seat = "self" if "self" in rev.scores else sorted(rev.scores)[0]
        sc = rev.scores[seat]
        out.seat, out.hand, out.result, out.note = seat, sc.hand, sc.result, sc.note
        if sc.hand is not None and not (sc.result is not None and sc.result.problems):
            check_situation(sit, rules, sc.hand, prof)    # the flags against the hand as read
    out.ms["score"] = (time.perf_counter() - t0) * 1000
    return out


def read_image(img: np.ndarray, detector, sit: Situation, rules: str = "mcr", profile: Optional[str] = None,
               kind: str = "auto", referee: str = "rules", facts: Optional[Facts] = None,
               stretched: float = 1.0) -> Reading:
    """One frame already in memory -> Reading. ``stretched``: how many times one way the photo had been stretched
    before load_frame restored it (1.0: as taken); the trust doubts such a copy."""
    check_rules(rules, profile)
    from mjtable.vision.legal import legal_reading
    from mjtable.vision.locate import locate
    view = locate(img, detector, kind)
    table = view.layout.table
    table.rules = rules
    if view.kind == "phone" and rules == "sichuan" and sit.void_suit is not None:
        table.players[0].void_suit = sit.void_suit
    out = review(table, sit, rules, profile, view.layout, referee, facts)
    out.ms = {**view.ms, **out.ms}
    out.legal = legal_reading(out)
    return with_facts(judge(out, replace(view, stretched=max(stretched, view.stretched)), img.shape), facts)


def with_facts(out: Reading, facts: Optional[Facts]) -> Reading:
    """The reading with the findings of the referee's reported facts (mjtable.scoring.rulings.FACTS) added after
    the others: they rest on the referee's word, not on what was read, so no trust gate applies to them."""
    if facts is None or not facts.reported:
        return out
    try:
        extra = fact_findings(check_facts(facts.reported, out.rules), out.findings)
    except ValueError as e:
        raise UsageError(str(e)) from None
    out.findings = [*out.findings, *extra]
    if out.review is not None:
        out.review = replace(out.review, findings=[*out.review.findings, *extra])
    return out


def judge(out: Reading, view: View, shape: tuple[int, ...], settled: Optional[TableState] = None) -> Reading:
    """A frame's reading with its trust (mjtable.vision.trust.assess: the frame and each seat, how to retake), and
    each finding that rests on what may be misread made a check (gate). A seat is doubtful too when the rules
    would allow its hand read otherwise (out.legal), when a melded pung read as a kong would lift its 错和 to 8
    points (legal.kong_would_win), or when its tiles count no hand (a tile missed or found twice). ``shape``: the
    frame's (height, width). ``settled``: the table a video settled, judged by its latest frame ``view``: a seat
    that frame reads otherwise is doubtful too (what settled may rest on reads the latest frame contradicts)."""
    from mjtable.vision.legal import kong_would_win
    from mjtable.vision.trust import (CHECK_GROUPS, COUNT_CASES, KONG_ADVICE, MISCOUNT_REASON, UNREADABLE, assess,
                                      gate)
    trust = assess(view.layout, view.read_as, (shape[1], shape[0]), view.stretched)
    if trust is not None:
        doubts: list[tuple[str, str, Optional[str]]] = []       # (seat, why, advice)
        if out.legal is not None and out.seat is not None:
            doubts.append((out.seat, f"the rules allow another reading ({out.legal.changes_text()})", None))
        doubts += [(seat, why, KONG_ADVICE) for seat, why in kong_would_win(out)]
        if trust.state != UNREADABLE:                           # an unreadable frame has said so already
            miscounted = [f.seat for f in out.findings if f.case in COUNT_CASES and f.seat is not None]
            doubts += [(seat, MISCOUNT_REASON, CHECK_GROUPS) for seat in dict.fromkeys(miscounted)]
        if settled is not None:
            doubts += [(seat, "the latest frame reads this seat otherwise than the settled table", None)
                       for seat in _read_otherwise(settled, view.layout.table)]
        for seat, why, advice in doubts:
            trust = trust.doubting(seat, why, advice)
    out.trust = trust
    out.findings = gate(out.findings, out.trust)
    out.review = replace(out.review, findings=out.findings)
    return out


def _read_otherwise(settled: TableState, frame: TableState) -> list[str]:
    """The seats whose hand, melds, winning tile, flowers or exposed tiles a frame reads otherwise than the table
    settled over a video."""
    def key(a: Optional[PlayerArea]):
        if a is None:
            return None
        return (tuple(sorted(a.concealed or ())), tuple(m.tiles for m in a.melds), a.winning_tile,
                tuple(sorted(a.flowers)), tuple(sorted(a.exposed)))
    return [a.seat for a in settled.players if key(a) != key(frame.player(a.seat))]


def read_video(path, detector, sit: Situation, rules: str = "mcr", profile: Optional[str] = None,
               kind: str = "auto", every: float = 1.0, hold: int = 2, max_frames: Optional[int] = None,
               on_event=None, progress: bool = False, referee: str = "rules", facts: Optional[Facts] = None):
    """A video -> (mjtable.vision.video.VideoReading, Reading of the settled table). The settled table is trusted as
    far as the latest frame read (judge: a finding that rests on a tile count or on a doubtful seat is a check), as
    the live table is. InputError (exit 3) for a file that is not a readable video, UnreadableError (4) when no
    sampled frame could be read."""
    from mjtable.vision.layout import Layout
    from mjtable.vision.video import watch
    check_rules(rules, profile)
    rd = watch(path, detector, every=every, hold=hold, kind=kind, max_frames=max_frames, on_event=on_event,
               rules=rules, progress=progress)
    if rd.read == 0:
        why = rd.skipped[0][1] if rd.skipped else "no frame"
        raise UnreadableError(f"nothing read on {rd.sampled} sampled frame(s) of {path}: {why}")
    out = review(rd.table, sit, rules, profile, Layout(rd.table, [], rd.kind, 0.0), referee, facts)
    return rd, judge(out, *rd.last, settled=rd.table)


def read_video_hands(path, detector, sit: Situation, rules: str = "mcr", profile: Optional[str] = None,
                     kind: str = "auto", every: float = 1.0, hold: int = 2, max_frames: Optional[int] = None,
                     referee: str = "rules", facts: Optional[Facts] = None, progress: bool = False):
    """A recorded game -> (VideoReading, [(Event or None, Reading or MjtableError)]): one entry for each hand
    laid down on it, from the moment a seat's winning tile settles (the Event: its frame and time) until it goes
    away or another winning tile settles there, reviewed on the table as it lay last; a hand that cannot be
    reviewed gets its error instead. Each hand is trusted as far as the latest frame read that showed its winning
    tile as settled (judge, with the table settled then), not by frames after it went away. A video where no
    winning tile ever settles gives one entry, the settled table at the end (event None), judged as
    ``read_video`` judges it. InputError (exit 3) for a file that is not a readable video, UnreadableError (4)
    when no sampled frame could be read."""
    from mjtable.errors import MjtableError

    from mjtable.vision.layout import Layout
    from mjtable.vision.video import watch
    check_rules(rules, profile)
    showing: dict[str, list] = {}           # seat -> [its event, the table settled since, the latest frame showing it]
    laid: list[list] = []
    frame: list = [None]                    # the frame being settled: (View, shape)

    def read(last: tuple) -> None:
        frame[0] = last
        for seat, hand in showing.items():
            p, q = last[0].layout.table.player(seat), hand[1].player(seat)
            if p is not None and q is not None and p.winning_tile == q.winning_tile:
                hand[2] = last

    def settled(changes, table: TableState) -> None:
        tile = {p.seat: p.winning_tile for p in table.players}
        new = {e.seat: e for e in changes if e.field == "winning_tile" and tile.get(e.seat) is not None}
        for seat in list(showing):
            if tile.get(seat) is None or seat in new:     # the hand went away, or another one lies there now
                laid.append(showing.pop(seat))
            else:
                showing[seat][1] = table
        for seat, e in new.items():
            showing[seat] = [e, table, frame[0]]

    rd = watch(path, detector, every=every, hold=hold, kind=kind, max_frames=max_frames, rules=rules,
               progress=progress, on_settled=settled, on_read=read)
    if rd.read == 0:
        why = rd.skipped[0][1] if rd.skipped else "no frame"
        raise UnreadableError(f"nothing read on {rd.sampled} sampled frame(s) of {path}: {why}")
    laid.extend(showing.values())
    hands = sorted(laid, key=lambda h: (h[0].frame, h[0].seat)) or [[None, rd.table, rd.last]]
    out = []
    for e, table, last in hands:
        try:
            reading = review(table, sit, rules, profile, Layout(table, [], rd.kind, 0.0), referee, facts)
            out.append((e, judge(reading, *last, settled=table)))
        except MjtableError as err:
            out.append((e, err))
    return rd, out


def table_from_hand(hand: Hand) -> TableState:
    """A hand typed in notation, laid on the table as the layout parser would have read it."""
    melds = []
    for m in hand.melds:
        if m.concealed:
            melds.append(MeldOnTable((None, m.tile, m.tile, None), None, m))
        else:
            melds.append(MeldOnTable(tuple(m.tiles), sideways_index(m.source, len(m.tiles)), m))
    area = PlayerArea("self", tuple(hand.concealed), 0, tuple(melds), hand.winning_tile,
                      hand.situation.winning_tile_apart, tuple(hand.flowers), declared_win=True,
                      void_suit=hand.situation.void_suit)
    return TableState([area])


def read_notation(text: str, sit: Situation, rules: str = "mcr", profile: Optional[str] = None,
                  referee: str = "rules", facts: Optional[Facts] = None) -> Reading:
    """A hand in text notation -> Reading (BadHandError, exit 6, for bad notation or an impossible hand)."""
    check_rules(rules, profile)
    try:
        hand = parse_hand(text, sit)
    except NotationError as e:
        raise BadHandError(f"bad notation: {e}") from None
    out = with_facts(review(table_from_hand(hand), sit, rules, profile, None, referee, facts), facts)
    problems = out.result.problems if out.result is not None else hand.problems()
    if problems:                             # validated by the engine that scored it
        raise BadHandError(f"impossible hand {shown(text)}: {'; '.join(problems)}")
    if out.hand is None:
        out.hand = hand
    return out


def refuse_unreadable(out: Reading) -> None:
    """UnreadableError (4), with how to retake, for a frame whose reading the trust calls unreadable (a typed hand
    has no trust: no vision imported)."""
    if out.trust is not None:
        from mjtable.vision.trust import UNREADABLE
        if out.trust.state == UNREADABLE:
            raise UnreadableError(f"could not read the hand: {'; '.join(out.trust.reasons)}", out.trust.advice)


def verdict(out: Reading) -> None:
    """Raise the error a reading without a winning hand calls for: nothing to score -> UnreadableError (4),
    not a win -> NotAWinError (5). An overhead frame or a video without a declared win is fine as it is."""
    refuse_unreadable(out)
    advice = out.trust.advice if out.trust is not None else ()
    if out.result is None:
        if out.kind == "overhead":
            return                          # the audit is the answer
        why = out.note or "no hand to score"
        extra = f" ({'; '.join(out.table.unplaced)})" if out.table.unplaced else ""
        raise UnreadableError(f"could not read the hand: {why}{extra}", advice)
    if not out.result.is_win:
        raise NotAWinError(f"not a winning hand: {out.result.reason}")
