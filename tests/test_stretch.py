"""Images resized without keeping their aspect ratio (vision.images.stretch / unstretch): measured, undone, and
read as the original, with the boxes given in the input's pixels."""
from pathlib import Path

import cv2
import numpy as np
import pytest
from mjtable.vision.detector import TileDetector
from mjtable.vision.images import STRETCH_LIMIT, stretch, unstretch
from mjtable.vision.metrics import box_iou

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ["phone_win.jpg", "phone_hand.jpg", "overhead.jpg", "real_hand.jpg"]


@pytest.fixture(scope="module")
def detector():
    return TileDetector()


def _example(name):
    return cv2.imread(str(ROOT / "examples" / name))


@pytest.mark.parametrize("name", EXAMPLES)
def test_photos_as_taken_are_left_alone(name):
    img = _example(name)
    assert 1 / STRETCH_LIMIT < stretch(img) < STRETCH_LIMIT
    same, sx, sy = unstretch(img)
    assert same is img and sx == sy == 1.0


@pytest.mark.parametrize("k", [6, 9, 16])
def test_a_stretched_copy_measures_about_its_stretch_and_is_squeezed_back(k):
    img = _example("phone_win.jpg")                  # measures about 1 as taken
    h, w = img.shape[:2]
    wide = cv2.resize(img, (w * k, h))
    tall = cv2.resize(img, (w, h * k))
    assert 0.8 * k < stretch(wide) < 1.2 * k and 0.8 * k < 1 / stretch(tall) < 1.2 * k
    for src in (wide, tall):
        back, sx, sy = unstretch(src)
        assert back.shape[0] == round(src.shape[0] * sy) and back.shape[1] == round(src.shape[1] * sx)
        assert 0.75 < (back.shape[1] / back.shape[0]) / (w / h) < 1.33      # the aspect of the original, nearly
        assert 1 / STRETCH_LIMIT < stretch(back) < STRETCH_LIMIT


def test_flat_thin_and_grey_ramps_do_not_break_the_measure():
    assert stretch(np.full((50, 80, 3), 120, np.uint8)) == 1.0
    assert stretch(np.zeros((1, 300, 3), np.uint8)) == 1.0 and stretch(np.zeros((300, 1, 3), np.uint8)) == 1.0
    ramp = np.repeat(np.repeat(np.arange(256, dtype=np.uint8)[None, :, None], 64, 0), 3, 2)   # changes across only
    assert stretch(ramp) == 1.0                         # no step down: nothing to compare with
    assert unstretch(ramp)[0] is ramp


def test_detector_reads_a_stretched_photo_and_gives_boxes_in_its_pixels(detector):
    img = _example("phone_win.jpg")
    h, w = img.shape[:2]
    plain = detector.detect(img)
    wide = cv2.resize(img, (w * 9, h))
    got = detector.detect(wide)
    truth = np.array([d.box for d in plain]) * np.float32([9, 1, 9, 1])
    iou = box_iou(truth, np.array([d.box for d in got]))
    best = iou.argmax(1)
    same = [iou[i, j] >= 0.5 and got[j].kind == plain[i].kind for i, j in enumerate(best)]
    assert len(plain) == 15 and sum(same) >= 14


def test_a_stretched_photo_is_read_as_the_original(detector, tmp_path):
    """Through the pipeline (a file, as the command line and the web page load it): the same hand and score."""
    from mjtable.pipeline import load_image, read_image, situation
    img = _example("real_hand.jpg")
    h, w = img.shape[:2]
    path = tmp_path / "strip.png"
    cv2.imwrite(str(path), cv2.resize(img, (w, h * 12)))
    loaded = load_image(path)
    # squeezed back, though not all the way: this photo's own detail runs 1.65 times finer across than down
    assert loaded.shape[1] == w and loaded.shape[0] < h * 12 / 4.5
    want = read_image(img, detector, situation())
    got = read_image(loaded, detector, situation())
    assert got.hand == want.hand and got.result.total == want.result.total == 88


@pytest.mark.parametrize("share", [0.5, 0.67])
def test_a_hand_squeezed_in_height_is_read_stretched_back(share):
    """The bundled real hand squeezed to a share of its height (within what an unsqueezed photo may measure, so
    not unstretched): each upright tile is now wider than tall. Found and read again stretched back
    (DetectorConfig.squashed), its face-up tiles are those read as taken, each surely, and the hand and score are
    the same; read as it is, its tiles are read turned a quarter and squashed, and come out less sure."""
    import mjtable
    from mjtable.scoring.notation import format_hand
    from mjtable.vision.detector_config import DetectorConfig
    img = _example("real_hand.jpg")
    sq = cv2.resize(img, (img.shape[1], round(img.shape[0] * share)), interpolation=cv2.INTER_AREA)
    assert unstretch(sq)[0] is sq

    def faces(det, im):
        found = [d for d in det.detect(im) if d.kind != 42]
        return sorted(d.kind for d in found), [d.confidence for d in found]

    taken, _ = faces(TileDetector(), img)
    back, sure = faces(TileDetector(), sq)
    _, unsure = faces(TileDetector(DetectorConfig(squashed=False)), sq)
    assert back == taken and min(sure) >= 0.6
    assert np.median(unsure) < 0.5 < np.median(sure)
    level, squeezed = mjtable.read(img), mjtable.read(sq)
    assert squeezed.hand is not None and format_hand(squeezed.hand) == format_hand(level.hand)
    assert squeezed.result.total == level.result.total


def test_tiles_lying_sideways_are_not_taken_for_a_squeezed_photo():
    """The bundled real hand turned a quarter: every tile lies sideways, its box wider than tall, so the photo is
    read again stretched in height; the reading as it is is surer, and is kept."""
    from mjtable.vision.detector_config import DetectorConfig
    img = cv2.rotate(_example("real_hand.jpg"), cv2.ROTATE_90_CLOCKWISE)
    det = TileDetector()
    found = det.detect(img)
    faces = np.array([d.box for d in found if d.kind != 42])
    assert det.unsquash(faces) > 1.0
    plain = TileDetector(DetectorConfig(squashed=False)).detect(img)
    assert [(d.kind, d.orientation, round(d.confidence, 4)) for d in found] == \
        [(d.kind, d.orientation, round(d.confidence, 4)) for d in plain]
