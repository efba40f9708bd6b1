"""A player's area read as the rules see it, for the referee audit (mjtable.scoring.audit) and the legal reading
(mjtable.vision.legal): each meld as it lies (read_meld: its set and, from the sideways tile, its source), a
declared winner's hand(s) with each candidate winning tile when the tile was not set apart, the best score, and how
far from ready a hand that is no win lies.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace

from . import tiles as T
from .engines import engine, resolve_profile
from .hand import CHOW, KONG, PUNG, Hand, Meld, Situation
from .result import ScoreResult
from .table import MeldOnTable, PlayerArea, source_of_sideways

SUBJECT_SEAT = "self"


@dataclass(frozen=True)
class ReadMeld:
    meld: Meld | None  # None if the tiles cannot be read (face down) or are not a set
    problem: str | None = None  # "not_a_set" ...
    pos_source: str | None = None  # source implied by the sideways position


def read_meld(mt: MeldOnTable) -> ReadMeld:
    """Interpret a meld as it lies: set kind from the visible tiles, source from the sideways tile."""
    n = len(mt.tiles)
    pos_source = None
    if mt.sideways is not None and n in (3, 4) and 0 <= mt.sideways < n:
        pos_source = source_of_sideways(mt.sideways, n)
    known = sorted(t for t in mt.tiles if t is not None)
    if n not in (3, 4) or any(not 0 <= t < T.N_KINDS for t in known):
        return ReadMeld(None, "not_a_set", pos_source)
    if mt.meld is not None:
        if Counter(known) - Counter(mt.meld.tiles):
            return ReadMeld(None, "not_a_set", pos_source)
        return ReadMeld(mt.meld, None, pos_source)
    if not known:
        return ReadMeld(None, None, pos_source)  # all face down: a concealed kong, tile unknown
    if len(set(known)) == 1:
        kind = KONG if n == 4 else PUNG
        concealed = kind == KONG and mt.sideways is None
        return ReadMeld(
            Meld(kind, known[0], concealed=concealed, source=None if concealed else pos_source), None, pos_source
        )
    if (
        n == 3
        and len(known) == 3
        and T.is_suited(known[0])
        and T.suit(known[0]) == T.suit(known[2])
        and known[1] == known[0] + 1
        and known[2] == known[0] + 2
    ):
        return ReadMeld(Meld(CHOW, known[0], source=pos_source), None, pos_source)
    impossible = (
        len(known) == n
        or (n == 4 and len(set(known)) > 1)
        or (n == 3 and (not T.is_suited(known[0]) or T.suit(known[0]) != T.suit(known[-1]) or known[-1] - known[0] > 2))
    )
    return ReadMeld(None, "not_a_set" if impossible else None, pos_source)


@dataclass
class AreaScore:
    """A declared winner read into a Hand and scored (best choice of the winning tile if it was not apart)."""

    seat: str
    hand: Hand | None
    result: ScoreResult | None
    note: str = ""
    wait_would_win: bool = False  # not a win, but one with the wait counted that a tile not set apart leaves out


def declared(p: PlayerArea) -> bool:
    """A player has declared a win if the layout says so or a winning tile lies beside the hand
    (SBR 第九条一（七）: the tile taken back and set by the hand completes the win)."""
    return p.declared_win or p.winning_tile is not None


def _void_of(p: PlayerArea, situation: Situation) -> int | None:
    if p.void_suit is not None:
        return p.void_suit
    return situation.void_suit if p.seat == SUBJECT_SEAT else None


def hands_of(p: PlayerArea, situation: Situation) -> tuple[list[Hand], str]:
    """Every Hand this area can be read as (one per candidate winning tile), or [] and why not."""
    if p.concealed is None or p.concealed_face_down:
        return [], "the standing hand is not fully visible"
    melds = []
    for mt in p.melds:
        rm = read_meld(mt)
        if rm.meld is None:
            return [], "a meld cannot be read (face down or not a set)"
        if not rm.meld.concealed and rm.meld.source is None:
            # a claimed set laid with no tile sideways (the not_sideways finding): whom it was claimed from is
            # unknown, and a Hand's claimed meld needs its source
            return [], "a claimed meld has no tile sideways: its source cannot be read"
        melds.append(rm.meld)
    sit = replace(
        situation,
        winning_tile_apart=p.winning_tile_apart and p.winning_tile is not None,
        void_suit=_void_of(p, situation),
    )
    conc = tuple(p.concealed) + tuple(p.exposed)  # exposed tiles are hand tiles lying face up
    if p.winning_tile is not None:
        return [Hand(conc, tuple(melds), p.winning_tile, tuple(p.flowers), sit)], ""
    out = []
    for t in sorted(set(conc)):
        rest = list(conc)
        rest.remove(t)
        out.append(Hand(tuple(rest), tuple(melds), t, tuple(p.flowers), sit))
    return out, ("winning tile not set apart: every tile of the hand tried as the winning tile" if out else "no tiles")


def _candidates_note(scored: list) -> str:
    """What each candidate winning tile would score (tiles of equal outcome together), for the notes of a hand
    whose winning tile is not known."""
    by_outcome: dict = {}
    for r, h in scored:
        unit = "番" if r.rules == "sichuan" else "分"
        what = f"{r.total} {unit}" if r.is_win else f"no win ({r.reason})"
        by_outcome.setdefault(what, []).append(T.code(h.winning_tile))
    return "winning tile not known, each tile of the hand tried: " + "; ".join(
        f"{what} with {' '.join(tiles)}" for what, tiles in by_outcome.items()
    )


def score_area(p: PlayerArea, situation: Situation, rules: str, profile: str | None) -> AreaScore:
    """Score a declared winner. With the winning tile not set apart every tile of the hand is tried and the best
    result kept; its wait fans are not counted (the engines drop 边张/坎张/单钓将 when the tile is not apart:
    mcr-wmo-2006.txt 3.4.28 以便核查), and its notes list what each candidate tile would score."""
    hands, why = hands_of(p, situation)
    if not hands:
        return AreaScore(p.seat, None, None, why)
    eng = engine(rules)
    prof = resolve_profile(rules, profile)
    scored = [(eng.score(h, prof), h) for h in hands]
    best, hand = max(scored, key=lambda rh: (rh[0].is_win, rh[0].total, rh[0].base))
    if rules == "mcr" and not best.is_win and len(scored) > 1:
        # no tile makes it a win: the false win is graded on the tile that makes it the least wrong (错和 if any
        # candidate leaves the rest ready), not on the first tile tried
        best, hand = min(scored, key=lambda rh: tenpai_distance(rh[1]))
    if len(scored) > 1:
        best = replace(best, notes=[*best.notes, _candidates_note(scored)])
    return AreaScore(p.seat, hand, best, why, _wait_would_win(eng, prof, rules, best, scored))


def _wait_would_win(eng, prof: str, rules: str, best: ScoreResult, scored) -> bool:
    """Would a declared MCR hand that is no win be one with its wait counted? Only the competition rules take the
    wait away from a tile not set apart (competition-variant.txt 行牌 16); the others ask for the self-drawn tile to
    be set apart so that the wait can be checked (mcr-wmo-2006.txt 3.4.28), with no penalty, so a hand under 8
    points for want of an unchecked wait is no sure 错和."""
    from .mcr.profiles import PROFILES as MCR_PROFILES

    if rules != "mcr" or best.is_win or MCR_PROFILES[prof].require_apart:
        return False
    return any(
        not h.situation.winning_tile_apart
        and eng.score(replace(h, situation=replace(h.situation, winning_tile_apart=True)), prof).is_win
        for _, h in scored
    )


def _tenpai_mcr(counts: list[int], melds) -> bool:
    return bool(engine("mcr").waits(counts, list(melds)))


def tenpai_distance(h: Hand) -> int:
    """MCR: 0 if the standing tiles (without the winning tile) are tenpai, 1 if one tile swap makes them
    tenpai (寻常诈和), 2 for two or more (有意诈和)."""
    c = [0] * T.N_KINDS
    for t in h.concealed:
        c[t] += 1
    if _tenpai_mcr(c, h.melds):
        return 0
    for r in {t for t in h.concealed}:
        for a in range(T.N_KINDS):
            if a == r or c[a] >= 4:
                continue
            c[r] -= 1
            c[a] += 1
            ok = _tenpai_mcr(c, h.melds)
            c[r] += 1
            c[a] -= 1
            if ok:
                return 1
    return 2
