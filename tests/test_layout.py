"""Layout parser on detections built from geometry (tests/layout_scenes.py) and on generated scenes."""
from __future__ import annotations

import dataclasses
import random

import pytest

from mjtable.scoring import tiles as T
from mjtable.scoring.hand import ACROSS, KONG, LEFT, PUNG, RIGHT, Meld, Situation
from mjtable.scoring.notation import format_hand, parse_hand
from mjtable.scoring.table import MeldOnTable, PlayerArea
from mjtable.vision.layout import HandError, LayoutError, parse, parse_overhead, parse_phone, table_to_hand
from mjtable.vision.types import Detection
from tests.layout_scenes import Tile as LTile
from tests.layout_scenes import layout_hand, layout_table, mild_perspective, render

HANDS = [
    "123m456p789s1122z +2z",
    "23m11z [456p<] [777z^] [2222s>] +1m 15f",
    "1m [234m<] [777z^] [1111p] [999s>] +1m 3f",
    "5z [123m<] [456m^] [789m>] [1111p] +5z 2f",
    "2233m445566p [789s<] +4m 1234f",
    "345p6z [1111m<] [2222s^] [3333z] +6z",
]


def read(dets):
    lay = parse_phone(dets)
    return lay, format_hand(table_to_hand(lay.table.players[0]))


@pytest.mark.parametrize("text", HANDS)
@pytest.mark.parametrize("melds_side", ["right", "left"])
def test_phone_straight(text, melds_side):
    hand = parse_hand(text)
    lay, got = read(render(layout_hand(hand, melds_side=melds_side)))
    assert got == format_hand(hand)
    assert lay.table.unplaced == []
    area = lay.table.players[0]
    assert area.winning_tile_apart and area.winning_tile == hand.winning_tile
    assert sorted(area.concealed) == sorted(hand.concealed)


@pytest.mark.parametrize("text", HANDS[:3])
@pytest.mark.parametrize("angle", [0, 30])
def test_phone_loose_tiles_turned_from_the_hand_are_no_part_of_it(text, angle):
    """Tiles pushed aside on the table lie at angles of their own: a group whose edges lie 15 degrees or more from
    the hand row's (Detection.angle) is set apart with a note, whatever way the photo is turned; without the edge
    directions (detections from a file) no tile is set apart as turned: the same tiles spoil the hand, or are left
    out only because they make no meld and the hand is whole without them."""
    hand = parse_hand(text)
    tiles = layout_hand(hand)
    loose = [LTile(k, x, -2.6 + dy, a) for k, x, dy, a in
             [(5, 1.0, 0.0, 35.0), (22, 2.6, 0.3, 62.0), (30, 5.5, -0.2, 20.0), (8, 6.7, 0.1, 110.0)]]
    lay, got = read(render(tiles + loose, angle=angle, edges=True))
    assert got == format_hand(hand)
    notes = [n for n in lay.table.unplaced if "lie turned" in n]
    assert notes and all("not part of the hand" in n for n in notes)
    assert sum(n.count(" at (") for n in notes) == 4
    try:
        lay, blind = read(render(tiles + loose, angle=angle))
    except HandError:                           # the loose tiles made melds of no set
        lay, blind = None, None
    assert lay is None or not any("lie turned" in n for n in lay.table.unplaced)
    assert blind != format_hand(hand) or any("make no meld" in n for n in lay.table.unplaced)


def test_phone_many_loose_tiles_around_the_hand_leave_its_rows_alone():
    """Loose tiles all round the hand, turned every way: they are set apart before the rows are found (the rows
    are the hand's alone), so the hand, its melds and its winning tile read as laid."""
    hand = parse_hand("23m11z [456p<] [777z^] [2222s>] +1m 15f")
    rng = random.Random(3)
    loose = [LTile(rng.choice([0, 5, 12, 22, 30, 31]), rng.uniform(-2, 16), y, rng.choice([25.0, 35.0, 55.0, 70.0]))
             for y in (-2.6, -4.2, 3.0) for _ in range(5)]
    loose += [LTile(8, -0.75, 0.0, 30.0), LTile(17, -1.95, 0.1, 40.0)]     # pushed against the hand row's end
    for angle in (0, 20):
        lay, got = read(render(layout_hand(hand) + loose, angle=angle, edges=True))
        assert got == format_hand(hand), angle
        assert any("loose tiles pushed aside" in n for n in lay.table.unplaced)


def test_phone_tiles_off_the_hand_row_beyond_its_count_are_no_part_of_it():
    """Two tiles lying square beside each other off the hand's row, when the hand already holds its 13 tiles and
    the winning tile: no part of the hand (they would make 16)."""
    hand = parse_hand("123m456p789s1122z +2z")
    pair = [LTile(5, 4.0, -3.5), LTile(22, 5.0, -3.5)]
    lay, got = read(render(layout_hand(hand) + pair, edges=True))
    assert got == format_hand(hand)
    assert any("off the hand's row" in n for n in lay.table.unplaced)


def test_phone_four_melds_take_the_single_tiles_nearest_them():
    """Four melds leave one concealed tile and the winning tile, so there is no concealed row to measure from:
    of the single tiles, the two nearest the melds are the hand's, and loose tiles lying square to it farther
    off are not (they were taken in reading order, and a loose tile became the winning tile)."""
    hand = parse_hand("1m [234m<] [777z^] [1111p] [999s>] +1m")
    loose = [LTile(30, 3.0, -2.6), LTile(21, 7.5, -2.8), LTile(13, 12.0, -2.5)]
    lay, got = read(render(loose + layout_hand(hand), edges=True))
    assert got == format_hand(hand)
    assert sum("not part of the hand" in n for n in lay.table.unplaced) == 3


def test_phone_a_flower_among_loose_tiles_is_no_flower_of_the_hand():
    """A flower lying among tiles pushed aside, far from the hand, is not the hand's (it is near tiles, but none
    of the hand's); the hand's own flowers, in a row beside it, are."""
    hand = parse_hand("123m456p789s1122z +2z 15f")
    pile = [LTile(k, x, -9.0 + dy, a) for k, x, dy, a in [(5, 3.0, 0.0, 35.0), (22, 4.4, 0.4, 62.0),
                                                          (30, 5.8, -0.3, 28.0), (36, 4.5, 1.7, 0.0)]]
    lay, got = read(render(layout_hand(hand) + pile, edges=True))
    assert got == format_hand(hand)
    assert any("3f" in n and "not part of the hand" in n for n in lay.table.unplaced)


def test_phone_a_flower_askew_beside_loose_tiles_near_the_hand_is_no_flower_of_it():
    """A flower lying a little askew (10 degrees: too little to be set apart as turned) nearer the loose tiles
    pushed aside than the hand, though within reach of the hand, is no flower of the hand; the same flower square
    to the hand is (a flower row laid beside loose tiles)."""
    hand = parse_hand("123m456p789s1122z +2z")
    pile = [LTile(k, x, -3.4 + dy, a) for k, x, dy, a in [(5, 3.0, 0.0, 35.0), (22, 4.6, 0.2, 62.0),
                                                          (30, 6.0, -0.3, 28.0)]]
    for angle, is_hands in ((10.0, False), (0.0, True)):
        flower = LTile(36, 4.4, -2.0, angle)
        lay, got = read(render(layout_hand(hand) + pile + [flower], edges=True))
        assert got == format_hand(hand) + (" 3f" if is_hands else ""), angle
        assert any("3f" in n and "not part of the hand" in n for n in lay.table.unplaced) != is_hands


def test_phone_tiles_that_look_alike_both_ways_up_do_not_turn_the_hand():
    """Dots and bamboo that look the same turned 180 degrees (scoring.tiles.REVERSIBLE), read upside down by a
    classifier that cannot tell, outvote the few other tiles read upright: the other tiles decide which way the
    rows read, and the hand reads as laid (its meld from the left, the winning tile at the right). With every
    tile's vote alike the hand would read turned round."""
    hand = parse_hand("123p345p22s456s [567m<] +9p")
    dets = render(layout_hand(hand))
    flipped = [dataclasses.replace(d, orientation="upside_down", orientation_p=(0.0, 0.0, 1.0))
               if d.kind in T.REVERSIBLE and d.orientation == "upright" else d for d in dets]
    assert sum(d.orientation == "upside_down" for d in flipped) > 2 * sum(d.orientation == "upright" for d in flipped)
    assert read(flipped)[1] == format_hand(hand)
    alike = parse_hand("123p345p2245s999p +5s")       # every tile reversible: their votes are all there is, and
    lay, got = read(render(layout_hand(alike, apart=False), angle=180.0))      # nothing else tells the way up
    assert got == format_hand(alike) and abs(lay.angle) == 180.0


def test_phone_weak_boxes_do_not_set_the_hands_direction():
    """Tiles of dots and dragons show no straight edges (Detection.angle None); when the only other directions
    known are the flowers' and those of three weak boxes cut by the frame's edge, the flowers' decide the hand's
    direction, weighed by confidence: the flowers stay the hand's, not set apart as turned."""
    hand = parse_hand("123p456p789p1122z +2z 15f")
    dets = render(layout_hand(hand), edges=True)
    dets = [dataclasses.replace(d, angle=(7.6 if d.kind == 34 else 6.2) if T.is_flower(d.kind) else None)
            for d in dets]
    top = min(d.box[1] for d in dets)
    weak = [Detection((x, top - 260, x + 40, top - 140), 26, "upright", 0.15, angle=a)
            for x, a in ((700, -8.0), (745, -9.3), (790, -8.0))]
    lay, got = read(dets + weak)
    assert got == format_hand(hand)
    assert not any("lie turned" in n and "f at" in n for n in lay.table.unplaced)


def test_phone_weak_hand_tiles_do_not_set_the_direction_a_flower_is_judged_by():
    """Whether a flower beside loose tiles lies askew is judged against the hand's direction, weighed by each
    tile's confidence, as the layout finds the photo's: three weak boxes of the hand whose edges lie 10 degrees
    off do not outvote two sure tiles square to the flower, so the flower stays the hand's. Counted one each,
    they would turn the hand's direction and set the flower apart as loose."""
    hand = parse_hand("123p456p789p1122z +2z")
    pile = [LTile(k, x, -3.4 + dy, a) for k, x, dy, a in [(5, 3.0, 0.0, 35.0), (22, 4.6, 0.2, 62.0),
                                                          (30, 6.0, -0.3, 28.0)]]
    tiles = layout_hand(hand)
    dets = render(tiles + pile + [LTile(36, 4.4, -2.0, 0.0)], edges=True)
    n = len(tiles)
    dets[:n] = [dataclasses.replace(d, angle=None) for d in dets[:n]]
    for i, (conf, angle) in enumerate([(0.95, 0.0), (0.95, 0.0), (0.35, 10.0), (0.35, 10.0), (0.35, 10.0)]):
        dets[i] = dataclasses.replace(dets[i], confidence=conf, angle=angle)
    lay, got = read(dets)
    assert got == format_hand(hand) + " 3f"
    assert not any("3f" in n and "not part of the hand" in n for n in lay.table.unplaced)


def test_phone_a_lone_flower_turned_among_loose_tiles_is_no_flower_of_the_hand():
    """A flower with no flower beside it, turned 12 degrees from the hand (too little to be set apart as turned,
    and nearer the hand than the loose tiles, so flower_askew does not apply), is loose when loose tiles lie
    within reach of it; the same flower square to the hand, or with no loose tile near, is the hand's."""
    hand = parse_hand("123m456p789s1122z +2z")
    pile = [LTile(k, x, -4.0 + dy, a) for k, x, dy, a in [(5, 3.0, 0.0, 35.0), (22, 4.6, 0.2, 62.0),
                                                          (30, 6.0, -0.3, 28.0)]]
    for angle, loose, is_hands in ((12.0, pile, False), (2.0, pile, True), (12.0, [], True)):
        flower = LTile(36, 4.4, -1.6, angle)
        lay, got = read(render(layout_hand(hand) + loose + [flower], edges=True))
        assert got == format_hand(hand) + (" 3f" if is_hands else ""), (angle, len(loose))
        assert any("3f" in n and "not part of the hand" in n for n in lay.table.unplaced) != is_hands


def test_phone_two_loose_tiles_that_make_no_meld_are_no_meld_of_a_whole_hand():
    """Two tiles side by side off the hand, one lying sideways, look like a claimed meld but make none. When the
    hand is whole without them they are loose tiles, said; when it needs three more tiles they are still read as
    a meld the hand lacks, with its problem said."""
    hand = parse_hand("123m456p789s1122z +2z")
    pair = [LTile(5, 3.0, -3.0, 90.0), LTile(22, 4.2, -3.0, 0.0)]
    lay, got = read(render(layout_hand(hand) + pair, edges=True))
    assert got == format_hand(hand)
    assert any("make no meld" in n for n in lay.table.unplaced)
    short = [t for t in layout_hand(hand) if t.group != "concealed" or t.x > 3.5]    # three concealed tiles gone
    lay = parse_phone(render(short + pair, edges=True))
    assert len(lay.table.players[0].melds) == 1
    assert not any("make no meld" in n for n in lay.table.unplaced)


def test_phone_weak_box_read_as_a_flower_the_hand_holds_is_not_part_of_it():
    """A weak box at the end of the flower row (a coin) read as 1f, which the hand holds surely, with no other
    flower among its candidates: a set holds one of each flower, so it is not part of the hand, and said."""
    hand = parse_hand("23m11z [456p<] [777z^] [2222s>] +1m 15f")
    tl = layout_hand(hand)
    dets = render(tl)
    last = max((d for t, d in zip(tl, dets) if t.group == "flower"), key=lambda d: d.box[2])
    w = last.box[2] - last.box[0]
    coin = Detection((last.box[2] + 0.1 * w, last.box[1], last.box[2] + 1.1 * w, last.box[3]), 34, "upright",
                     0.15, candidates=((34, 0.3), (15, 0.19), (14, 0.14)))
    lay, got = read(dets + [coin])
    assert got == format_hand(hand)
    assert any(u.startswith("weak flower box 1f at") and "as a surer box does" in u for u in lay.table.unplaced)


def test_phone_flowers_in_a_row_read_left_to_right():
    """A row of flowers whose centres wander across half a tile's rounding still reads as one row, left to
    right."""
    from mjtable.vision.layout.geometry import Tile as GTile
    from mjtable.vision.layout.phone import _reading_order
    det = Detection((0, 0, 1, 1), 34, "upright", 1.0)
    row = [GTile(i, det, 0, 0, 1, u=u, v=v, w=1.0) for i, (u, v) in enumerate([(2.0, 0.45), (0.0, 0.55), (1.0, 0.5)])]
    assert [t.i for t in _reading_order(row)] == [1, 2, 0]
    two = row + [GTile(3, det, 0, 0, 1, u=0.5, v=1.9, w=1.0)]
    assert [t.i for t in _reading_order(two)] == [1, 2, 0, 3]


def test_phone_meld_details():
    hand = parse_hand("23m11z [456p<] [777z^] [2222s>] +1m 15f")
    lay, _ = read(render(layout_hand(hand)))
    melds = lay.table.players[0].melds
    assert [m.sideways for m in melds] == [0, 1, 3]
    assert melds[0].tiles == (12, 13, 14) and melds[0].meld.source == LEFT and melds[0].meld.claimed == 12
    assert melds[1].meld == Meld(PUNG, 33, source=ACROSS)
    assert melds[2].meld == Meld(KONG, 19, source=RIGHT)
    groups = sorted({p.group for p in lay.placed})
    assert groups == ["concealed", "flower", "meld:0", "meld:1", "meld:2", "winning"]


def test_phone_concealed_kong_face_down():
    hand = parse_hand("345p6z [1111m<] [2222s^] [3333z] +6z")
    lay, _ = read(render(layout_hand(hand)))
    ck = lay.table.players[0].melds[2]
    assert ck.tiles == (None, 29, 29, None) and ck.sideways is None
    assert ck.meld == Meld(KONG, 29, concealed=True)


@pytest.mark.parametrize("drop", [0, 3])
def test_phone_concealed_kong_with_one_tile_not_found(drop):
    """A concealed kong of which the detector found three tiles (the back at one end missed) is still a
    concealed kong: face down at both ends, faces between. It is read from the three shown, and said."""
    hand = parse_hand("345p6z [1111m<] [2222s^] [3333z] +6z")
    tl = layout_hand(hand)
    kong = [n for n, t in enumerate(tl) if t.group == "meld:2"]
    dets = [d for n, d in enumerate(render(tl)) if n != kong[drop]]
    lay, got = read(dets)
    assert got == "345p6z [1111m<] [2222s^] [3333z] +6z"
    assert lay.table.players[0].melds[2].tiles == (None, 29, 29, None)
    assert any("one of its tiles not found" in u for u in lay.table.unplaced)


@pytest.mark.parametrize("odd_p", [0.22, 0.7])
def test_phone_concealed_kong_with_one_face_misread(odd_p):
    """A concealed kong whose two faces read as two kinds, one surely and one not (the sure kind not among the
    weak one's candidates), is a kong of the sure one; two sure faces that differ are left as read, refused."""
    hand = parse_hand("345p6z [1111m<] [2222s^] [3333z] +6z")
    tl = layout_hand(hand)
    dets = render(tl)
    n = next(i for i, t in enumerate(tl) if t.group == "meld:2" and t.kind == 29)
    dets[n] = dataclasses.replace(dets[n], kind=31, confidence=odd_p,
                                  candidates=((31, odd_p), (30, 0.2), (32, 0.1)))
    lay = parse_phone(dets)
    if odd_p < 0.6:
        assert format_hand(table_to_hand(lay.table.players[0])) == "345p6z [1111m<] [2222s^] [3333z] +6z"
        assert any("a concealed kong's faces are alike" in u for u in lay.table.unplaced)
    else:
        assert lay.table.players[0].melds[2].meld is None
        assert any("face-up tiles differ" in u for u in lay.table.unplaced)


def test_phone_weak_back_half_over_a_concealed_kong_back_is_dropped():
    """A weak face-down box lying half over a back of a concealed kong (the back's edge found again) is a
    duplicate: the kong keeps its four tiles and the hand reads right."""
    hand = parse_hand("345p6z [1111m<] [2222s^] [3333z] +6z")
    tl = layout_hand(hand)
    dets = render(tl)
    i = next(n for n, t in enumerate(tl) if t.group == "meld:2" and t.back)
    x1, y1, x2, y2 = dets[i].box
    dx = 0.55 * (x2 - x1)
    dets.append(Detection((x1 - dx, y1, x2 - dx, y2), T.BACK, "face_down", 0.3))
    assert read(dets)[1] == format_hand(hand)


# Every angle, in steps that avoid landing only on nice values. Labels follow the nearest image axis,
# so near 45 degrees they say nothing and the spacing between tiles has to find the sideways tiles.
@pytest.mark.parametrize("angle", [3, 17, 31, 44, 45, 46, 59, 73, 88, 90, 101, 128, 135, 152, 179, 180, 197,
                                   226, 241, 269, 270, 284, 301, 315, 333, 352])
@pytest.mark.parametrize("text", HANDS)
def test_phone_rotated(angle, text):
    hand = parse_hand(text)
    lay, got = read(render(layout_hand(hand), angle=angle))
    assert got == format_hand(hand), f"angle {angle}"
    assert lay.table.unplaced == []
    assert abs((lay.angle + angle + 180) % 360 - 180) < 3     # layout angles are in image coords (y down)


@pytest.mark.parametrize("angle", [-8, 0, 6, 25])
@pytest.mark.parametrize("text", HANDS)
def test_phone_perspective(angle, text):
    hand = parse_hand(text)
    _, got = read(render(layout_hand(hand), angle=angle, homography=mild_perspective()))
    assert got == format_hand(hand)


def _dets(text, **kw):
    hand = parse_hand(text)
    return hand, layout_hand(hand, **kw)


def test_phone_missing_concealed_tile_is_reported():
    hand, lay_ = _dets(HANDS[0])
    dets = render(lay_)
    del dets[4]
    lay = parse_phone(dets)
    assert any("concealed tile" in u and "needs 13 + 1" in u for u in lay.table.unplaced)
    assert table_to_hand(lay.table.players[0]).problems()       # the hand is visibly short


def test_phone_missing_sideways_tile_is_reported():
    hand, lay_ = _dets("23m11z [456p<] [777z^] [2222s>] +1m 15f")
    dets = render(lay_)
    i = next(n for n, t in enumerate(lay_) if t.group == "meld:1" and t.angle == 90)
    del dets[i]
    lay = parse_phone(dets)
    assert lay.table.unplaced                                    # never a silent wrong hand
    assert any("needs" in u for u in lay.table.unplaced)


def test_phone_missing_winning_tile_is_reported():
    hand, lay_ = _dets(HANDS[1])
    dets = render(lay_)
    i = next(n for n, t in enumerate(lay_) if t.group == "winning")
    del dets[i]
    lay = parse_phone(dets)
    assert lay.table.players[0].winning_tile_apart is False
    assert any("needs 4 + 1" in u for u in lay.table.unplaced)


def test_phone_spurious_far_tile_is_unplaced():
    hand, lay_ = _dets(HANDS[1])
    dets = render(lay_)
    x1, y1, x2, y2 = dets[0].box
    dets.append(Detection((x1 + 700, y1 - 300, x2 + 700, y2 - 300), 8, "upright", 0.4))
    lay, got = read(dets)
    assert got == format_hand(hand)
    assert any("9m" in u and "not part of the hand" in u for u in lay.table.unplaced)
    assert [p.group for p in lay.placed].count("unplaced") == 1


def test_phone_spurious_far_flower_is_unplaced():
    hand, lay_ = _dets(HANDS[0])
    dets = render(lay_)
    x1, y1, x2, y2 = dets[0].box
    dets.append(Detection((x1, y1 + 600, x2, y2 + 600), 36, "upright", 0.4))
    lay, got = read(dets)
    assert got == format_hand(hand)
    assert any("3f" in u for u in lay.table.unplaced)


def test_phone_duplicate_box_is_dropped():
    hand, lay_ = _dets(HANDS[2])
    dets = render(lay_)
    x1, y1, x2, y2 = dets[3].box
    dets.append(Detection((x1 + 2, y1 + 1, x2 + 2, y2 + 1), dets[3].kind, dets[3].orientation, 0.3))
    lay, got = read(dets)
    assert got == format_hand(hand)
    assert any("duplicate" in u for u in lay.table.unplaced)
    assert [p.group for p in lay.placed].count("duplicate") == 1


def test_phone_extra_weak_tile_in_row_is_dropped_and_said():
    hand, lay_ = _dets(HANDS[0])
    dets = render(lay_)
    # squeeze a weak 14th concealed detection at the left end of the row
    x1, y1, x2, y2 = dets[0].box
    w = x2 - x1
    dets.append(Detection((x1 - w, y1, x2 - w, y2), 26, "upright", 0.2))
    lay, got = read(dets)
    assert got == format_hand(hand)
    assert any("least sure" in u for u in lay.table.unplaced)


def test_phone_winning_tile_not_apart():
    hand = parse_hand("123m456p789s1122z +2z")
    lay_ = layout_hand(hand, apart=False)
    lay = parse_phone(render(lay_))
    area = lay.table.players[0]
    assert area.winning_tile is None and not area.winning_tile_apart
    h = table_to_hand(area, Situation(self_drawn=True))
    assert h.winning_tile == T.SOUTH and not h.situation.winning_tile_apart and h.situation.self_drawn
    assert not h.problems()


def test_phone_no_tiles():
    with pytest.raises(LayoutError):
        parse_phone([])
    with pytest.raises(ValueError):
        parse([], kind="sideways")


def test_table_to_hand_refuses_unread_meld():
    area = PlayerArea(concealed=(0, 1), melds=(MeldOnTable((5, 6, 20), 0, None),), winning_tile=2)
    with pytest.raises(HandError, match="could not read"):
        table_to_hand(area)


# ----------------------------------------------------------------------------------------- overhead

def _table():
    return {
        "self": dict(discards=[0, 9, 18, 27, 31, 5, 6, 7], wall=12, wall_start=3,
                     melds=[Meld("chow", 1, source=LEFT)], flowers=[34, 36], hand=10),
        "right": dict(discards=[1, 2, 3], wall=18, melds=[Meld(PUNG, 30, source=ACROSS), Meld(KONG, 14, True)],
                      hand=7, exposed=[(22, 6.0)]),
        "across": dict(discards=list(range(10, 23)), wall=5, wall_start=8, hand=13, exposed=[(25, -5.5, True)]),
        "left": dict(discards=[33, 32], melds=[Meld(KONG, 20, source=RIGHT)], flowers=[40], hand=10, wall=0),
    }


def _expect(seat, spec, area):
    assert area.seat == seat
    assert area.discards == tuple(spec.get("discards", ())), seat
    assert area.concealed is None and area.concealed_face_down == spec.get("hand", 0), seat
    assert sorted(area.flowers) == sorted(spec.get("flowers", ())), seat
    assert [m.meld for m in area.melds] == [dataclasses.replace(m, claimed=None) if m.kind != "chow" else m
                                            for m in spec.get("melds", ())] or \
        [dataclasses.replace(m.meld, claimed=None) for m in area.melds] == \
        [dataclasses.replace(m, claimed=None) for m in spec.get("melds", ())], seat
    assert sorted(area.exposed) == sorted(e[0] for e in spec.get("exposed", ())), seat


@pytest.mark.parametrize("angle", [0, 3, -4, 11, -17, 30])
def test_overhead_reads_every_seat(angle):
    spec = _table()
    lay = parse_overhead(render(layout_table(spec), angle=angle, scale=22, center=(320, 320), squash=0.6))
    assert lay.table.unplaced == []
    for seat, s in spec.items():
        _expect(seat, s, lay.table.player(seat))
    groups = {p.group for p in lay.placed}
    assert {"wall", "discard", "exposed", "flower", "concealed"} <= groups


@pytest.mark.parametrize("off", [120, 300, 500])
def test_overhead_a_box_apart_from_the_table_is_not_placed(off):
    """A paper or a phone beside the table read as a tile (here a flower box far below it) lies more than
    table_apart median tile sizes from every tile: it is not placed, and said; every seat reads as laid. Placed,
    it stretched the table's extent, whose middle sets the seats: the self seat, or every seat, read wrong."""
    from mjtable.vision.layout.base import LayoutParams
    spec = _table()
    dets = render(layout_table(spec), scale=22, center=(320, 320), squash=0.6)
    low = max(d.box[3] for d in dets)
    paper = Detection((560.0, low + off, 640.0, low + off + 60), 41, "upright", 0.4)
    lay = parse_overhead(dets + [paper])
    for seat, s in spec.items():
        _expect(seat, s, lay.table.player(seat))
    assert [u for u in lay.table.unplaced if "apart from every tile" in u] == [
        f"box 8f at (600,{low + off + 30:.0f}) lies apart from every tile of the table: not placed"]
    with pytest.raises(AssertionError):
        blind = parse_overhead(dets + [paper], params=LayoutParams(table_apart=1e9))
        for seat, s in spec.items():
            _expect(seat, s, blind.table.player(seat))


@pytest.mark.parametrize("angle", [0, 7])
def test_overhead_hand_counted_by_its_length(angle):
    """A standing hand seen from above is a bar of backs: a detector may split it into more, overlapping boxes
    (or merge two tiles). The count comes from the row's length, and the mismatch is reported."""
    spec = _table()
    tl = layout_table(spec)
    hand = sorted((t for t in tl if t.seat == "across" and t.group == "concealed"), key=lambda t: (t.x, t.y))
    a, b = hand[4], hand[5]
    tl.append(dataclasses.replace(a, x=(a.x + b.x) / 2, y=(a.y + b.y) / 2))    # a box astride two tiles
    tl.append(dataclasses.replace(a, x=(2 * a.x + hand[3].x) / 3, y=(2 * a.y + hand[3].y) / 3))
    lay = parse_overhead(render(tl, angle=angle, scale=22, center=(320, 320), squash=0.6))
    assert lay.table.player("across").concealed_face_down == spec["across"]["hand"]
    assert any("hand row of 15 face-down boxes is 13 tiles long" in u for u in lay.table.unplaced)


def test_overhead_face_down_tile_in_the_river_is_not_an_exposed_tile():
    spec = _table()
    tl = layout_table(spec)
    d = [t for t in tl if t.seat == "self" and t.group == "discard"][2]
    tl.append(dataclasses.replace(d, kind=T.BACK, back=True, x=d.x + 0.3, y=d.y + 1.6, group="stray"))
    lay = parse_overhead(render(tl, scale=22, center=(320, 320), squash=0.6))
    _expect("self", spec["self"], lay.table.player("self"))
    assert any("face-down tile in the river zone" in u for u in lay.table.unplaced)


@pytest.mark.parametrize("sure", [False, True, "faint"])
def test_overhead_weak_flower_in_a_river_slot_is_the_discard_misread(sure):
    """Flowers are set aside, never thrown: a box read as a flower with little confidence in a slot of the river
    is the discard there, misread (its likeliest suit tile), even one too faint to be placed as a flower
    (LayoutParams.faint_flower). A sure flower there stays a flower."""
    spec = _table()
    tl = layout_table(spec)
    i = [n for n, t in enumerate(tl) if t.seat == "self" and t.group == "discard"][3]
    dets = render(tl, scale=22, center=(320, 320), squash=0.6)
    d = dets[i]
    true = spec["self"]["discards"][3]
    dets[i] = dataclasses.replace(d, kind=37, confidence={True: 0.9, False: 0.2, "faint": 0.07}[sure],
                                  candidates=((37, 0.3), (true, 0.25), (35, 0.1)))
    lay = parse_overhead(dets)
    me = lay.table.player("self")
    if sure is True:
        assert 37 in me.flowers and true not in me.discards
    else:
        _expect("self", spec["self"], me)
        assert any("lies in a river slot: read as the discard" in u for u in lay.table.unplaced)


@pytest.mark.parametrize("slot", [3, 6])
def test_overhead_weak_flower_in_a_river_slot_with_no_suit_reading_is_not_a_flower(slot):
    """A weak flower box in a slot of the river whose candidates are all flowers is still no flower of the seat's
    (flowers are set aside, never thrown): it is not placed, and said; the seat's hand and flowers read right.
    Its slot is taken all the same: the discard after it (the last, at slot 7) is no tile exposed."""
    spec = _table()
    tl = layout_table(spec)
    i = [n for n, t in enumerate(tl) if t.seat == "self" and t.group == "discard"][slot]
    dets = render(tl, scale=22, center=(320, 320), squash=0.6)
    dets[i] = dataclasses.replace(dets[i], kind=37, confidence=0.15, candidates=((37, 0.22), (40, 0.09), (34, 0.08)))
    lay = parse_overhead(dets)
    me = lay.table.player("self")
    assert 37 not in me.flowers and me.flowers == tuple(spec["self"].get("flowers", ()))
    assert me.discards == tuple(k for n, k in enumerate(spec["self"]["discards"]) if n != slot) and me.exposed == ()
    assert any("a discard whose face is not read, not placed" in u for u in lay.table.unplaced)
    assert [p.group for p in lay.placed if p.det is dets[i] or p.det.box == dets[i].box] == ["unplaced"]


@pytest.mark.parametrize("k", [0.00025, 0.0004])
def test_overhead_perspective(k):
    """A camera not straight above: far tiles look smaller. Hands are counted with their own spacing and the
    seat's (the median of its touching tiles' spacings), so a far hand bar is not one tile too long."""
    spec = _table()
    H = mild_perspective(center=(320, 320), k=k)
    lay = parse_overhead(render(layout_table(spec), angle=2, scale=22, center=(320, 320), squash=0.6, homography=H))
    for seat, s in spec.items():
        _expect(seat, s, lay.table.player(seat))


def test_overhead_missing_discard_is_reported():
    spec = _table()
    tl = layout_table(spec)
    i = [n for n, t in enumerate(tl) if t.seat == "across" and t.group == "discard"][4]
    dets = render(tl, scale=22, center=(320, 320), squash=0.6)
    del dets[i]
    lay = parse_overhead(dets)
    assert any(u.startswith("across: discard slot 4 empty") for u in lay.table.unplaced)
    assert lay.table.player("across").discards == tuple(d for n, d in enumerate(spec["across"]["discards"]) if n != 4)


@pytest.mark.parametrize("shear", [0.0, -0.3, 0.3])
def test_overhead_river_rows_skewed_along_are_still_discards(shear):
    """A table photographed from a seat keeps some skew once its perspective is undone: each river row of the
    self seat lies 0.3 tile along from the one before. Its third row then falls between the slots of the first
    row's grid and was read as exposed tiles; the grid now follows the rows' skew, and all 16 are discards, in
    order."""
    spec = _table()
    spec["self"]["discards"] = [0, 9, 18, 27, 31, 5, 6, 7, 13, 14, 22, 23, 24, 33, 2, 3]
    tl = layout_table(spec)
    mine = sorted({round(t.y, 3) for t in tl if t.seat == "self" and t.group == "discard"})
    for t in tl:
        if t.seat == "self" and t.group == "discard":
            t.x += shear * mine.index(round(t.y, 3))
    lay = parse_overhead(render(tl, scale=22, center=(320, 320), squash=0.6))
    for seat, sp in spec.items():
        _expect(seat, sp, lay.table.player(seat))


def test_overhead_duplicate_is_dropped():
    spec = _table()
    dets = render(layout_table(spec), scale=22, center=(320, 320), squash=0.6)
    d = dets[5]
    dets.append(Detection(tuple(v + 1 for v in d.box), d.kind, d.orientation, 0.2))
    lay = parse_overhead(dets)
    assert any("duplicate" in u for u in lay.table.unplaced)
    for seat, s in spec.items():
        _expect(seat, s, lay.table.player(seat))


def test_overhead_no_tiles():
    with pytest.raises(LayoutError):
        parse_overhead([])


# ------------------------------------------------------------------------------- generated scenes

def _generated(kind, n):
    gen = pytest.importorskip("mjtable.datasets.generate")
    try:
        art = gen._art()
    except Exception as e:                      # tile art comes from system packages
        pytest.skip(f"no tile art on this machine: {e}")
    if not art:
        pytest.skip("no tile art on this machine")
    out = []
    for i in range(n):
        _, gt, _ = gen.make_scene(kind, 4242, i, 640)
        out.append(gt)
    return out


def _key(p: PlayerArea, overhead: bool):
    k = (None if p.concealed is None else sorted(p.concealed),
         [(m.tiles, m.sideways, None if m.meld is None else (m.meld.kind, m.meld.tile, m.meld.concealed, m.meld.source))
          for m in p.melds], p.winning_tile, sorted(p.flowers))
    if overhead:
        k += (p.concealed_face_down, list(p.discards), sorted(p.exposed))
    return k


@pytest.mark.parametrize("kind,n", [("phone", 12), ("overhead", 6)])
def test_generated_scenes_with_perfect_detections(kind, n):
    """Ground-truth boxes as detections: the parse must give back the generator's players exactly."""
    for gt in _generated(kind, n):
        dets = [Detection(o.box, o.kind, o.orientation, 1.0) for o in gt.objects]
        lay = parse(dets, kind=kind)
        for gp in gt.table.players:
            assert _key(lay.table.player(gp.seat), kind == "overhead") == _key(gp, kind == "overhead"), gt.image


@pytest.mark.parametrize("angle", [0, 9, -7, 90, 200])
@pytest.mark.parametrize("dy", [1.0, 0.7])
def test_phone_added_kong(angle, dy):
    """加杠: the fourth tile lies on the claimed (sideways) tile of a pung. Stacked close (dy 0.7 tile widths,
    as the scene generator draws it) it falls into the meld's row and is itself read as sideways."""
    from tests.layout_scenes import Tile
    base = parse_hand("23m11z [456p<] [777z^] [222s>] +1m")
    tl = layout_hand(base)
    side = next(t for t in tl if t.group == "meld:2" and t.angle == 90)
    tl.append(Tile(side.kind, side.x, side.y - dy, 90.0, group="meld:2"))
    lay, got = read(render(tl, angle=angle))
    assert got == "23m11z [456p<] [777z^] [2222s>+] +1m"
    assert lay.table.unplaced == []
    assert lay.table.players[0].melds[2].meld == Meld(KONG, 19, source=RIGHT, added=True)


@pytest.mark.parametrize("misread", ["claimed weak", "added upright"])
def test_phone_added_kong_whose_hidden_or_top_tile_is_misread(misread):
    """加杠 seen by a real detector: the claimed tile under the added one shows only its edge and is read as
    some other kind with little confidence; or the added tile on top is read as another kind, labelled upright.
    Two boxes squarely one on the other over a sideways tile are one kind, the meld's."""
    from tests.layout_scenes import Tile
    tl = layout_hand(parse_hand("23m11z [456p<] [777z^] [222s>] +1m"))
    side = next(t for t in tl if t.group == "meld:2" and t.angle == 90)
    tl.append(Tile(side.kind, side.x, side.y - 0.7, 90.0, group="meld:2"))
    dets = render(tl)
    i = tl.index(side) if misread == "claimed weak" else len(tl) - 1
    if misread == "claimed weak":
        dets[i] = dataclasses.replace(dets[i], kind=18, confidence=0.25, candidates=((18, 0.3), (4, 0.1)))
    else:
        dets[i] = dataclasses.replace(dets[i], kind=17, orientation="upright", confidence=0.5,
                                      candidates=((17, 0.6), (26, 0.3)))
    lay, got = read(dets)
    assert got == "23m11z [456p<] [777z^] [2222s>+] +1m"
    assert lay.table.players[0].melds[2].meld == Meld(KONG, 19, source=RIGHT, added=True)


def _misread(dets, i, kind, candidates):
    dets = list(dets)
    dets[i] = dataclasses.replace(dets[i], kind=kind, candidates=candidates)
    return dets


def test_phone_meld_misread_is_repaired_from_the_candidates():
    """A claimed meld must be a set: a tile read as 6p inside [8p 6p 8p] whose second candidate is 8p makes the
    pung [8p 8p 8p]; the change is reported. Without a likely enough candidate the meld stays unreadable."""
    hand = parse_hand("23m11z [456p<] [888p^] [222s>] +1m")
    tl = layout_hand(hand)
    dets = render(tl)
    i = next(n for n, t in enumerate(tl) if t.group == "meld:1" and t.angle == 0)
    lay, got = read(_misread(dets, i, 14, ((14, 0.55), (16, 0.40), (13, 0.05))))
    assert got == format_hand(hand)
    assert any("not a set as read; read as [8p 8p 8p]" in u and "6p->8p" in u for u in lay.table.unplaced)
    lay = parse_phone(_misread(dets, i, 14, ((14, 0.98), (13, 0.01))))
    assert lay.table.players[0].melds[1].meld is None
    assert any("not a chow, pung or kong" in u for u in lay.table.unplaced)
    lay = parse_phone(_misread(dets, i, 14, ()))           # no candidates (detections from a file)
    assert lay.table.players[0].melds[1].meld is None


def test_phone_loose_face_down_tiles_are_not_a_meld():
    """Two face-down boxes apart from everything (say, a box-shaped object on the table) are no meld."""
    hand = parse_hand("23m11z [456p<] [888p^] [222s>] +1m")
    tl = layout_hand(hand)
    right = max(t.x for t in tl)
    y = max(t.y for t in tl)
    from tests.layout_scenes import Tile
    tl += [Tile(T.BACK, right + 3.0, y, back=True), Tile(T.BACK, right + 4.0, y, back=True)]
    lay, got = read(render(tl))
    assert got == format_hand(hand)
    assert any("are not a concealed kong (4 tiles): not placed" in u for u in lay.table.unplaced)


def test_phone_flower_misread_as_a_suit_tile_beside_the_flowers():
    """A flower read as a suit tile, the flower among its candidates, lying against the other flowers is a
    flower (and said); the same reading away from the flowers stays a suit tile."""
    tl = layout_hand(parse_hand("2233m445566p [789s<] +4m 1234f"))
    dets = render(tl)
    i = [n for n, t in enumerate(tl) if t.group == "flower"][1]
    dets[i] = dataclasses.replace(dets[i], kind=18, confidence=0.3, candidates=((18, 0.4), (35, 0.1)))
    lay, got = read(dets)
    assert got == "2233m445566p [789s<] +4m 1234f"
    assert any("touches the flowers and may be 2f" in u for u in lay.table.unplaced)
    # without the flower among its candidates it is what it reads, and not part of the hand
    dets[i] = dataclasses.replace(dets[i], candidates=((18, 0.4), (22, 0.1)))
    lay, got = read(dets)
    assert lay.table.players[0].flowers == (34, 36, 37)


def test_a_flower_read_from_its_familys_chance_yields_to_a_sure_one():
    """Two tiles read as 5f: one surely, one from its family's chance alone (no flower among its candidates, read
    as a flower by the layout). The unsure one offers its likeliest flowers (Detection.flower) and moves; it
    does not push the sure one off its reading."""
    from mjtable.vision.layout.flowers import distinct_flowers
    from mjtable.vision.layout.geometry import Tile as Placed
    sure = Detection((0, 0, 10, 14), 38, "upright", 0.9, ((38, 0.9), (35, 0.05)))
    unsure = Detection((20, 0, 30, 14), 38, "upright", 0.1, ((20, 0.1), (3, 0.08)),
                       flower=((38, 0.2), (35, 0.06), (41, 0.04)))
    notes: list[str] = []
    assert distinct_flowers([Placed(0, sure, 5, 7, 12), Placed(1, unsure, 25, 7, 12)], notes) == (38, 35)
    assert notes == ["flowers read 5f 5f: each flower is unique; read as 5f 2f"]


def test_phone_flowers_are_unique():
    """Two flowers read as the same flower: the likelier distinct reading is taken and reported."""
    hand = parse_hand("23m11z [456p<] [888p^] [222s>] +1m 15f")
    tl = layout_hand(hand)
    dets = render(tl)
    i = next(n for n, d in enumerate(dets) if d.kind == 38)                   # 5f read as 1f
    lay, got = read(_misread(dets, i, 34, ((34, 0.6), (38, 0.3), (35, 0.1))))
    assert got == format_hand(hand)
    assert any("each flower is unique; read as" in u for u in lay.table.unplaced)


def test_phone_face_down_box_inside_the_hand_row_is_dropped():
    """A shadow read as a back between the hand and the winning tile: dropped, and the winning tile is apart."""
    hand = parse_hand("123m456p789s11z [345m<] +1z")
    tl = layout_hand(hand)
    from tests.layout_scenes import Tile
    win = next(t for t in tl if t.group == "winning")
    tl.append(Tile(T.BACK, win.x - 0.8, win.y, back=True))
    lay, got = read(render(tl))
    assert got == format_hand(hand)
    assert any("inside the concealed row: not a tile of the hand" in u for u in lay.table.unplaced)


def test_phone_winning_tile_set_apart_by_a_narrow_gap():
    """A winning tile set apart by less than a group gap still stands apart: the hand row has one tile too many
    and its last gap is clearly the widest."""
    hand = parse_hand("123m456p789s1122z +2z")
    lay, got = read(render(layout_hand(hand, gap=0.2)))
    assert got == format_hand(hand)
    assert any("set apart by a narrow gap" in u for u in lay.table.unplaced)
    lay, got = read(render(layout_hand(hand, apart=False)))          # not apart at all: no winning tile
    assert lay.table.players[0].winning_tile is None



def _added_kong_scene(text: str, meld: str, dy: float = 0.7, gap: float = 0.6, angle: float = 0):
    """A hand laid out with a tile stacked on ``meld``'s sideways tile (加杠): (tiles, detections, index of the
    claimed tile's detection); the stacked tile's detection is the last."""
    from tests.layout_scenes import Tile
    tl = layout_hand(parse_hand(text), gap=gap)
    side = next(t for t in tl if t.group == meld and t.angle == 90)
    tl.append(Tile(side.kind, side.x, side.y - dy, 90.0, group=meld))
    return tl, render(tl, angle=angle), tl.index(side)


def _as_one_box(dets: list, i: int, **fields) -> list:
    """The claimed tile (detection i) and the tile stacked on it (the last) found as ONE box around both."""
    a, b = dets[i], dets[-1]
    box = (min(a.box[0], b.box[0]), min(a.box[1], b.box[1]), max(a.box[2], b.box[2]), max(a.box[3], b.box[3]))
    merged = dataclasses.replace(a, box=box, **fields)
    return [merged if d is a else d for d in dets[:-1]]


@pytest.mark.parametrize("angle", [0, 8, 90])
def test_phone_added_kong_seen_as_one_box(angle):
    """加杠 whose claimed tile and added tile came out of the detector as ONE box (misread as another kind):
    two upright 2s beside a box longer than theirs and taller is the kong's claimed + added tile."""
    _, dets, i = _added_kong_scene("23m11z [456p<] [777z^] [222s>] +1m", "meld:2", angle=angle)
    lay, got = read(_as_one_box(dets, i, kind=20))
    assert got == "23m11z [456p<] [777z^] [2222s>+] +1m"
    assert any("covers the claimed tile of a kong and the tile added" in u for u in lay.table.unplaced)


def test_phone_added_kong_seen_as_one_narrow_box_labelled_upright():
    """The one box over an added kong's two tiles, seen at a slant: only 1.2x as wide as the upright tiles
    beside it (not the 1.35x of a sideways tile seen square on) and labelled upright; still taller than them,
    it is the claimed + added tile."""
    from tests.layout_scenes import Tile
    tl = layout_hand(parse_hand("23m11z [456p<] [222s^] [777z>] +1m"))
    side = next(t for t in tl if t.group == "meld:1" and t.angle == 90)
    tl.append(Tile(side.kind, side.x, side.y - 0.7, 90.0, group="meld:1"))
    dets = render(tl)
    a, b = dets[tl.index(side)], dets[-1]
    up = next(d for t, d in zip(tl, dets) if t.group == "meld:1" and t.angle == 0)
    cx, half = (a.box[0] + a.box[2]) / 2, 0.6 * (up.box[2] - up.box[0])
    merged = dataclasses.replace(a, kind=19, orientation="upright", box=(cx - half, min(a.box[1], b.box[1]),
                                                                        cx + half, max(a.box[3], b.box[3])))
    dets = [merged if d is a else d for d in dets[:-1]]
    assert read(dets)[1] == "23m11z [456p<] [2222s^+] [777z>] +1m"


def test_phone_added_kong_found_both_as_one_box_and_as_two():
    """The detector found an added kong's two stacked tiles one by one (the hidden claimed tile weak and
    misread) and also as one box around both: the box around them is a duplicate, and the kong reads right."""
    from tests.layout_scenes import Tile
    tl = layout_hand(parse_hand("23m11z [456p<] [222s^] [777z>] +1m"))
    side = next(t for t in tl if t.group == "meld:1" and t.angle == 90)
    tl.append(Tile(side.kind, side.x, side.y - 0.7, 90.0, group="meld:1"))
    dets = render(tl)
    i = tl.index(side)
    a, b = dets[i], dets[-1]
    dets[i] = dataclasses.replace(a, kind=6, confidence=0.05, candidates=((T.BACK, 0.3), (6, 0.2)))
    dets[-1] = dataclasses.replace(b, confidence=0.65)
    dets.append(dataclasses.replace(a, kind=6, confidence=0.4, box=(min(a.box[0], b.box[0]) - 1, b.box[1] - 1,
                                                                    max(a.box[2], b.box[2]) + 1, a.box[3] + 1)))
    lay, got = read(dets)
    assert got == "23m11z [456p<] [2222s^+] [777z>] +1m"


def test_phone_added_kong_seen_as_one_weak_flower_box():
    """The same one box read (weakly) as a flower, the added tile lying low on the claimed one (seen from a
    low camera the pair is only a little taller than the upright tiles): a weak flower box inside a row of suit
    tiles is not a flower, and the box is the kong's claimed + added tile."""
    _, dets, i = _added_kong_scene("23m11z [456p<] [222s^] [777z>] +1m", "meld:1", dy=0.48)
    lay, got = read(_as_one_box(dets, i, kind=41, confidence=0.17, candidates=((41, 0.21), (8, 0.12), (17, 0.1))))
    assert got == "23m11z [456p<] [2222s^+] [777z>] +1m"
    assert any("lies in a row of suit tiles" in u for u in lay.table.unplaced)


def test_phone_concealed_kong_with_a_pale_back_read_as_white_dragon():
    """A pale back read as a blank white dragon (its candidates say back): [back 1m 1m 5z] is the concealed
    kong [back 1m 1m back], reported; a 5z with no back among its candidates stays unreadable."""
    hand = parse_hand("123p456s789s11z [1111m] +1z")
    tl = layout_hand(hand)
    dets = render(tl)
    i = max((n for n, t in enumerate(tl) if t.back), key=lambda n: tl[n].x)
    dets[i] = dataclasses.replace(dets[i], orientation="upright")
    lay, got = read(_misread(dets, i, T.WHITE, ((T.BACK, 0.9), (T.WHITE, 0.05))))
    assert got == format_hand(hand)
    assert any("read as [back 1m 1m back]" in u for u in lay.table.unplaced)
    lay = parse_phone(_misread(dets, i, T.WHITE, ((T.WHITE, 0.99),)))
    assert lay.table.players[0].melds[0].meld is None


def _with_orientation(d: Detection, label: str, probs) -> Detection:
    return dataclasses.replace(d, orientation=label, orientation_p=probs)


def test_phone_sideways_tile_whose_face_hides_its_direction():
    """A blank white dragon looks the same turned a quarter: the classifier calls the claimed tile upright but is
    unsure (its axis probability near 0.5), so the box shape decides and the pung keeps its source."""
    hand = parse_hand("23m11z [456p<] [555z^] [222s>] +1m")
    tl = layout_hand(hand)
    dets = render(tl)
    i = next(n for n, t in enumerate(tl) if t.group == "meld:1" and t.angle == 90.0)
    x1, y1, x2, y2 = dets[i].box               # seen at a slant its box is less wide than a flat tile's
    dets[i] = dataclasses.replace(dets[i], box=(x1 + 0.12 * (x2 - x1), y1, x2 - 0.12 * (x2 - x1), y2))
    assert read(dets)[1] == format_hand(hand)
    dets[i] = _with_orientation(dets[i], "upright", (0.55, 0.40, 0.05))
    assert read(dets)[1] == format_hand(hand)


def test_overhead_discard_labelled_the_other_way_up_is_still_a_discard():
    """Across's discards face away from the camera. One whose face looks the same turned a half (an 8 of bamboo)
    may be labelled the other way up, even confidently: where it lies, on the river grid, makes it a discard."""
    spec = _table()
    tl = layout_table(spec)
    i = [n for n, t in enumerate(tl) if t.seat == "across" and t.group == "discard"][3]
    dets = render(tl, scale=22, center=(320, 320), squash=0.6)
    for p in ((0.52, 0.0, 0.48), (0.97, 0.0, 0.03)):
        dets[i] = _with_orientation(dets[i], "upright", p)
        _expect("across", spec["across"], parse_overhead(dets).table.player("across"))


def test_overhead_stray_back_just_outside_the_hand_row():
    """A box read as a back a little outside the end of a hand row (a decoration, a shadow) is not the hand."""
    spec = _table()
    tl = layout_table(spec)
    end = max((t for t in tl if t.seat == "across" and t.group == "concealed"), key=lambda t: t.x)
    tl.append(dataclasses.replace(end, x=end.x + 1.2, y=end.y - 0.6, group="stray"))
    lay = parse_overhead(render(tl, scale=22, center=(320, 320), squash=0.6))
    assert lay.table.player("across").concealed_face_down == spec["across"]["hand"]


def _with_self_hand():
    """The standard table rendered overhead, with the self seat's hand boxes and their height."""
    spec = _table()
    tl = layout_table(spec)
    dets = render(tl, scale=22, center=(320, 320), squash=0.6)
    hand = [d for d, t in zip(dets, tl) if t.seat == "self" and t.group == "concealed"]
    return spec, dets, hand, hand[0].box[3] - hand[0].box[1]


def test_overhead_thin_weak_slivers_outside_the_hand_bar_are_not_the_hand():
    """A row of weak boxes much narrower than a tile just outside the self seat's hand bar (an object cut by
    the frame's edge, the bar's own edge) is not that seat's hand: the bar inside it is."""
    spec, dets, hand, h = _with_self_hand()
    y1 = max(d.box[3] for d in hand) + 1.2 * h
    x = hand[2].box[0]
    slivers = [Detection((x + 22 * n, y1, x + 22 * n + 9, y1 + h), T.BACK, "face_down", 0.4) for n in range(3)]
    area = parse_overhead(dets + slivers).table.player("self")
    assert area.concealed_face_down == spec["self"]["hand"]
    # the same boxes as sure and as wide as tiles are a row of backs there: they are the hand
    tiles = [dataclasses.replace(d, box=(d.box[0], d.box[1], d.box[0] + 22, d.box[3]), confidence=0.9)
             for d in slivers]
    assert parse_overhead(dets + tiles).table.player("self").concealed_face_down == 3


@pytest.mark.parametrize("where,conf,n", [("beyond the end", 0.8, 2), ("in front", 0.45, 2), ("in front", 0.45, 5)])
def test_overhead_short_row_of_backs_outside_the_hand_bar_is_not_the_hand(where, conf, n):
    """Backs outside a seat's longer bar of backs are an object on the table (or the frame's edge), not the
    seat's hand, when one to three lie beyond the bar's end, or when they are much less sure than it."""
    spec, dets, hand, h = _with_self_hand()
    y1 = max(d.box[3] for d in hand) + 1.5 * h
    x = max(d.box[2] for d in hand) + 66 if where == "beyond the end" else hand[3].box[0]
    extra = [Detection((x + 22 * i, y1, x + 22 * i + 22, y1 + h), T.BACK, "face_down", conf) for i in range(n)]
    area = parse_overhead(dets + extra).table.player("self")
    assert area.concealed_face_down == spec["self"]["hand"]


@pytest.mark.parametrize("pitches,conf", [(4, 0.9), (1.8, 0.5)])
def test_overhead_box_in_line_with_the_hand_bar_but_far_from_it_is_not_counted(pitches, conf):
    """A back lying in line with a hand bar but several tiles past its end, or a weak one a tile's space or more
    past it, is not part of the hand (a hand is one bar): it is not counted, and it is said."""
    spec, dets, hand, _ = _with_self_hand()
    right = max(hand, key=lambda d: d.box[0])
    dx = pitches * 22
    dets.append(dataclasses.replace(right, box=(right.box[0] + dx, right.box[1], right.box[2] + dx, right.box[3]),
                                    confidence=conf))
    lay = parse_overhead(dets)
    assert lay.table.player("self").concealed_face_down == spec["self"]["hand"]
    assert any("in line with the hand row" in u for u in lay.table.unplaced)


def test_overhead_seat_spacing_agrees_with_the_table():
    """A decoration read as a stack of overlapping tiles, and a hand bar split into overlapping boxes, make the
    left seat's tile spacing look much narrower; the other seats' spacing (same tiles, same table) overrules
    it, so the left hand is still counted right."""
    spec = _table()
    tl = layout_table(spec)
    hand = sorted((t for t in tl if t.seat == "left" and t.group == "concealed"), key=lambda t: t.y)
    tl += [dataclasses.replace(a, x=(a.x + b.x) / 2, y=(a.y + b.y) / 2) for a, b in zip(hand, hand[1:])]
    d = [t for t in tl if t.seat == "left" and t.group == "discard"][-1]
    tl += [dataclasses.replace(d, kind=23, x=d.x - 1.5, y=d.y + 0.5 * n, group="stray") for n in range(4)]
    lay = parse_overhead(render(tl, scale=22, center=(320, 320), squash=0.6))
    assert lay.table.player("left").concealed_face_down == spec["left"]["hand"]
    for seat in ("self", "right", "across"):
        _expect(seat, spec[seat], lay.table.player(seat))


def test_overhead_box_astride_two_discards_is_dropped():
    """A less sure face-up box lying over two neighbouring discards (the detector's box astride them) is not a
    tile: it is dropped, and the river reads right."""
    spec = _table()
    tl = layout_table(spec)
    dets = render(tl, scale=22, center=(320, 320), squash=0.6)
    i, j = [n for n, t in enumerate(tl) if t.seat == "self" and t.group == "discard"][2:4]
    a, b = dets[i].box, dets[j].box
    box = ((a[0] + a[2]) / 2, a[1] + 2, (b[0] + b[2]) / 2, b[3] - 2)
    dets.append(Detection(box, 3, "upright", 0.3))
    lay = parse_overhead(dets)
    for seat, s in spec.items():
        _expect(seat, s, lay.table.player(seat))
    assert any(p.det.box == box and p.group == "duplicate" for p in lay.placed)


@pytest.mark.parametrize("conf", [0.3, 0.55])
def test_phone_weak_back_box_between_two_melds_is_dropped(conf):
    """A kong and a concealed kong laid side by side: a less sure face-down box found in the seam between them
    (half over each neighbour) is not a tile, and both melds read right."""
    hand = parse_hand("456m78p3399s [1111m<] [9999s] +6p")
    tl = layout_hand(hand, melds_side="right")
    dets = render(tl)
    a = next(d for t, d in zip(tl, dets) if t.group == "meld:0" and t.angle == 0 and
             d.box[0] == max(d2.box[0] for t2, d2 in zip(tl, dets) if t2.group == "meld:0"))
    b = min((d for t, d in zip(tl, dets) if t.group == "meld:1"), key=lambda d: d.box[0])
    w = a.box[2] - a.box[0]
    box = (a.box[2] - 0.25 * w, a.box[1], b.box[0] + 0.25 * w, a.box[3])
    dets.append(Detection(box, T.BACK, "face_down", conf))
    assert read(dets)[1] == format_hand(hand)


@pytest.mark.parametrize("melds_side", ["right", "left"])
def test_phone_concealed_kong_with_both_pale_backs_read_as_faces(melds_side):
    """Both backs of a concealed kong read face up (the locator outvoted the classifier, so the kind is one the
    classifier itself gave under 1 %, and its only candidate is back): the group [5z 1m 1m 5z] has no sideways
    or face-down tile, yet it is the concealed kong [back 1m 1m back] beside a claimed pung, not hand tiles."""
    hand = parse_hand("123p456s789s11z [555p^] [1111m] +1z")
    tl = layout_hand(hand, melds_side=melds_side)
    dets = render(tl)
    for i in (n for n, t in enumerate(tl) if t.back):
        dets[i] = dataclasses.replace(dets[i], kind=T.WHITE, orientation="upright", candidates=((T.BACK, 0.95),))
    lay, got = read(dets)
    assert got == format_hand(hand)
    assert any("read as [back 1m 1m back]" in u for u in lay.table.unplaced)


@pytest.mark.parametrize("kind, label", [(T.BACK, "face_down"), (T.WHITE, "upside_down")])
def test_phone_weak_box_at_the_end_of_a_meld_is_a_shadow(kind, label):
    """A weak box touching the end of a claimed meld (a shadow in the gap before the flowers, read as a back or
    a blank white dragon) would make it four tiles and no set: it is dropped, said, and the meld reads right. A
    sure face-up one is kept; a face-down one goes however sure (no claimed meld holds a back)."""
    hand = parse_hand("23m11z [456p<] [888p^] [222s>] +1m")
    tl = layout_hand(hand)
    dets = render(tl)
    last = max((d for t, d in zip(tl, dets) if t.group == "meld:2"), key=lambda d: d.box[2])
    w = last.box[2] - last.box[0]
    shadow = Detection((last.box[2], last.box[1], last.box[2] + w, last.box[3]), kind, label, 0.3)
    lay, got = read(dets + [shadow])
    assert got == format_hand(hand)
    assert any("at the end of a meld: a shadow" in u for u in lay.table.unplaced)
    lay, got = read(dets + [dataclasses.replace(shadow, confidence=0.9)]) if kind == T.BACK else (None, None)
    if kind == T.BACK:
        assert got == format_hand(hand)
    else:
        assert parse_phone(dets + [dataclasses.replace(shadow, confidence=0.9)]).table.players[0].melds[2].meld is None


def test_phone_two_backs_at_the_end_of_a_meld_are_shadows():
    """A dark card touching the end of a claimed meld, read as two face-down boxes, makes a run of five that
    reads as no melds with either box alone left out: both are dropped, each said, and the meld reads right."""
    hand = parse_hand("23m11z [456p<] [888p^] [222s>] +1m")
    tl = layout_hand(hand)
    dets = render(tl)
    last = max((d for t, d in zip(tl, dets) if t.group == "meld:2"), key=lambda d: d.box[2])
    w = last.box[2] - last.box[0]
    card = [Detection((last.box[2] + n * w, last.box[1], last.box[2] + (n + 1) * w, last.box[3]), T.BACK,
                      "face_down", c) for n, c in ((0, 0.44), (1, 0.28))]
    lay, got = read(dets + card)
    assert got == format_hand(hand)
    assert sum("at the end of a meld: a shadow" in u for u in lay.table.unplaced) == 2


def test_overhead_weak_offset_duplicate_is_dropped():
    """A second, much less sure box over a meld tile, shifted a third of a tile (IoU about 0.5, under the plain
    duplicate threshold), is the same tile seen twice: the meld keeps its three tiles."""
    spec = _table()
    tl = layout_table(spec)
    dets = render(tl, scale=22, center=(320, 320), squash=0.6)
    i = next(n for n, t in enumerate(tl) if t.seat == "self" and t.group.startswith("meld"))
    x1, y1, x2, y2 = dets[i].box
    dx = (x2 - x1) / 3
    dets.append(Detection((x1 - dx, y1, x2 - dx, y2), 31, dets[i].orientation, 0.2))
    lay = parse_overhead(dets)
    for seat, s in spec.items():
        _expect(seat, s, lay.table.player(seat))


def test_overhead_weak_box_half_over_a_discard_is_dropped():
    """A far less sure face-up box lying 40 % over the last discard (its edge or shadow found again; IoU only
    0.25) is not an exposed tile, nor a discard."""
    spec = _table()
    tl = layout_table(spec)
    dets = render(tl, scale=22, center=(320, 320), squash=0.6)
    i = [n for n, t in enumerate(tl) if t.seat == "self" and t.group == "discard"][-1]
    x1, y1, x2, y2 = dets[i].box
    dx = 0.6 * (x2 - x1)
    dets.append(Detection((x1 + dx, y1, x2 + dx, y2), T.WHITE, dets[i].orientation, 0.2))
    lay = parse_overhead(dets)
    for seat, s in spec.items():
        _expect(seat, s, lay.table.player(seat))


def test_overhead_lone_back_in_the_meld_area_is_not_a_meld():
    spec = _table()
    tl = layout_table(spec)
    m = max((t for t in tl if t.seat == "self" and t.group.startswith("meld")), key=lambda t: t.x)
    tl.append(dataclasses.replace(m, kind=T.BACK, back=True, angle=0.0, x=m.x + 3.0, group="stray"))
    lay = parse_overhead(render(tl, scale=22, center=(320, 320), squash=0.6))
    _expect("self", spec["self"], lay.table.player("self"))
    assert any("in the meld area are not a concealed kong" in u for u in lay.table.unplaced)


@pytest.mark.parametrize("conf", [0.9, 0.3])
def test_overhead_lone_face_up_tile_in_the_meld_area(conf):
    """One face-up tile on its own where a seat's melds lie is no meld: a sure one is an exposed tile (暴露张);
    one the detector is unsure of (a shadow, a reflection) is not placed, and said."""
    spec = _table()
    tl = layout_table(spec)
    m = max((t for t in tl if t.seat == "self" and t.group.startswith("meld")), key=lambda t: t.x)
    tl.append(dataclasses.replace(m, kind=8, angle=0.0, x=m.x + 3.0, group="stray"))
    dets = render(tl, scale=22, center=(320, 320), squash=0.6)
    dets[-1] = dataclasses.replace(dets[-1], confidence=conf)
    lay = parse_overhead(dets)
    area = lay.table.player("self")
    assert [m.meld for m in area.melds] == [Meld("chow", 1, source=LEFT, claimed=area.melds[0].meld.claimed)]
    if conf > 0.5:
        assert area.exposed == (8,)
    else:
        _expect("self", spec["self"], area)
        assert any("lone weak box 9m" in u for u in lay.table.unplaced)


def test_overhead_white_dragon_discard_read_as_back_is_a_discard():
    """A blank white dragon in a set with pale backs looks face down to the detector. Discards lie face up, so a
    'back' in its slot of the river, in sequence, is read as the white dragon, and said."""
    spec = _table()
    tl = layout_table(spec)
    dets = render(tl, scale=22, center=(320, 320), squash=0.6)
    i = [n for n, t in enumerate(tl) if t.seat == "self" and t.group == "discard"][4]
    assert tl[i].kind == T.WHITE
    dets[i] = dataclasses.replace(dets[i], kind=T.BACK, orientation="face_down")
    lay = parse_overhead(dets)
    _expect("self", spec["self"], lay.table.player("self"))
    assert any("in river slot 4: read as a white dragon" in u for u in lay.table.unplaced)


def _split(d: Detection, kind_a: int, kind_b: int, share: float = 0.7) -> list[Detection]:
    """A sideways tile's box found as two upright-looking halves (each ``share`` of its length, overlapping
    when over 0.5), each read as something else."""
    x1, y1, x2, y2 = d.box
    w = x2 - x1
    a = Detection((x1, y1, x1 + share * w, y2), kind_a, "upright", 0.6, ((kind_a, 0.8), (d.kind, 0.1)))
    b = Detection((x2 - share * w, y1, x2, y2), kind_b, "upright", 0.5, ((kind_b, 0.8), (d.kind, 0.1)))
    return [a, b]


def test_phone_sideways_tile_found_as_two_halves():
    """Two boxes whose centres are closer than touching tiles' are one tile: merged (the surer reading over
    both boxes), said, and the meld is read from the classifier's candidates."""
    hand = parse_hand("23m11z [456p<] [888p^] [222s>] +1m")
    tl = layout_hand(hand)
    dets = render(tl)
    i = next(n for n, t in enumerate(tl) if t.group == "meld:0" and t.angle == 90.0)
    dets = dets[:i] + _split(dets[i], 11, 11) + dets[i + 1:]
    lay, got = read(dets)
    assert got == format_hand(hand)
    assert any("found as two halves" in u for u in lay.table.unplaced)


@pytest.mark.parametrize("share", [0.7, 0.53])
def test_overhead_sideways_meld_tile_found_as_two_halves(share):
    """Also when the halves barely overlap: their centres are then about 0.68 tile widths apart, closer than
    touching upright tiles' (1.0)."""
    spec = _table()
    tl = layout_table(spec)
    dets = render(tl, scale=22, center=(320, 320), squash=0.6)
    i = next(n for n, t in enumerate(tl) if t.seat == "self" and t.group.startswith("meld") and t.angle % 180 == 90)
    a, b = _split(dets[i], 2, 2, share)
    dets[i] = a
    dets.append(b)
    lay = parse_overhead(dets)
    for seat, s in spec.items():
        _expect(seat, s, lay.table.player(seat))
    assert any("found as two halves" in u for u in lay.table.unplaced)


def test_overhead_meld_split_by_a_narrow_sideways_box_is_rejoined():
    """A chow whose sideways tile's box came out short (the gap after it looks wider than inside a meld): the
    two pieces are no melds alone, one together, and close: they are one meld."""
    spec = _table()
    tl = layout_table(spec)
    dets = render(tl, scale=22, center=(320, 320), squash=0.6)
    meld = [n for n, t in enumerate(tl) if t.seat == "self" and t.group.startswith("meld")]
    i = next(n for n in meld if tl[n].angle % 180 == 90)
    x1, y1, x2, y2 = dets[i].box
    right = any(dets[n].box[0] > x2 - 1 for n in meld)          # the meld goes on to the right of it
    cut = 0.3 * (x2 - x1)
    dets[i] = dataclasses.replace(dets[i], box=(x1, y1, x2 - cut, y2) if right else (x1 + cut, y1, x2, y2))
    lay = parse_overhead(dets)
    _expect("self", spec["self"], lay.table.player("self"))


def test_overhead_flowers_are_unique_on_the_whole_table():
    """Left's flower read as a flower self already has: one of each flower on the table, so the likeliest
    distinct reading is taken from the candidates, and said."""
    spec = _table()
    tl = layout_table(spec)
    dets = render(tl, scale=22, center=(320, 320), squash=0.6)
    i = next(n for n, t in enumerate(tl) if t.seat == "left" and T.is_flower(t.kind))
    dets[i] = dataclasses.replace(dets[i], kind=34, candidates=((34, 0.6), (tl[i].kind, 0.35)))
    lay = parse_overhead(dets)
    for seat, s in spec.items():
        _expect(seat, s, lay.table.player(seat))
    assert any("each flower is unique" in u for u in lay.table.unplaced)


@pytest.mark.parametrize("conf", [0.25, 0.7])
def test_overhead_weak_box_read_as_a_flower_another_holds_is_not_placed(conf):
    """A weak box beside the left seat's melds (a card) read as 1f, a flower self holds surely, with no other
    flower among its candidates: a set holds one of each flower, so it is not placed, and said, and every seat
    reads as laid. A sure one stays the seat's (two boxes of one flower: the referee checks them)."""
    spec = _table()
    tl = layout_table(spec)
    dets = render(tl, scale=22, center=(320, 320), squash=0.6)
    own = next(d for t, d in zip(tl, dets) if t.seat == "left" and T.is_flower(t.kind))
    w = own.box[2] - own.box[0]
    card = Detection((own.box[0], own.box[1] - 1.2 * w, own.box[2], own.box[3] - 1.2 * w), 34, "upright", conf,
                     candidates=((34, 0.3), (15, 0.19), (14, 0.14)))
    lay = parse_overhead(dets + [card])
    said = [u for u in lay.table.unplaced if "as a surer box does" in u]
    if conf < 0.5:
        for seat, s in spec.items():
            _expect(seat, s, lay.table.player(seat))
        assert len(said) == 1 and said[0].startswith("weak flower box 1f at")
    else:
        assert not said and 34 in lay.table.player("left").flowers


def test_overhead_faint_face_up_box_is_not_placed():
    """A face-up box the detector is all but sure is not a tile (a seam between discards, a shadow) is not read
    as an exposed tile; it is said. A white dragon (a blank face in some sets) goes by the locator's score of
    its box alone."""
    spec = _table()
    tl = layout_table(spec)
    dets = render(tl, scale=22, center=(320, 320), squash=0.6)
    d = dets[[n for n, t in enumerate(tl) if t.seat == "self" and t.group == "discard"][-1]]
    x1, y1, x2, y2 = d.box
    dets.append(Detection((x1 + 3 * (x2 - x1), y1, x2 + 3 * (x2 - x1), y2), 3, "upright", 0.02))
    lay = parse_overhead(dets)
    for seat, s in spec.items():
        _expect(seat, s, lay.table.player(seat))
    assert any(u.startswith("faint detection of 4m") for u in lay.table.unplaced)
    # a blank white dragon just as faint in the next river slot, in a box the locator is sure of, is the
    # locator and the classifier disputing a blank face: it is kept, and read as the next discard
    slot = [n for n, t in enumerate(tl) if t.seat == "self" and t.group == "discard"]
    step = dets[slot[1]].box[0] - dets[slot[0]].box[0]
    dets[-1] = Detection((x1 + step, y1, x2 + step, y2), T.WHITE, "upright", 0.02, ((T.BACK, 0.97), (T.WHITE, 0.025)))
    assert parse_overhead(dets).table.player("self").discards == tuple(spec["self"]["discards"]) + (T.WHITE,)
    # in a box the locator itself doubts (a shadow past the river's end), it is not placed
    dets[-1] = Detection((x1 + step, y1, x2 + step, y2), T.WHITE, "upright", 0.02, ((T.BACK, 0.9), (T.WHITE, 0.05)))
    lay = parse_overhead(dets)
    assert lay.table.player("self").discards == tuple(spec["self"]["discards"])
    assert any(u.startswith("faint detection of 5z") for u in lay.table.unplaced)
    # nor however sure the classifier is of the blank face (a pale card or a disc on the cloth): the box decides
    dets[-1] = Detection((x1 + step, y1, x2 + step, y2), T.WHITE, "upright", 0.3, ((T.WHITE, 0.9), (T.BACK, 0.05)))
    assert parse_overhead(dets).table.player("self").discards == tuple(spec["self"]["discards"])
    # a patch of bare cloth past the river's end that the locator half believes (box score 0.56, as measured
    # on benchmark frames) is not placed either
    dets[-1] = dataclasses.replace(dets[-1], confidence=0.5)
    assert parse_overhead(dets).table.player("self").discards == tuple(spec["self"]["discards"])
    dets[-1] = dataclasses.replace(dets[-1], confidence=0.6)
    assert parse_overhead(dets).table.player("self").discards == tuple(spec["self"]["discards"]) + (T.WHITE,)


def test_phone_set_apart_in_a_row_of_melds_takes_its_widest_tile_as_sideways():
    """A pung of 1p claimed from across, its sideways tile confidently labelled upright (the one of dots looks
    the same turned a quarter) and its box, seen at a slant, only somewhat wider than its neighbours': a set
    of three apart in the row of melds is a meld, its clearly widest tile the sideways one."""
    hand = parse_hand("23m11z [456p<] [111p^] [222s>] +1m")
    tl = layout_hand(hand)
    dets = render(tl)
    i = next(n for n, t in enumerate(tl) if t.group == "meld:1" and t.angle == 90.0)
    x1, y1, x2, y2 = dets[i].box
    dets[i] = dataclasses.replace(dets[i], box=(x1 + 0.12 * (x2 - x1), y1, x2 - 0.12 * (x2 - x1), y2),
                                  orientation="upright", orientation_p=(0.999, 0.0005, 0.0005))
    assert read(dets)[1] == format_hand(hand)


def test_overhead_meld_whose_sideways_tile_is_labelled_upright_takes_its_widest_tile():
    """The same on an overhead frame: in a seat's meld area, a pung whose sideways tile is confidently labelled
    as lying along the row like its neighbours, and whose box is only somewhat longer along the row than
    theirs, is read with that tile sideways."""
    spec = _table()
    tl = layout_table(spec)
    dets = render(tl, scale=22, center=(320, 320), squash=0.6)
    meld = [n for n, t in enumerate(tl) if t.seat == "right" and t.kind == 30 and t.group.startswith("meld")]
    # the sideways one is the box longest along the seat's row (the right seat's rows run up the frame)
    i = max(meld, key=lambda n: dets[n].box[3] - dets[n].box[1])
    x1, y1, x2, y2 = dets[i].box
    dets[i] = dataclasses.replace(dets[i], box=(x1, y1 + 0.12 * (y2 - y1), x2, y2 - 0.12 * (y2 - y1)),
                                  orientation="sideways", orientation_p=(0.0005, 0.999, 0.0005))
    _expect("right", spec["right"], parse_overhead(dets).table.player("right"))


@pytest.mark.parametrize("across", [False, True])
def test_phone_face_down_box_beside_the_winning_tile_is_a_shadow(across):
    """A face-down box in the gap before the winning tile makes a group of two: no meld is two tiles, so the box
    is a shadow (said) and the winning tile stays set apart; also when the box lies across, as a sideways tile
    would (a disc on the cloth read as a back)."""
    hand = parse_hand("123m456p789s1122z +2z")
    tl = layout_hand(hand, gap=2.2)
    dets = render(tl)
    win = next(d for t, d in zip(tl, dets) if t.group == "winning")
    w, h = win.box[2] - win.box[0], win.box[3] - win.box[1]
    top = win.box[3] - (0.75 * w if across else h)
    dets.append(Detection((win.box[0] - (1.4 if across else 1.0) * w, top, win.box[0], win.box[3]), T.BACK,
                          "face_down", 0.5))
    lay, got = read(dets)
    assert got == format_hand(hand)
    assert any("beside a lone tile" in u for u in lay.table.unplaced)



@pytest.mark.parametrize("apart", [True, False])
def test_phone_weak_extra_box_beside_a_short_hand_is_dropped(apart):
    """Four melds, one concealed tile and the winning tile: a weak spurious box touching the hand makes one
    tile too many; it is dropped (said) before the winning tile is chosen, also when the winning tile is set
    apart by less than a group gap."""
    hand = parse_hand("1m [234m<] [777z^] [1111p] [999s>] +1m")
    tl = layout_hand(hand, apart=apart)
    dets = render(tl)
    c = next(d for t, d in zip(tl, dets) if t.group == "concealed")
    w = c.box[2] - c.box[0]
    dets.append(Detection((c.box[0] - w, c.box[1], c.box[0], c.box[3]), 17, "upright", 0.05))
    lay, got = read(dets)
    assert got == format_hand(hand)
    assert any(u.startswith("dropped the least sure detection 9p") for u in lay.table.unplaced)


def test_phone_meld_with_one_unsure_odd_tile_is_a_pung():
    """[8p 7m 8p] with 7m read unsurely and 8p not among its candidates: no chow holds two 8p, so the meld is
    the pung [8p 8p 8p], said. A sure odd tile leaves the meld unreadable (a referee's matter)."""
    hand = parse_hand("23m11z [456p<] [888p^] [222s>] +1m")
    tl = layout_hand(hand)
    dets = render(tl)
    i = next(n for n, t in enumerate(tl) if t.group == "meld:1" and t.angle == 90.0)
    lay, got = read(_misread(dets, i, 6, ((6, 0.44), (24, 0.11))))
    assert got == format_hand(hand)
    assert any("read as [8p 8p 8p]" in u and "7m->8p p=0.44" in u for u in lay.table.unplaced)
    lay = parse_phone(_misread(dets, i, 6, ((6, 0.9), (24, 0.05))))
    assert lay.table.players[0].melds[1].meld is None


def test_phone_meld_mended_in_one_tile_before_two():
    """[7p 7p 8p] with 8p read unsurely and 7p not among its candidates, while the first 7p gives 8p some chance:
    the chow [8p 7p 9p] would mend two tiles, the pung [7p 7p 7p] only the odd one (no chow holds two 7p), so the
    pung is read, and said."""
    hand = parse_hand("23m11z [456p<] [777p^] [222s>] +1m")
    tl = layout_hand(hand)
    dets = render(tl)
    meld = [n for n, t in enumerate(tl) if t.group == "meld:1"]
    side = next(n for n in meld if tl[n].angle == 90.0)
    first, last = (n for n in meld if n != side)
    dets = _misread(dets, first, 15, ((15, 0.8), (16, 0.15)))
    dets = _misread(dets, side, 15, ((15, 0.9),))
    dets = _misread(dets, last, 16, ((16, 0.3), (17, 0.2)))
    lay, got = read(dets)
    assert got == format_hand(hand)
    assert any("read as [7p 7p 7p]" in u and "only a pung holds two alike tiles" in u for u in lay.table.unplaced)


def test_phone_weak_box_in_the_gap_between_two_melds_is_dropped():
    """A weak box filling the gap between two concealed kongs (a shadow) joins them into one run that splits
    into no melds; without it the run splits, so it is dropped, and said. A sure face-up box there stays; a
    face-down one goes however sure."""
    hand = parse_hand("345p6z [1111m<] [2222z] [3333z] +6z")
    tl = layout_hand(hand)
    dets = render(tl)
    a = dets[max(n for n, t in enumerate(tl) if t.group == "meld:1")]
    b = dets[min(n for n, t in enumerate(tl) if t.group == "meld:2")]
    gap = Detection((a.box[2] - 3, a.box[1], b.box[0] + 3, a.box[3]), T.BACK, "face_down", 0.12)
    lay, got = read(dets + [gap])
    assert got == format_hand(hand)
    assert any("between melds: a shadow" in u for u in lay.table.unplaced)
    assert read(dets + [dataclasses.replace(gap, confidence=0.9)])[1] == format_hand(hand)
    face_up = dataclasses.replace(gap, kind=T.WHITE, orientation="upright", confidence=0.12)
    assert read(dets + [face_up])[1] == format_hand(hand)
    melds = parse_phone(dets + [dataclasses.replace(face_up, confidence=0.9)]).table.players[0].melds
    assert sum(m.meld is not None and m.meld.concealed for m in melds) < 2


def test_phone_four_face_down_boxes_far_from_the_hand_are_not_a_kong():
    """Four face-down boxes in a row far from every tile of the hand (a card on the table) are no concealed
    kong of this hand: not placed, and said. The same four next to the hand are read as a meld."""
    from tests.layout_scenes import Tile
    hand = parse_hand("23m11z [456p<] [888p^] [222s>] +1m")
    tl = layout_hand(hand)
    y = max(t.y for t in tl)
    far = [Tile(T.BACK, 12.0 + n, y - 9.0, back=True) for n in range(4)]
    lay, got = read(render(tl + far))
    assert got == format_hand(hand)
    assert any("lie far from the hand: not placed" in u for u in lay.table.unplaced)
    right = max(t.x for t in tl)
    near = [Tile(T.BACK, right + 1.6 + n, y, back=True) for n in range(4)]
    assert len(parse_phone(render(tl + near)).table.players[0].melds) == 4


@pytest.mark.parametrize("hand, conf, want", [(13, 0.1, 13), (13, 0.3, 14), (13, 0.9, 14), (12, 0.1, 13)])
def test_overhead_weak_box_at_the_end_of_a_hand_row(hand, conf, want):
    """A very weak back in line at the end of a hand row (under hand_end_weak_extra of the row's median: the
    detector's colour check makes a shadow that unsure), which makes a waiting hand's size (13 - 3 x melds) into a
    drawn one's, is not counted, and said; a merely weak one (0.3: a real end tile half out of sight) and a sure
    one are. One that makes an impossible size (12) into a waiting hand's is a tile of the hand."""
    spec = _table()
    spec["across"]["hand"] = hand
    tl = layout_table(spec)
    row = sorted((t for t in tl if t.seat == "across" and t.group == "concealed"), key=lambda t: t.x)
    a, b = row[-2], row[-1]
    tl.append(dataclasses.replace(b, x=2 * b.x - a.x, y=2 * b.y - a.y))
    dets = render(tl, scale=22, center=(320, 320), squash=0.6)
    dets[-1] = dataclasses.replace(dets[-1], confidence=conf)
    lay = parse_overhead(dets)
    assert lay.table.player("across").concealed_face_down == want
    assert any("at the end of seat across's hand row: not counted" in u for u in lay.table.unplaced) == (want == hand)


def test_overhead_weak_box_between_two_melds_is_dropped():
    """A weak back in the gap between a concealed kong and a pung joins them into a run that splits into no
    melds; without it the run splits, so it is dropped, and said."""
    spec = _table()
    spec["right"]["melds"] = [Meld(KONG, 14, True), Meld(PUNG, 30, source=ACROSS)]
    tl = layout_table(spec)
    for t in tl:                        # the second kong a tile's width further on: a gap the box fills
        if t.seat == "right" and t.group == "meld:1":
            t.y -= 0.8
    a = min((t for t in tl if t.seat == "right" and t.group == "meld:0"), key=lambda t: t.y)
    b = max((t for t in tl if t.seat == "right" and t.group == "meld:1"), key=lambda t: t.y)
    tl.append(dataclasses.replace(a, x=(a.x + b.x) / 2, y=(a.y + b.y) / 2, back=True, kind=T.BACK, group="gap"))
    dets = render(tl, scale=22, center=(320, 320), squash=0.6)
    dets[-1] = dataclasses.replace(dets[-1], confidence=0.12)
    lay = parse_overhead(dets)
    for seat, s in spec.items():
        _expect(seat, s, lay.table.player(seat))
    assert any("in seat right's melds, which read without it" in u for u in lay.table.unplaced)


@pytest.mark.parametrize("middle", [1, 2])
def test_phone_concealed_white_dragon_kong_with_a_middle_face_read_as_a_back(middle):
    """[back 5z 5z back] with one blank white dragon taken for a back reads as three backs and a 5z: it is the
    kong [back 5z 5z back], said. The same pattern of another kind stays as read."""
    hand = parse_hand("345p6z [1111m<] [2222s^] [5555z] +6z")
    tl = layout_hand(hand)
    dets = render(tl)
    i = [n for n, t in enumerate(tl) if t.group == "meld:2"][middle]
    dets[i] = dataclasses.replace(dets[i], kind=T.BACK, orientation="face_down")
    lay, got = read(dets)
    assert got == format_hand(hand)
    assert lay.table.players[0].melds[2].tiles == (None, T.WHITE, T.WHITE, None)
    assert any("a blank white dragon taken for a back" in u for u in lay.table.unplaced)
    hand = parse_hand("345p6z [1111m<] [2222s^] [3333z] +6z")
    tl = layout_hand(hand)
    dets = render(tl)
    i = [n for n, t in enumerate(tl) if t.group == "meld:2"][middle]
    dets[i] = dataclasses.replace(dets[i], kind=T.BACK, orientation="face_down")
    assert parse_phone(dets).table.players[0].melds[2].tiles.count(None) == 3


def test_phone_white_dragon_lying_sideways_read_as_a_back():
    """A pung of white dragons claimed from the left whose sideways tile was taken for a back (no face-down tile
    lies sideways in a meld) is the pung, said; with another kind it stays unreadable."""
    for text, ok in (("345p6z [555z<] [2222s^] +6z", True), ("345p6z [777z<] [2222s^] +6z", False)):
        hand = parse_hand(text)
        tl = layout_hand(hand)
        dets = render(tl)
        i = next(n for n, t in enumerate(tl) if t.group == "meld:0" and t.angle == 90.0)
        dets[i] = dataclasses.replace(dets[i], kind=T.BACK, orientation="face_down")
        lay = parse_phone(dets)
        if ok:
            assert format_hand(table_to_hand(lay.table.players[0])) == format_hand(hand)
            assert any("taken for backs: no face-down tile lies sideways" in u for u in lay.table.unplaced)
        else:
            assert lay.table.players[0].melds[0].meld is None


def test_phone_sideways_tile_at_a_row_end_read_as_a_weak_flower():
    """A pung's sideways tile at the end of the row misread as a weak flower (its kind among the candidates),
    touching the pung and no flower, is the pung's tile, said. A sure flower there stays a flower."""
    hand = parse_hand("2233m445566p [777z>] +4m")
    tl = layout_hand(hand)
    dets = render(tl)
    i = next(n for n, t in enumerate(tl) if t.group == "meld:0" and t.angle == 90.0)
    weak = dataclasses.replace(dets[i], kind=38, confidence=0.25, candidates=((38, 0.29), (36, 0.15), (33, 0.14)))
    lay, got = read(dets[:i] + [weak] + dets[i + 1:])
    assert got == format_hand(hand)
    assert any("weak flower box" in u and "read as 7z" in u for u in lay.table.unplaced)
    sure = dataclasses.replace(weak, confidence=0.8)
    assert parse_phone(dets[:i] + [sure] + dets[i + 1:]).table.players[0].flowers == (38,)


def test_phone_added_kong_whose_claimed_tile_shows_a_sliver():
    """加杠 with the added tile lying a whole tile's depth up the claimed one (a low camera): the claimed tile
    shows only a sliver at the bottom, found as a small weak box of another kind. The two still make the kong:
    how far apart they may lie goes by the larger box, not the sliver."""
    from tests.layout_scenes import Tile
    tl = layout_hand(parse_hand("23m11z [456p<] [777z^] [222s>] +1m"))
    side = next(t for t in tl if t.group == "meld:2" and t.angle == 90)
    tl.append(Tile(side.kind, side.x, side.y - 1.0, 90.0, group="meld:2"))
    dets = render(tl)
    i = tl.index(side)
    x1, y1, x2, y2 = dets[i].box
    dets[i] = dataclasses.replace(dets[i], kind=11, confidence=0.09, box=(x1, y1 + 0.5 * (y2 - y1), x2, y2),
                                  candidates=((T.BACK, 0.14), (11, 0.12), (19, 0.12)))
    lay, got = read(dets)
    assert got == "23m11z [456p<] [777z^] [2222s>+] +1m"


def test_phone_weak_lone_flower_set_apart_from_the_row_stays_a_flower():
    """A single flower laid a little apart from the end of the hand row (no other flower beside it), read
    weakly, is still a flower: only a box touching the row's end closely is taken for a misread suit tile."""
    hand = parse_hand("2233m445566p [789s<] +4m 3f")
    tl = layout_hand(hand, flowers_row=False, gap=0.3)
    dets = render(tl)
    i = next(n for n, t in enumerate(tl) if t.group == "flower")
    dets[i] = dataclasses.replace(dets[i], confidence=0.22, candidates=((36, 0.26), (34, 0.25), (18, 0.13)))
    lay, got = read(dets)
    assert got == format_hand(hand)


def test_phone_added_kong_stacked_close_under_a_low_camera():
    """加杠 seen from a low phone camera: the table's depth is foreshortened, so the added tile's box lies less
    than half a tile width up the claimed one's (0.4 here), and the claimed tile, mostly hidden, is read as
    another kind. Two boxes squarely one on the other over the meld's row are still the kong's two tiles."""
    from tests.layout_scenes import Tile
    tl = layout_hand(parse_hand("23m11z [456p<] [777z^] [222s>] +1m"))
    side = next(t for t in tl if t.group == "meld:2" and t.angle == 90)
    tl.append(Tile(side.kind, side.x, side.y - 0.4, 90.0, group="meld:2"))
    dets = render(tl)
    i = tl.index(side)
    dets[i] = dataclasses.replace(dets[i], kind=21, confidence=0.6, candidates=((21, 0.75), (19, 0.05)))
    lay, got = read(dets)
    assert got == "23m11z [456p<] [777z^] [2222s>+] +1m"


def test_phone_added_kong_seen_as_one_box_in_a_run_of_melds():
    """加杠 whose claimed and added tiles came out as one box, in melds laid touching (one run of boxes): the run
    is cut into melds first, and the cut-out [2s 2s box] is then read as the added kong it is, not a pung."""
    _, dets, i = _added_kong_scene("1z [456p<] [222s>] [789m<] [777z^] +1z", "meld:1", gap=0.3)
    lay, got = read(_as_one_box(dets, i, kind=21, confidence=0.4, candidates=((21, 0.48), (19, 0.4))))
    assert got == "1z [456p<] [2222s>+] [789m<] [777z^] +1z"
    assert any("covers the claimed tile of a kong and the tile added" in u for u in lay.table.unplaced)


@pytest.mark.parametrize("kong, back_end", [("5555z", True), ("5555z", False), ("3333p", False)])
def test_phone_concealed_kong_with_one_back_read_as_a_face(kong, back_end):
    """A concealed kong is laid with two faces and two backs, ends alike. Three faces and one back is one back
    read as a face (a pale back taken for a blank white dragon: the classifier sure of a back, the locator of a
    face): [back 5z 5z 5z] is [back 5z 5z back]; [5z back 5z 5z] is [5z back back 5z]. Reported."""
    hand = parse_hand(f"123p456s789s11z [{kong}] +1z")
    tl = layout_hand(hand)
    dets = render(tl)
    k = hand.melds[0].tile
    meld = sorted((n for n, t in enumerate(tl) if t.group == "meld:0"), key=lambda n: tl[n].x)
    if not back_end:          # lay it [X back back X]: faces at the ends
        for n, face in zip(meld, (True, False, False, True)):
            dets[n] = dataclasses.replace(dets[n], kind=k if face else T.BACK,
                                          orientation="upright" if face else "face_down")
    # the back at the right end (or the middle one at the right) read as a face with no confidence
    i = meld[3] if back_end else meld[2]
    dets[i] = dataclasses.replace(dets[i], kind=k, orientation="upright", confidence=0.002,
                                  candidates=((T.BACK, 0.95), (k, 0.03)))
    lay, got = read(dets)
    want = (None, k, k, None) if back_end else (k, None, None, k)
    m = lay.table.players[0].melds[0]
    assert m.tiles == want and m.meld == Meld(KONG, k, concealed=True)
    assert any("two faces and two backs, ends alike" in u for u in lay.table.unplaced)


def test_phone_weak_sliver_on_the_frames_edge_is_not_a_tile():
    """A weak box much narrower than a tile, on the frame's edge (a neighbour's tile or an object cut by the
    frame), is not read into the hand when the frame's size is known; a sure box there, or a weak one inside
    the frame, is."""
    hand = parse_hand("23m11z [456p<] [777z^] [222s>] +1m")
    dets = render(layout_hand(hand))                          # centred on (640, 480): a 1280x960 frame
    sliver = Detection((0.0, 400.0, 14.0, 500.0), T.WHITE, "upright", 0.08, ((T.WHITE, 0.18), (3, 0.09)))
    lay = parse_phone(dets + [sliver], frame=(1280, 960))
    assert format_hand(table_to_hand(lay.table.players[0])) == format_hand(hand)
    assert any("on the frame's edge" in u for u in lay.table.unplaced)
    assert any(p.det is sliver and p.group == "unplaced" for p in lay.placed)
    for d in (sliver, dataclasses.replace(sliver, confidence=0.9)):
        assert not any("frame's edge" in u for u in parse_phone(dets + [d]).table.unplaced)
    inside = dataclasses.replace(sliver, box=(30.0, 400.0, 44.0, 500.0))
    assert not any("frame's edge" in u for u in parse_phone(dets + [inside], frame=(1280, 960)).table.unplaced)
    sure = dataclasses.replace(sliver, confidence=0.9)
    assert not any("frame's edge" in u for u in parse_phone(dets + [sure], frame=(1280, 960)).table.unplaced)


def test_phone_added_kong_whose_claimed_tile_is_labelled_upright():
    """加杠 whose claimed tile's label missed that it lies across (upright, weak, read as another kind): its box
    is as long along the row as a sideways tile's and a sideways tile lies squarely on it, so it is the claimed
    tile and the one on it the added tile; read as a four-tile row, the meld would be a plain melded kong."""
    _, dets, i = _added_kong_scene("23m11z [456p<] [777z^] [222s>] +1m", "meld:2")
    a, b = dets[i], dets[-1]
    # the claimed tile's box reaches halfway up the added one: taller than wide, so its shape says upright too
    box = (a.box[0], (b.box[1] + b.box[3]) / 2, a.box[2], a.box[3])
    dets[i] = dataclasses.replace(a, kind=4, orientation="upright", confidence=0.2, box=box,
                                  candidates=((4, 0.23), (10, 0.07), (19, 0.05)))
    lay, got = read(dets)
    assert got == "23m11z [456p<] [777z^] [2222s>+] +1m"
    assert lay.table.players[0].melds[2].meld == Meld(KONG, 19, source=RIGHT, added=True)


def _bar_tile(n: int, u: float, size: float = 30.0):
    """A back in a hand bar seen from above, already in its seat's frame (centre at u along the row)."""
    from mjtable.vision.layout.geometry import Tile
    return Tile(n, Detection((u, 0, u + size, size), T.BACK, "face_down", 0.85), u, 0, size, u=u)


def test_overhead_hand_bar_is_counted_by_the_grid_its_boxes_sit_on():
    """A far seat's bar of 13 standing backs, 42 px apart, one box split in two, while the seat's pitch (from
    its river, which perspective makes look smaller) says 37 px: the bar's length alone says 14 tiles, the
    boxes sit on a grid of 13."""
    from mjtable.vision.layout.rivers import count_touching
    us = [42.2 * n for n in range(13)]
    us[6:7] = [us[6] - 10, us[6] + 10]                  # a box split at a seam it does not have
    row = [_bar_tile(n, u) for n, u in enumerate(us)]
    assert count_touching(row, 37.2) == 13
    assert count_touching(row, 42.2) == 13
    # and a bar of 14 stays 14 with that pitch
    assert count_touching([_bar_tile(n, 38.9 * n) for n in range(14)], 37.2) == 14


def test_side_seats_receding_bar_is_one_box_a_tile():
    """A side seat's standing hand seen from a seat: 13 backs whose spacing shrinks smoothly from 1.15 to 0.88 of
    the seat's pitch as the bar recedes (as measured on real-looking seat views). No box is split, merged or
    missing, so the bar is its 13 boxes; its length over the pitch alone said 14. A box split in two, or one
    missed, breaks the smooth spacing, and an even bar is counted by its length as before."""
    from mjtable.vision.layout.rivers import count_touching
    gaps = [1.15 - 0.0225 * n for n in range(12)]
    us = [20.0 * sum(gaps[:n]) for n in range(13)]
    assert count_touching([_bar_tile(n, u) for n, u in enumerate(us)], 20.0) == 13
    assert count_touching([_bar_tile(n, u) for n, u in enumerate(us[::-1])], 20.0) == 13
    even = [20.0 * n for n in range(13)]
    split = even[:6] + [even[6] - 5, even[6] + 5] + even[7:]          # 14 boxes, 13 tiles
    assert count_touching([_bar_tile(n, u) for n, u in enumerate(split)], 20.0) == 13
    assert count_touching([_bar_tile(n, u) for n, u in enumerate(even[:6] + even[7:])], 20.0) == 13   # one missed


def test_overhead_river_row_of_three_is_the_seats_river_wherever_it_lies():
    """Right's first river row of three tiles lies 48 px (2.2 x the render's scale) nearer the centre than the
    other seats' (the table's centre is read a tile off, or the river was laid short): three tiles in a row are
    discards, not three exposed tiles (those lie one by one); a single tile that far off stays an exposed one."""
    spec = _table()
    tl = layout_table(spec)
    dets = render(tl, scale=22, center=(320, 320), squash=0.6)
    right = [n for n, t in enumerate(tl) if t.seat == "right" and t.group == "discard"]
    for n in right:
        x1, y1, x2, y2 = dets[n].box
        dets[n] = dataclasses.replace(dets[n], box=(x1 - 2.2 * 22, y1, x2 - 2.2 * 22, y2))
    lay = parse_overhead(dets)
    for seat, s in spec.items():
        _expect(seat, s, lay.table.player(seat))
    one = [d for n, d in enumerate(dets) if n not in right[1:]]
    area = parse_overhead(one).table.player("right")
    assert area.discards == () and sorted(area.exposed) == sorted([1, 22])


def test_overhead_box_off_the_hand_bar_grid_at_its_end_is_not_the_bars():
    """A bar of 13 backs 45 px apart with two boxes in line at its end, 66 and 60 px out (an object lying beside
    the hand, as measured on a benchmark frame): they are off the bar's grid (neither touching nor a missed tile
    away) and are left out; a box as far out but twice as big (two tiles found as one) stays."""
    from mjtable.vision.layout.rivers import count_touching, main_run

    bar = [_bar_tile(n, 200 + 45 * n, 36) for n in range(13)]
    main, off = main_run([_bar_tile(20, 200 - 66 - 60, 36), _bar_tile(21, 200 - 66, 36)] + bar, 45)
    assert sorted(t.i for t in off) == [20, 21] and count_touching(main, 45) == 13
    main, off = main_run([_bar_tile(20, 200 - 67, 52)] + bar, 45)
    assert off == [] and len(main) == 14


@pytest.mark.parametrize("seat", ["right", "self"])
def test_overhead_claimed_set_of_blank_white_dragons_called_face_down(seat):
    """A pung of white dragons (blank faces in some sets) that the locator calls face down, one tile lying
    across: no face-down tile lies sideways in a meld, so it is the claimed pung, not a stretch of wall nor
    three stray backs; three backs all along the row stay unplaced."""
    spec = _table()
    spec[seat]["melds"], spec[seat]["hand"] = [Meld(PUNG, T.WHITE, source=ACROSS)], 10
    if seat == "self":
        spec["self"]["discards"] = [k for k in spec["self"]["discards"] if k != T.WHITE]
    tl = layout_table(spec)
    dets = render(tl, scale=22, center=(320, 320), squash=0.6)
    pung = [n for n, t in enumerate(tl) if t.seat == seat and t.group == "meld:0"]
    for n in pung:
        dets[n] = dataclasses.replace(dets[n], kind=T.BACK, orientation="face_down", candidates=(), orientation_p=())
    lay = parse_overhead(dets)
    for s, sp in spec.items():
        _expect(s, sp, lay.table.player(s))
    assert any("taken for backs" in u for u in lay.table.unplaced)


def test_overhead_flower_in_line_with_a_wall_is_the_seats_flower():
    """A flower lies face up wherever it is put: one found in line with self's wall is self's flower, not an
    exposed tile (exposed tiles are the 34 kinds a player should be hiding)."""
    spec = _table()
    tl = layout_table(spec)
    dets = render(tl, scale=22, center=(320, 320), squash=0.6)
    wall = sorted((d for d, t in zip(dets, tl) if t.seat == "self" and t.group == "wall"), key=lambda d: d.box[0])
    step = wall[1].box[0] - wall[0].box[0]
    x1, y1, x2, y2 = wall[-1].box
    dets.append(Detection((x1 + step, y1, x2 + step, y2), 35, "upright", 0.9))
    area = parse_overhead(dets).table.player("self")
    assert sorted(area.flowers) == [34, 35, 36] and area.exposed == ()


def test_a_weak_sideways_box_the_classifier_calls_no_face_marks_no_meld():
    """A box on the edges of upright tiles (found in a real photo turned level) lies across the row, weakly,
    and its classifier finds a back likelier than any face: it does not make the run beside it a claimed meld.
    A sideways face read as a face, or read surely, still does."""
    from mjtable.vision.layout.geometry import Tile as LTile
    from mjtable.vision.layout.melds import is_meld_group

    def tile(i, kind, side=False, conf=0.85, cands=()):
        d = Detection(box=(i * 40.0, 0.0, i * 40.0 + (54 if side else 40), 54.0 if not side else 40.0), kind=kind,
                      orientation="sideways" if side else "upright", confidence=conf, candidates=cands)
        return LTile(i, d, i * 40.0 + 20, 27.0, 46.0, side=side)

    run = [tile(i + 1, k) for i, k in enumerate((1, 2, 3))]           # 2m 3m 4m
    no_face = ((T.BACK, 0.24), (23, 0.1))
    assert not is_meld_group([tile(0, 23, True, 0.05, no_face)] + run)
    assert is_meld_group([tile(0, 23, True, 0.05, ((23, 0.3), (T.BACK, 0.1)))] + run)
    assert is_meld_group([tile(0, 23, True, 0.6, no_face)] + run)
    assert not is_meld_group(run)


def test_a_weak_lone_back_beside_face_up_tiles_marks_no_meld():
    """A face-down box much less sure than the faces beside it, and their only back (a box on a tile's edge read
    as a back in a photo stretched back), does not make them a concealed kong; a sure back does, and so do two
    backs (a concealed kong shows two or four), however weak."""
    from mjtable.vision.layout.geometry import Tile as LTile
    from mjtable.vision.layout.melds import is_meld_group

    def tile(i, kind, conf=0.85):
        d = Detection(box=(i * 40.0, 0.0, i * 40.0 + 40, 54.0), kind=kind,
                      orientation="face_down" if kind == T.BACK else "upright", confidence=conf)
        return LTile(i, d, i * 40.0 + 20, 27.0, 46.0)

    run = [tile(i + 1, k) for i, k in enumerate((3, 2, 1))]           # 4m 3m 2m
    assert not is_meld_group(run + [tile(4, T.BACK, 0.27)])
    assert is_meld_group(run + [tile(4, T.BACK, 0.8)])
    assert is_meld_group([tile(0, T.BACK, 0.27), tile(1, 5), tile(2, 5), tile(3, T.BACK, 0.27)])


@pytest.mark.parametrize("n", [24, 25, 26])
def test_a_river_row_begun_beside_the_wall_is_discards_not_exposed_tiles(n):
    """A long river's next row lies in line with the seat's wall: a face-up tile there in the river grid's next
    slot is a discard (an exposed tile there made a false violation from perfect boxes), in order."""
    kinds = [k for k in range(27)][:n]
    seats = {s: {"discards": kinds, "wall": 17, "hand": 13} for s in ("self", "right", "across", "left")}
    lay = parse_overhead(render(layout_table(seats)))
    for seat in seats:
        p = lay.table.player(seat)
        assert list(p.discards) == kinds and p.exposed == ()


def test_a_photo_of_flowers_alone_is_no_hand():
    """Two weak flower boxes, all a detector found on a frame: flowers make no meld and no hand. The layout says
    so (read as a meld, the audit refused the whole frame with a message about tile ids), and the command line's
    route gives it as a frame not read, with the retake advice."""
    from mjtable.errors import UnreadableError
    from mjtable.vision.compare import FixedDetector
    from mjtable.vision.locate import locate
    import numpy as np
    dets = [Detection((232.0, 111.0, 291.0, 169.0), 41, "sideways", 0.11),
            Detection((252.0, 106.0, 310.0, 167.0), 41, "upright", 0.1)]
    with pytest.raises(LayoutError, match="only flowers or seasons found"):
        parse_phone(dets)
    with pytest.raises(UnreadableError) as e:
        locate(np.zeros((400, 600, 3), np.uint8), FixedDetector(dets), "phone")
    assert "only flowers" in str(e.value) and e.value.advice


def test_overhead_flowers_near_a_corner_go_with_the_hand_beside_them():
    """A player's flowers set beyond the end of his laid-down hand, where the table's corner begins, lie nearer
    the next seat by angle: they belong to the seat whose face-up tiles they lie beside."""
    spec = _table()
    spec["self"] = dict(discards=[0, 9, 18], laid=[[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 9]], laid_start=-15.0,
                        winning=8, flowers=[34, 36])
    tl = layout_table(spec)
    hand = [t for t in tl if t.seat == "self" and t.group == "concealed"]
    end = min(hand, key=lambda t: t.x)
    for n, t in enumerate(t for t in tl if t.seat == "self" and t.group == "flower"):
        t.x, t.y = end.x - 1.2 - n, end.y - 1.2
    dets = render(tl, scale=22, center=(320, 320), squash=0.6)
    lay = parse_overhead(dets)
    assert sorted(lay.table.player("self").flowers) == [34, 36]
    assert lay.table.player("left").flowers == (40,)


@pytest.mark.parametrize("conf", [0.07, 0.15, 0.25])
@pytest.mark.parametrize("seat_view", [False, True])
def test_overhead_faint_flower_box_is_not_placed(conf, seat_view):
    """A flower's face is a picture, which clutter and shadows read as too: a box read as a flower must be surer
    than other faces to be placed, beside the seat's flowers or not: from straight above, where every face shows
    whole, 0.2 (LayoutParams.faint_flower_above); in a table photographed from a seat, whose far flowers read
    weakly, 0.1 (faint_flower)."""
    from tests.test_perspective import _seat_camera
    spec = _table()
    tl = layout_table(spec)
    camera = dict(homography=_seat_camera(0.0012, 0.5), scale=40) if seat_view else \
        dict(scale=22, center=(320, 320), squash=0.6)
    dets = render(tl, **camera)
    last = dets[[n for n, t in enumerate(tl) if t.seat == "self" and t.group == "flower"][-1]]
    x1, y1, x2, y2 = last.box
    dets.append(Detection((x2 + 1, y1, 2 * x2 - x1 + 1, y2), 39, "upright", conf, ((39, 0.2), (15, 0.12))))
    lay = parse_overhead(dets)
    assert any("read as a table photographed from a seat" in u for u in lay.table.unplaced) == seat_view
    flowers = lay.table.player("self").flowers
    if conf < (0.1 if seat_view else 0.2):
        assert flowers == tuple(spec["self"]["flowers"])
        assert any("faint flower box 6f" in u for u in lay.table.unplaced)
    else:
        assert sorted(flowers) == sorted(spec["self"]["flowers"] + [39])


def test_overhead_weak_box_among_flowers_is_a_flower():
    """Flowers lie together, and their faces are pictures the classifier may take for a suit tile: a weak face-up
    box in the meld area touching a seat's flowers, whose reading gives a flower some chance, is a flower too
    (said); a sure suit tile there, or a weak one with no flower chance, is not."""
    spec = _table()
    spec["self"]["flowers"] = [34, 38, 36]
    tl = layout_table(spec)
    i = [n for n, t in enumerate(tl) if t.seat == "self" and t.group == "flower"][1]
    dets = render(tl, scale=22, center=(320, 320), squash=0.6)
    for conf, cands, want in ((0.27, ((5, 0.3), (8, 0.12), (38, 0.1)), (34, 36, 38)),
                              (0.27, ((5, 0.3), (8, 0.12), (7, 0.1)), (34, 36)),
                              (0.9, ((5, 0.9), (38, 0.06)), (34, 36))):
        dets[i] = dataclasses.replace(dets[i], kind=5, confidence=conf, candidates=cands)
        lay = parse_overhead(dets)
        assert tuple(sorted(lay.table.player("self").flowers)) == want, (conf, cands)
        assert any("touches the flowers" in u for u in lay.table.unplaced) == (len(want) == 3)


@pytest.mark.parametrize("seat_view", [True, False])
@pytest.mark.parametrize("conf", [0.05, 0.3])
def test_seat_view_faint_back_box_is_not_placed(conf, seat_view):
    """On a table photographed from a seat, a face-down box the detector all but doubts (the cloth's edge, a
    stripe or a shadow beyond the near seat) is not placed, and said (on a real-looking table one beside a row
    of melds with two concealed kongs, half of it backs, made the row a wall); the row of melds reads right. A
    back the detector believes is a tile; from above, a small frame's weak backs are real, and kept."""
    spec = _table()
    spec["self"]["melds"] = [Meld(KONG, 30, True), Meld(KONG, 2, True)]
    tl = layout_table(spec)
    H = mild_perspective(center=(320, 320), k=0.0012) if seat_view else None
    dets = render(tl, scale=22, center=(320, 320), squash=0.6, homography=H)
    kong = [dets[n] for n, t in enumerate(tl) if t.seat == "self" and t.group == "meld:0"]
    x1, y1, x2, y2 = min(kong, key=lambda d: d.box[0]).box
    dets.append(Detection((x1 - 1.3 * (x2 - x1), y1, x1 - 0.3 * (x2 - x1), y2), T.BACK, "face_down", conf))
    lay = parse_overhead(dets)
    assert any(u.startswith("read as a table photographed from a seat") for u in lay.table.unplaced) == seat_view
    _expect("self", spec["self"], lay.table.player("self"))
    faint = any(u.startswith("faint detection of back") for u in lay.table.unplaced)
    assert faint == (seat_view and conf < 0.1)
