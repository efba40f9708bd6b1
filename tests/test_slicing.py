"""Reading a frame in overlapping slices (vision.slicing)."""
import itertools
from pathlib import Path

import numpy as np
from mjtable.vision.detector import DetectorConfig, TileDetector, nms
from mjtable.vision.slicing import locate_sliced, windows

ROOT = Path(__file__).resolve().parent.parent


def test_windows_cover_the_frame_and_overlap():
    ws = windows(1000, 1500, 640)
    cover = np.zeros((1000, 1500), bool)
    for x1, y1, x2, y2 in ws:
        assert x2 - x1 <= 640 and y2 - y1 <= 640
        cover[y1:y2, x1:x2] = True
    assert cover.all()
    xs = sorted({w[0] for w in ws})
    assert all(b - a <= 480 for a, b in itertools.pairwise(xs))          # a quarter of each window shared
    assert windows(300, 400, 640) == [(0, 0, 400, 300)]


def test_cut_tiles_dropped_and_copies_merged():
    """A fake locator that 'sees' tiles drawn in frame coordinates, clipped to what it is shown. Windows start at
    x 0, 480, 860 and y 0, 360: the tile at x 450-490 is cut by the second window's left edge into a piece too
    small to be merged with it (IoU 0.25); the one at x 0 lies on the frame's border."""
    tiles = np.array([[100, 100, 140, 150], [450, 300, 490, 350], [1100, 700, 1140, 750], [0, 500, 40, 550]],
                     np.float32)
    frame = np.zeros((1000, 1500, 3), np.uint8)

    def locate_one(part):
        # the part's offset in the frame: the fake knows it by identity of the array's memory
        y0 = (part.__array_interface__["data"][0] - frame.__array_interface__["data"][0]) // (1500 * 3)
        x0 = ((part.__array_interface__["data"][0] - frame.__array_interface__["data"][0]) % (1500 * 3)) // 3
        h, w = part.shape[:2]
        b = np.clip(tiles - [x0, y0, x0, y0], 0, [w, h, w, h])
        seen = (b[:, 2] - b[:, 0] > 5) & (b[:, 3] - b[:, 1] > 5)
        b = b[seen]
        n = len(b)
        return b, np.full(n, 0.9, np.float32), np.zeros(n, np.int64), np.tile([[0.9, 0.1]], (n, 1))

    boxes = locate_sliced(locate_one, frame, 640, 0.5, nms)[0]
    assert len(boxes) == 4                       # every tile once and whole, the border tile kept
    assert np.allclose(np.sort(boxes, axis=0), np.sort(tiles, axis=0))
    unmerged = locate_sliced(locate_one, frame, 640, 0.5, lambda b, s, iou: np.arange(len(b)))[0]
    assert all(any(np.allclose(b, t) for t in tiles) for b in unmerged)   # no cut piece even before merging


def test_sliced_detector_reads_what_one_pass_reads_on_a_small_photo():
    from mjtable.vision.images import load_image
    img = load_image(ROOT / "examples" / "real_hand.jpg")
    one = TileDetector().detect(img)
    sliced = TileDetector(DetectorConfig(slice_px=400)).detect(img)
    def sure(dets):                                        # windows may add a few unsure boxes
        return sorted(d.kind for d in dets if d.confidence >= 0.5)
    assert sure(sliced) == sure(one) and len(sure(one)) == 14


def test_table_shot_from_a_seat_is_read_again_by_the_seat_models_in_slices(monkeypatch):
    """A table shot from a seat (its boxes show a perspective) is read again in slices at full resolution by the
    seat locator, and its boxes classified by the seat classifier, in more looks; an overhead frame of the same
    size is read once, by the overhead models, in one look (its backs and its faces); without seat_view never.
    (The general classifier's second reading of large faces, DetectorConfig.general_px, is left out here.)"""
    from mjtable.datasets.generate import make_scene
    seat, _, _ = make_scene("seat", 4242, 0, 1280)
    over, _, _ = make_scene("overhead", 4242, 0, 1280)
    calls = []
    for auto in (True, False):
        det = TileDetector(DetectorConfig(seat_view=auto, general_px=None))
        det.detect(over, kind="overhead")
        assert det._seat_sessions == {}                 # loaded only when a table shot from a seat is read
        assert det.loc_seat is not None and det.cls_seat is not None
        real_locate, real_classify = det._locate_one, det.classify

        def counted(part, overhead=False, seat=False):
            calls.append(("locate", overhead, seat, part.shape[:2]))
            return real_locate(part, overhead, seat)

        def classified(img, boxes, overhead=False, seat=False, turned=None, wide=True):
            calls.append(("classify", overhead, seat, None))
            return real_classify(img, boxes, overhead, seat, turned, wide)
        monkeypatch.setattr(det, "_locate_one", counted)
        monkeypatch.setattr(det, "classify", classified)
        for name, img in (("seat", seat), ("overhead", over)):
            calls.clear()
            assert det.detect(img, kind="overhead")
            windows_read = [c for c in calls if c[0] == "locate" and c[3] != img.shape[:2]]
            classified_as = [c[1:3] for c in calls if c[0] == "classify"]
            if auto and name == "seat":
                assert len(windows_read) >= 2 and all(c[2] for c in windows_read)
                assert classified_as == [(True, True)] * 2       # the first look, then the more looks
                assert det._seat_view(real_locate(img, True))
            else:     # the overhead models: the backs (DetectorConfig.face_back_p), then the faces, in one look
                assert windows_read == [] and classified_as == [(True, False)] * 2, (auto, name)


def test_a_table_photographed_upright_is_read_as_a_seat_view():
    """A seat view in a 9:16 frame (generate --portrait): the general locator sees its tiles a few pixels tall,
    so the overhead locator looks too (far_table); the frame is read by the seat models in slices and most
    tiles are found. Without that look the frame is read as a photo of a hand and most tiles are lost."""
    from mjtable.datasets.generate import make_scene
    from mjtable.vision.compare import agnostic_matches
    from mjtable.vision.detector import small_tiles
    from mjtable.vision.inference import input_px
    img, gt, _ = make_scene("seat", 4242, 0, 1280, portrait=True)
    assert img.shape[:2] == (1280, 720)
    gt_boxes = np.array([o.box for o in gt.objects])
    found = {}
    for far in (True, False):
        det = TileDetector(DetectorConfig(far_table=far))
        assert small_tiles(det.locate(img), input_px(det.loc) / 1280)
        boxes, view = det.locate_for(img)
        found[far] = (view, float((agnostic_matches(gt_boxes, boxes[0], boxes[1]) >= 0).mean()))
    assert found[True][0] == "seat" and found[True][1] > 0.9, found
    assert found[False][0] == "phone" and found[False][1] < 0.6, found


def test_an_upright_table_sent_to_the_overhead_locator_first_is_still_looked_at_as_a_far_table(monkeypatch):
    """A router that sends an upright seat view to the overhead locator first, whose boxes there do not look like
    a whole table: those boxes still decide whether it is a table far off (they were once taken as a reason to
    skip the look, and the table was read as a photo of a hand). A two-way router: the perspective alone
    decides here."""
    from mjtable.datasets.generate import make_scene
    img, _, _ = make_scene("seat", 4242, 0, 1280, portrait=True)
    det = TileDetector()
    monkeypatch.setattr(det, "view_probs", lambda img: np.array([0.01, 0.99]))    # a two-way router: overhead
    monkeypatch.setattr("mjtable.vision.detector.table_like", lambda found: False)   # a table far off: few sure boxes
    calls = []
    real = det.locate

    def locate(im, overhead=False, slice_px=None, seat=False):
        calls.append((overhead, slice_px, seat))
        return real(im, overhead, slice_px, seat)
    monkeypatch.setattr(det, "locate", locate)
    assert det.locate_for(img)[1] == "seat"
    assert calls[:2] == [(True, None, False), (False, None, False)]     # the overhead locator first, the general
    assert calls.count((True, None, False)) == 1                        # its whole-frame boxes not looked for twice


def test_small_and_many_tiles():
    from mjtable.vision.detector import many_tiles, small_tiles
    boxes = np.array([[0, 0, 10, 14]] * 20 + [[0, 0, 30, 40]] * 20, float)
    scores = np.array([0.9] * 40)
    cls = np.array([0] * 25 + [1] * 15)
    found = (boxes, scores, cls, None)
    assert small_tiles(found, 1.0) is False              # median short side 20 px
    assert small_tiles(found, 0.5) is True               # 10 px at the locator's input
    assert small_tiles((boxes[:0], scores[:0], cls[:0], None), 1.0) is True      # nothing sure: look again
    assert many_tiles(found) is True
    assert many_tiles((boxes, scores * 0.2, cls, None)) is False                 # none sure
    assert many_tiles((boxes, scores, np.zeros(40, int), None)) is False         # no backs: not a table
