"""Whole tables where a seat has laid its hand face up (after a win, or shown): the overhead and seat-view reading
takes that row as the seat's hand, with its melds, the winning tile set apart and its flowers, and the seat's
wall stays a wall."""
from __future__ import annotations

import random

import pytest

from mjtable.scoring import tiles as T
from mjtable.scoring.hand import ACROSS, KONG, LEFT, PUNG, RIGHT, Meld
from mjtable.scoring.table import source_of_sideways
from mjtable.vision.layout import parse, parse_overhead
from mjtable.vision.types import Detection
from tests.layout_scenes import layout_table, mild_perspective, render

CONCEALED = [0, 1, 2, 9, 9, 13, 14, 15, 27, 27]          # 1m2m3m 1p1p 5p6p7p 1z1z; wins on 1z


def _table(**self_seat):
    """The self seat has won: its hand laid face up (``self_seat`` says how), a chow claimed from the left in the
    meld row, two flowers, and a wall of 12 stacks between the hand and the river. The others stand."""
    me = dict(discards=[3, 4, 5, 30, 31], wall=12, wall_start=3, melds=[Meld("chow", 19, source=LEFT)],
              flowers=[34, 36], laid=[CONCEALED], winning=27)
    me.update(self_seat)
    return {
        "self": me,
        "right": dict(discards=[6, 7, 8], wall=18, melds=[Meld(PUNG, 30, source=ACROSS)], hand=10),
        "across": dict(discards=list(range(10, 22)), wall=5, wall_start=8, hand=13),
        "left": dict(discards=[33, 32], melds=[Meld(KONG, 20, source=RIGHT)], hand=10, wall=9),
    }


def _read(spec, **kw):
    kw = dict(dict(scale=22, center=(320, 320), squash=0.6), **kw)
    return parse_overhead(render(layout_table(spec), **kw))


def _sources(area):
    return [(m.meld.kind, m.meld.tile, m.meld.concealed, m.meld.source) for m in area.melds]


def _standing_seats_read(lay, spec):
    for seat in ("right", "across", "left"):
        p = lay.table.player(seat)
        assert p.concealed is None and p.concealed_face_down == spec[seat]["hand"], seat
        assert p.winning_tile is None, seat


@pytest.mark.parametrize("angle", [0, 4, -9, 25])
def test_self_hand_laid_in_one_row_with_the_winning_tile_apart(angle):
    spec = _table()
    lay = _read(spec, angle=angle)
    me = lay.table.player("self")
    assert sorted(me.concealed) == CONCEALED and me.concealed_face_down == 0
    assert me.winning_tile == 27 and me.winning_tile_apart
    assert _sources(me) == [("chow", 19, False, "left")]
    assert sorted(me.flowers) == [34, 36] and me.exposed == ()
    assert me.discards == (3, 4, 5, 30, 31)
    _standing_seats_read(lay, spec)
    groups = {p.group for p in lay.placed if p.seat == "self"}
    assert {"concealed", "winning", "meld:0", "flower", "wall", "discard"} <= groups
    assert "exposed" not in groups


@pytest.mark.parametrize("farther", [0.0, 0.9, 1.2])
def test_a_meld_row_a_little_farther_from_the_laid_hand_is_still_its_melds(farther):
    """A seat view's depth, undone from detected tiles, can come out a third too deep: the meld row then lies up
    to 2.9 tile widths inside the laid hand row (1.7 on a table seen from above). It is still read as the seat's
    melds, not its river or exposed tiles (LayoutParams.meld_zone)."""
    spec = _table()
    tiles = layout_table(spec)
    for t in tiles:
        if t.seat == "self" and t.group in ("concealed", "winning", "flower"):
            t.y += farther
    lay = parse_overhead(render(tiles, scale=22, center=(320, 320), squash=0.6))
    me = lay.table.player("self")
    assert _sources(me) == [("chow", 19, False, "left")], farther
    assert sorted(me.concealed) == CONCEALED and me.winning_tile == 27
    assert me.exposed == () and me.discards == (3, 4, 5, 30, 31)


def test_a_weak_back_at_the_end_of_a_laid_hand_is_not_a_tile():
    """A faint face-down box just past the end of a hand laid face up (a shadow, an object at the row's end) made
    the row one tile too long, so the winning tile set apart was not found: it is not counted, and a note says
    so. As sure as the row's tiles, it stays (a tile the reader could not turn over is still a tile)."""
    import dataclasses
    from tests.layout_scenes import Tile
    for conf, counted in ((0.04, False), (0.9, True)):
        tiles = layout_table(_table())
        first = min((t for t in tiles if t.seat == "self" and t.group == "concealed"), key=lambda t: t.x)
        tiles.append(Tile(T.BACK, first.x - 1.05, first.y, back=True, seat="self", group="concealed"))
        dets = render(tiles, scale=22, center=(320, 320), squash=0.6)
        dets[-1] = dataclasses.replace(dets[-1], confidence=conf)
        lay = parse_overhead(dets)
        me = lay.table.player("self")
        assert (me.concealed_face_down == 1) == counted, conf
        if not counted:
            assert sorted(me.concealed) == CONCEALED and me.winning_tile == 27 and me.winning_tile_apart
            assert any("weak face-down box" in n for n in lay.table.unplaced)


def test_faint_backs_beyond_a_laid_hand_do_not_make_it_a_standing_one():
    """Two face-down boxes the detector is far less sure of than the laid hand's faces (a shadow, an object at the
    table's edge), lying nearer the player than the hand: the hand is still read as laid face up, not taken for
    exposed tiles in front of a standing hand. As sure as the faces, such backs are a standing hand."""
    import dataclasses
    from tests.layout_scenes import Tile
    for conf, laid in ((0.06, True), (0.9, False)):
        tiles = layout_table(_table())
        row = [t for t in tiles if t.seat == "self" and t.group == "concealed"]
        y = max(t.y for t in row) + 2.2
        tiles += [Tile(T.BACK, x, y, back=True, seat="self", group="concealed") for x in (-4.0, -3.0)]
        dets = render(tiles, scale=22, center=(320, 320), squash=0.6)
        dets[-2:] = [dataclasses.replace(d, confidence=conf) for d in dets[-2:]]
        me = parse_overhead(dets).table.player("self")
        assert (me.concealed is not None and sorted(me.concealed) == CONCEALED and me.winning_tile == 27) == laid
        assert (me.exposed == ()) == laid, conf


def test_weak_boxes_in_the_meld_area_without_a_melds_mark_are_no_meld():
    """Two weak face-up boxes beside the meld row, neither sideways nor face down (clutter read as tiles): they
    are not placed, so they count as no meld and the laid hand keeps its winning tile set apart. As sure as real
    tiles, such a pair is read as a meld, with its problem named."""
    import dataclasses
    from tests.layout_scenes import Tile
    for conf, placed in ((0.12, False), (0.9, True)):
        tiles = layout_table(_table())
        meld = [t for t in tiles if t.seat == "self" and t.group.startswith("meld")]
        y = sum(t.y for t in meld) / len(meld)
        tiles += [Tile(16, x, y, seat="self", group="meld:1") for x in (-3.0, -2.0)]
        dets = render(tiles, scale=22, center=(320, 320), squash=0.6)
        dets[-2:] = [dataclasses.replace(d, confidence=conf) for d in dets[-2:]]
        lay = parse_overhead(dets)
        me = lay.table.player("self")
        assert (len(me.melds) == 2) == placed, conf
        if not placed:
            assert sorted(me.concealed) == CONCEALED and me.winning_tile == 27
            assert _sources(me) == [("chow", 19, False, "left")]
            assert any("no meld's mark: not placed" in n for n in lay.table.unplaced)


def test_a_weak_box_in_the_meld_area_likelier_a_flower_is_read_as_one():
    """A set's flowers are pictures of its own, which the classifier spreads over many kinds: a weak face-up box
    in the meld area with no meld's mark, read as 3s at p 0.10 but a flower or season at p 0.30 in all, is read as
    its likeliest flower (said, and its seat read with doubt: the flower is not sure); one whose flower chance is
    smaller than its reading stays unplaced, alone or beside the other; so does a box less sure than a flower box
    must be to be placed (from above, LayoutParams.faint_flower_above: clutter reads as pictures too)."""
    import dataclasses
    from tests.layout_scenes import Tile
    from mjtable.vision.trust import assess
    base = parse_overhead(render(layout_table(_table()), scale=22, center=(320, 320), squash=0.6))
    before = base.table.player("self").flowers
    for xs, flower_p, conf, want in (((-3.0,), (0.30,), 0.25, (38,)), ((-3.0,), (0.05,), 0.25, ()),
                                     ((-3.0, -2.0), (0.30, 0.05), 0.25, (38,)), ((-3.0,), (0.30,), 0.15, ())):
        tiles = layout_table(_table())
        meld = [t for t in tiles if t.seat == "self" and t.group.startswith("meld")]
        y = sum(t.y for t in meld) / len(meld)
        tiles += [Tile(20, x, y, seat="self", group="meld:1") for x in xs]
        dets = render(tiles, scale=22, center=(320, 320), squash=0.6)
        n = len(xs)
        dets[-n:] = [dataclasses.replace(d, confidence=conf, candidates=((20, 0.10), (3, 0.08)),
                                         flower=((38, q / 2), (35, q / 4), (41, q / 4)))
                     for d, q in zip(dets[-n:], flower_p)]
        lay = parse_overhead(dets)
        me = lay.table.player("self")
        assert me.flowers == before + want, (xs, flower_p)
        assert sorted(me.concealed) == CONCEALED and me.winning_tile == 27 and len(me.melds) == 1
        said = [u for u in lay.table.unplaced if "likelier a flower or season (p=0.30) than 3s: read as 5f" in u]
        assert len(said) == len(want)
        assert (assess(lay, "overhead").seat("self").state == "doubtful") == bool(want)


def test_the_wall_of_a_seat_that_laid_its_hand_down_is_not_its_hand():
    """Before, the seat's wall (its nearest row of backs) was taken for a standing hand of 12 and the hand laid
    down for melds or exposed tiles."""
    spec = _table(wall=18, wall_start=0)
    lay = _read(spec)
    me = lay.table.player("self")
    assert me.concealed_face_down == 0 and me.concealed is not None
    backs = [p for p in lay.placed if p.seat == "self" and p.det.kind == T.BACK]
    assert len(backs) == 18 and {p.group for p in backs} == {"wall"}
    assert not any("meld" in u and "self" in u for u in lay.table.unplaced), lay.table.unplaced


def test_a_weak_box_beyond_a_laid_hand_does_not_hide_it():
    """A weak face-up box nearer the player than a hand laid face up (a tile cut by the frame's edge, an object):
    the laid row is still the seat's hand, its wall a wall, and the box is not placed. Before, the lone box was
    taken for the outermost row, no laid hand was found, and the wall was read as a standing hand."""
    import dataclasses
    from tests.layout_scenes import Tile
    tiles = layout_table(_table(wall=18, wall_start=0))
    laid = [t for t in tiles if t.seat == "self" and t.group == "concealed"]
    tiles.append(Tile(23, min(t.x for t in laid) - 1.0, max(t.y for t in laid) + 2.5, seat="self", group="unplaced"))
    dets = render(tiles, scale=22, center=(320, 320), squash=0.6)
    dets[-1] = dataclasses.replace(dets[-1], confidence=0.06)
    lay = parse_overhead(dets)
    me = lay.table.player("self")
    assert me.concealed is not None and sorted(me.concealed) == CONCEALED and me.winning_tile == 27
    assert me.concealed_face_down == 0 and me.exposed == ()
    backs = [p for p in lay.placed if p.seat == "self" and p.det.kind == T.BACK]
    assert len(backs) == 18 and {p.group for p in backs} == {"wall"}
    assert [p.group for p in lay.placed if p.det.confidence == 0.06] == ["unplaced"]
    assert any("6s" in n and "not placed" in n for n in lay.table.unplaced), lay.table.unplaced


@pytest.mark.parametrize("paper_dx", [3.0, 6.0])
def test_paper_read_as_weak_tiles_in_and_beyond_a_laid_hand_is_not_placed(paper_dx):
    """A score sheet at the table's edge, read as weak tiles (p 0.06-0.28, one of them a flower): a group of them in
    the hand's own row past its winning tile, and a row of them beyond the hand. The laid row is still the hand,
    whole, its wall a wall, its flowers its own, and the paper's boxes are not placed. Before, the paper's row was
    taken for the outermost row, no laid hand was found, the wall was read as a standing hand of 18 and the hand
    as melds."""
    import dataclasses
    from tests.layout_scenes import Tile
    tiles = layout_table(_table(wall=18, wall_start=0))
    laid = [t for t in tiles if t.seat == "self" and t.group in ("concealed", "winning")]
    x_end, y = max(t.x for t in laid), max(t.y for t in laid)
    paper = [Tile(k, x_end + paper_dx + n, y, seat="self", group="unplaced") for n, k in enumerate((29, 29, 8))]
    paper += [Tile(k, x_end - 2.0 + n * 1.1, y + 1.6, seat="self", group="unplaced")
              for n, k in enumerate((0, 32, 37, 14, 38, 38))]
    dets = render(tiles + paper, scale=22, center=(320, 320), squash=0.6)
    weak = (0.06, 0.15, 0.07, 0.07, 0.06, 0.28, 0.09, 0.09, 0.06)
    dets[-len(paper):] = [dataclasses.replace(d, confidence=p) for d, p in zip(dets[-len(paper):], weak)]
    lay = parse_overhead(dets)
    me = lay.table.player("self")
    assert me.concealed is not None and sorted(me.concealed) == CONCEALED and me.winning_tile == 27
    assert me.concealed_face_down == 0 and me.exposed == () and sorted(me.flowers) == [34, 36]
    assert _sources(me) == [("chow", 19, False, "left")]
    backs = [p for p in lay.placed if p.seat == "self" and p.det.kind == T.BACK]
    assert len(backs) == 18 and {p.group for p in backs} == {"wall"}
    on_paper = [p for p in lay.placed if p.det.confidence in weak and p.det.kind in (29, 8, 0, 32, 37, 14, 38)]
    assert len(on_paper) == len(paper) and {p.group for p in on_paper} == {"unplaced"}
    assert any("paper or a card, not placed" in n for n in lay.table.unplaced), lay.table.unplaced


def test_paper_beyond_a_standing_hand_seen_from_above_is_no_meld():
    """A score sheet beyond the right seat's standing hand (nearer its player), read as a row of weak boxes, three
    alike with one lying sideways: a claimed pung by its look. From straight above a seat's melds and flowers lie
    inside its hand, so the cluster is paper, not placed; before, it was read as a pung claimed from the right."""
    import dataclasses
    from tests.layout_scenes import Tile
    spec = _table(laid=None, winning=None, hand=10)
    tiles = layout_table(spec)
    hand = [t for t in tiles if t.seat == "self" and t.group == "concealed"]
    y = hand[0].y + 2.2
    paper = [Tile(k, x, y, a, seat="self", group="unplaced")
             for k, x, a in ((7, -3.0, 90.0), (7, -1.7, 0.0), (7, -0.7, 0.0), (30, 0.3, 0.0), (12, 1.3, 0.0))]
    dets = render(tiles + paper, scale=22, center=(320, 320), squash=0.6)
    dets[-len(paper):] = [dataclasses.replace(d, confidence=c) for d, c in
                          zip(dets[-len(paper):], (0.17, 0.07, 0.1, 0.16, 0.08))]
    lay = parse_overhead(dets)
    me = lay.table.player("self")
    assert me.concealed is None and me.concealed_face_down == 10
    assert len(me.melds) == 1 and _sources(me) == [("chow", 19, False, "left")] and me.exposed == ()
    assert all(p.seat is None for p in lay.placed if p.det.confidence < 0.2 and p.det.kind in (7, 30, 12))
    assert any("paper or a card, not placed" in n for n in lay.table.unplaced)


def test_a_very_weak_face_up_box_before_a_hand_of_one_tile_is_not_a_tile():
    """Four melds, one concealed tile and the winning tile laid down, and a box of printed paper read at p 0.07 in
    their row, two tiles before them: the row's count says a tile too many, so the paper is not counted. A box
    read at p 0.35 there is still a tile (the count is then named wrong: a tile may be real and read weakly)."""
    import dataclasses
    from tests.layout_scenes import Tile
    melds = [Meld("chow", 19, source=LEFT), Meld(PUNG, 5, source=ACROSS), Meld("chow", 0, source=LEFT),
             Meld(PUNG, 13, source=RIGHT)]
    for p, counted in ((0.07, False), (0.35, True)):
        tiles = layout_table(_table(melds=melds, laid=[[27]], winning=27, wall=18, wall_start=0))
        laid = [t for t in tiles if t.seat == "self" and t.group == "concealed"]
        tiles.append(Tile(8, laid[0].x - 2.5, laid[0].y, seat="self", group="unplaced"))
        dets = render(tiles, scale=22, center=(320, 320), squash=0.6)
        dets[-1] = dataclasses.replace(dets[-1], confidence=p)
        me = parse_overhead(dets).table.player("self")
        assert len(me.melds) == 4, p
        if counted:
            assert 8 in me.concealed, me
        else:
            assert me.concealed == (27,) and me.winning_tile == 27 and me.winning_tile_apart


def _stripe(x: float, ys, seat: str = "self"):
    """Boxes a stripe on the cloth (a blurred rack's edge) is read as: face-down tiles lying across the seat's
    rows, one above the other, less sure than real backs."""
    from tests.layout_scenes import Tile
    return [Tile(T.BACK, x, y, 90.0, back=True, seat=seat, group="unplaced") for y in ys]


def _weakly(dets, n: int, conf=(0.45, 0.6, 0.7, 0.5, 0.56, 0.38, 0.47)):
    import dataclasses
    dets[-n:] = [dataclasses.replace(d, confidence=c) for d, c in zip(dets[-n:], conf * 2)]
    return dets


def test_a_stripe_of_backs_across_the_rows_beyond_a_standing_hand_is_not_the_hand():
    """A stripe read as backs lying across the self seat's rows, past the end of its standing hand and reaching
    nearer the player: each of its boxes is a row of one. Before, the nearest was taken for the hand (the rows of
    one beyond it were only compared with each other, not with the bar); now each is a stray beside the bar."""
    spec = _table(laid=None, winning=None, hand=10)
    tiles = layout_table(spec)
    hand = [t for t in tiles if t.seat == "self" and t.group == "concealed"]
    x0, y = min(t.x for t in hand) - 2.5, hand[0].y
    stripe = _stripe(x0, [y - 1.0 + 1.05 * n for n in range(5)])
    lay = parse_overhead(_weakly(render(tiles + stripe, scale=22, center=(320, 320), squash=0.6), len(stripe)))
    me = lay.table.player("self")
    assert me.concealed is None and me.concealed_face_down == 10
    _standing_seats_read(lay, spec)


def test_a_stripe_of_backs_across_a_laid_hand_does_not_hide_it():
    """The same stripe crossing the row of a hand laid face up, a tile past its end: the boxes beyond the laid row
    lie within a tile of the row's end as its boxes go (the stripe's own box in it included), and were taken for a
    standing hand before it, so the wall was read as the hand. The row's extent is now its faces', and the
    stripe's box in the row, set apart from the faces, is not placed."""
    tiles = layout_table(_table(wall=18, wall_start=0))
    laid = [t for t in tiles if t.seat == "self" and t.group == "concealed"]
    x0, y = min(t.x for t in laid) - 2.5, laid[0].y
    stripe = _stripe(x0, [y - 3.15 + 1.05 * n for n in range(7)])
    lay = parse_overhead(_weakly(render(tiles + stripe, scale=22, center=(320, 320), squash=0.6), len(stripe)))
    me = lay.table.player("self")
    assert me.concealed is not None and sorted(me.concealed) == CONCEALED and me.winning_tile == 27
    assert me.concealed_face_down == 0
    backs = [p for p in lay.placed if p.seat == "self" and p.det.kind == T.BACK and p.det.confidence > 0.8]
    assert len(backs) == 18 and {p.group for p in backs} == {"wall"}


@pytest.mark.parametrize("spacing", [1.0, 1.8])
def test_a_stripe_read_as_scattered_backs_beyond_a_laid_hand_is_not_a_standing_hand(spacing):
    """A stripe on the cloth nearer the camera, read as a row of backs spaced anyhow (1.8 tile widths apart) well
    beyond a hand laid face up: no bar of tiles, so the laid row is still the hand. The same row of backs side by
    side is a standing hand there, and the face-up row its melds (the reading before, whatever the spacing)."""
    tiles = layout_table(_table(wall=18, wall_start=0))
    laid = [t for t in tiles if t.seat == "self" and t.group == "concealed"]
    y = laid[0].y + 3.0
    stripe = [t for n in range(10) for t in _stripe(-9.0 + spacing * n, [y])]
    for t in stripe:
        t.angle = 0.0
    lay = parse_overhead(_weakly(render(tiles + stripe, scale=22, center=(320, 320), squash=0.6), len(stripe)))
    me = lay.table.player("self")
    if spacing > 1.4:
        assert me.concealed is not None and sorted(me.concealed) == CONCEALED and me.winning_tile == 27
    else:
        assert me.concealed is None


@pytest.mark.parametrize("x0", [-14.5, -5.0])
def test_backs_past_the_end_of_a_laid_hand_are_not_a_standing_hand(x0):
    """A short row of sure backs a little beyond a hand laid face up but wholly past one of its ends (a stripe or
    a shadow at the frame's edge, on a real-looking top-down table) is no standing hand: the laid hand reads
    right. Backs before the laid hand, where a standing hand lies, still make it one."""
    from tests.layout_scenes import Tile
    tiles = layout_table(_table())
    laid = [t for t in tiles if t.seat == "self" and t.group == "concealed"]
    y = max(t.y for t in laid) + 0.8
    tiles += [Tile(T.BACK, x0 + n, y, back=True, seat="self", group="unplaced") for n in range(5)]
    lay = parse_overhead(render(tiles, scale=22, center=(320, 320), squash=0.6))
    me = lay.table.player("self")
    if x0 < min(t.x for t in laid) - 2:
        assert sorted(me.concealed) == CONCEALED and me.winning_tile == 27 and me.concealed_face_down == 0
    else:
        assert me.concealed is None


@pytest.mark.parametrize("sizes,gap", [((3, 2, 3, 2), 0.5), ((2, 3, 3, 2), 0.75), ((3, 3, 3, 1), 0.4)])
def test_self_hand_spread_in_groups(sizes, gap):
    groups, rest = [], list(CONCEALED)
    for n in sizes:
        groups.append(rest[:n])
        rest = rest[n:]
    lay = _read(_table(laid=groups, laid_gap=gap, winning_gap=0.7), angle=3)
    me = lay.table.player("self")
    assert sorted(me.concealed) == CONCEALED and me.winning_tile == 27 and me.winning_tile_apart
    assert _sources(me) == [("chow", 19, False, "left")]


def test_melds_laid_in_the_hand_row_keep_their_sideways_tile_and_source():
    """A pung claimed from the right laid after the winning tile in the hand row, besides the meld row's chow."""
    conc = CONCEALED[:7]                                   # 1m2m3m 1p1p 5p6p, wins on 7p
    lay = _read(_table(laid=[conc], winning=15, laid_melds=[Meld(PUNG, 31, source=RIGHT)]), angle=-5)
    me = lay.table.player("self")
    assert sorted(me.concealed) == conc and me.winning_tile == 15
    assert _sources(me) == [("chow", 19, False, "left"), ("pung", 31, False, "right")]
    side = [m for m in me.melds if m.meld.kind == PUNG][0].sideways
    assert source_of_sideways(side, 3) == RIGHT


def test_a_hand_shown_without_a_win_has_no_winning_tile():
    """Another seat lays its 13 tiles face up in one row: its hand, no winning tile, no exposed tiles."""
    spec = _table()
    shown = [3, 4, 6, 10, 11, 12, 16, 17, 18, 22, 23, 24, 28]
    spec["across"] = dict(discards=list(range(10, 16)), wall=5, laid=[shown], laid_start=-6.0)
    lay = _read(spec, angle=2)
    p = lay.table.player("across")
    assert sorted(p.concealed) == shown and p.concealed_face_down == 0
    assert p.winning_tile is None and p.exposed == () and p.melds == ()
    assert lay.table.player("self").winning_tile == 27


def test_self_hand_laid_down_under_perspective():
    spec = _table()
    H = mild_perspective(center=(320, 320), k=0.0004)
    lay = _read(spec, angle=2, homography=H)
    me = lay.table.player("self")
    assert sorted(me.concealed) == CONCEALED and me.winning_tile == 27
    assert _sources(me) == [("chow", 19, False, "left")]


def test_a_row_of_melds_alone_is_not_a_laid_hand():
    """A seat whose standing hand was not found: its meld row is the outermost, but melds are no hand."""
    spec = _table()
    spec["right"] = dict(discards=[6, 7, 8], wall=18, melds=[Meld(PUNG, 30, source=ACROSS),
                                                            Meld("chow", 1, source=LEFT)])
    lay = _read(spec)
    p = lay.table.player("right")
    assert p.concealed is None and p.winning_tile is None
    assert _sources(p) == [("pung", 30, False, "across"), ("chow", 1, False, "left")]


def test_weak_boxes_beyond_a_standing_hand_are_not_a_laid_hand():
    """Two weak face-up boxes lying beyond a seat's standing hand (an object, a shadow): the hand still stands."""
    spec = _table()
    dets = render(layout_table(spec), scale=22, center=(320, 320), squash=0.6)
    right = [d for d in dets if d.kind == T.BACK]
    x = max(d.box[2] for d in right) + 60                         # the right seat's far side of the frame
    dets += [Detection((x, y, x + 30, y + 22), k, "sideways", 0.08) for y, k in ((300, 15), (340, 16))]
    lay = parse_overhead(dets)
    p = lay.table.player("right")
    assert p.concealed is None and p.concealed_face_down == spec["right"]["hand"]


def _tiny_bank():
    import numpy as np
    from mjtable.datasets import realfaces as RF
    rng = np.random.default_rng(0)
    bank = RF.RealBank("heldout")
    bank.faces["a"] = {t: [rng.integers(0, 255, (40, 30, 3), np.uint8)] for t in range(T.N_KINDS + 8)}
    return bank


def _hand_key(p):
    from mjtable.vision.compare import hand_key
    return hand_key(p)


def test_real_looking_top_down_tables_with_perfect_boxes():
    """Whole tables as the real-looking generator lays them (datasets.realtable: the near seat's won hand face up
    in a row or in groups, the winning tile apart, its melds and flowers before it; now and then another seat's
    hand face up too), read from their ground-truth boxes: every seat's hand as laid."""
    from mjtable.datasets.realtable import real_table
    bank = _tiny_bank()
    wrong = []
    for seed in range(8):
        _, gt, _ = real_table(bank, random.Random(seed), "x.jpg", (960, 960))
        dets = [Detection(o.box, o.kind, o.orientation, 1.0) for o in gt.objects]
        lay = parse(dets, kind="overhead")
        wrong += [(seed, p.seat) for p in gt.table.players if _hand_key(lay.table.player(p.seat)) != _hand_key(p)]
    assert wrong == []


@pytest.mark.parametrize("out", [0.0, 0.7])
def test_a_seat_of_two_discards_a_little_farther_out_keeps_them_in_its_river(out):
    """A seat that has thrown two tiles, its river a little farther from the centre than the others', its
    standing hand (seen from above, shorter than wide) most of its tiles, and a flower far from its pung in one
    row: the flower and the pung are no touching tiles, so the seat's tile spacing is its rows' (it had been taken
    for the standing tiles' short side, a fifth too small, and the river's start, measured in it, for no river:
    the two discards were read as exposed tiles)."""
    spec = {
        "self": dict(discards=[3, 4, 5, 30, 31, 6], wall=12, wall_start=3, hand=13),
        "right": dict(discards=[6, 7, 8, 9, 10, 11], wall=10, melds=[Meld(PUNG, 30, source=ACROSS)], hand=10),
        "across": dict(discards=[21, 4], wall=4, wall_start=8, melds=[Meld(PUNG, 18, source=ACROSS)],
                       flowers=[34], hand=13),
        "left": dict(discards=[33, 32, 1, 2, 12, 13], melds=[Meld(KONG, 20, source=RIGHT)], hand=10, wall=9),
    }
    tiles = layout_table(spec)
    river = [t for t in tiles if t.seat == "across" and t.group == "discard"]
    cx, cy = sum(t.x for t in river) / 2, sum(t.y for t in river) / 2
    norm = (cx * cx + cy * cy) ** 0.5
    for t in river:
        t.x, t.y = t.x + out * cx / norm, t.y + out * cy / norm
    lay = parse_overhead(render(tiles, scale=22, center=(320, 320), squash=0.65))
    across = lay.table.player("across")
    assert across.discards == (21, 4) and across.exposed == ()
    assert across.flowers == (34,) and across.concealed_face_down == 13
