"""The detector's and the layout's interfaces: a detector built from a frozen DetectorConfig, whose result carries the
view it decided once (types.Detections); the layout's tunable numbers in a frozen LayoutParams; the layout's shared
geometry public, and no module of vision importing another's private name."""
import ast
import dataclasses
import threading
import warnings
from pathlib import Path

import pytest
from mjtable.pipeline import FileDetector, load_image, locate
from mjtable.vision import views
from mjtable.vision.detector import LOCATOR, LOOKS, REFINER, DetectorConfig, TileDetector
from mjtable.vision.layout import LayoutParams, current_params, parse
from mjtable.vision.types import Detections

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
VISION = ROOT / "vision"


@pytest.fixture(scope="module")
def detector():
    return TileDetector()


def test_detector_config_holds_the_runtime_models_and_options_and_is_frozen():
    c = DetectorConfig()
    assert (c.locator, c.refiner, c.looks, c.int8, c.threads, c.regions) == (LOCATOR, REFINER, LOOKS, True, 2, False)
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.conf = 0.5
    assert dataclasses.replace(c, regions=True).regions is True and c.regions is False


def test_a_detector_says_the_config_it_was_built_from(detector):
    assert detector.config == DetectorConfig()
    with pytest.raises(AttributeError):
        detector.config = DetectorConfig(looks=None)          # decided when it is built: build another
    with pytest.raises(TypeError, match="DetectorConfig"):
        TileDetector(LOCATOR)                                   # 0.1's positional model paths are config fields now


def test_the_keyword_arguments_of_0_1_build_a_config_with_a_deprecation_warning():
    with pytest.warns(DeprecationWarning, match="DetectorConfig"):
        det = TileDetector(refiner=None, conf=0.3)
    assert det.config == DetectorConfig(refiner=None, conf=0.3) and det.refiner is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        TileDetector(DetectorConfig(refiner=None))              # the config itself warns of nothing


@pytest.mark.parametrize("name, kind, view, read_as", [("phone_win", "auto", "phone", "phone"),
                                                       ("overhead", "auto", "overhead", "overhead"),
                                                       ("phone_win", "overhead", "overhead", "overhead")])
def test_detect_returns_the_tiles_with_the_view_decided_once(detector, name, kind, view, read_as):
    img = load_image(EXAMPLES / f"{name}.jpg")
    found = detector.detect(img, kind)
    assert isinstance(found, Detections) and (found.view, found.read_as) == (view, read_as)
    assert len(found) == len(found.tiles) > 10 and found[0] is found.tiles[0] and list(found) == list(found.tiles)
    assert found.boxes == [d.box for d in found] and found.ms > 0
    again = detector(img, kind)                                 # the call is detect
    assert (again.view, again.read_as, [d.kind for d in again]) == (view, read_as, [d.kind for d in found])


def test_an_unknown_view_is_refused_before_any_reading(detector):
    with pytest.raises(views.UnknownKind):
        detector.detect(load_image(EXAMPLES / "phone_win.jpg"), "side")
    with pytest.raises(views.UnknownKind):
        views.decided([], "side")


def test_locate_lays_the_tiles_out_as_the_view_the_result_carries(monkeypatch):
    """locate reads the view from the detector's result and guesses nothing: a result that says overhead is laid
    out as a table though its tiles (one hand) would be guessed a phone photo."""
    img = load_image(EXAMPLES / "phone_win.jpg")
    tiles = FileDetector(str(EXAMPLES / "phone_win.json")).dets
    assert views.guess_view(tiles) == "phone"

    class Told:
        def detect(self, img, kind="auto"):
            return Detections(tuple(tiles), "overhead", "overhead")

    def no_guess(dets):
        raise AssertionError("the view was guessed again")
    monkeypatch.setattr(views, "guess_view", no_guess)
    view = locate(img, Told())
    assert (view.kind, view.layout.kind, view.read_as) == ("overhead", "overhead", "overhead")


def test_detections_from_a_file_or_a_plain_list_get_their_view_decided_once():
    img = load_image(EXAMPLES / "phone_win.jpg")
    from_file = FileDetector(str(EXAMPLES / "phone_win.json"))
    found = from_file.detect(img)
    assert isinstance(found, Detections) and (found.view, found.read_as) == ("phone", None)
    assert from_file.detect(img, "overhead").view == "overhead"

    class Plain:                                            # a detector of 0.1's shape: a list of detections
        def detect(self, img, kind="auto"):
            return list(from_file.dets)
    view = locate(img, Plain())
    assert (view.kind, view.read_as) == ("phone", None) and view.layout.table.players[0].declared_win


def test_layout_params_default_to_todays_numbers_and_reach_the_stages():
    dets = FileDetector(str(EXAMPLES / "phone_win.json")).dets
    plain = parse(dets, "phone")
    assert repr(parse(dets, "phone", params=LayoutParams())) == repr(plain)
    wide = parse(dets, "phone", params=LayoutParams(gap_split=5.0))     # no gap splits a group: melds run together
    assert repr(wide.table) != repr(plain.table)
    assert current_params() == LayoutParams()                           # the parse's parameters end with it
    with pytest.raises(dataclasses.FrozenInstanceError):
        LayoutParams().aspect = 1.0


def test_layout_params_are_each_threads_own():
    dets = FileDetector(str(EXAMPLES / "overhead.json")).dets
    want = repr(parse(dets, "overhead").table)
    got = []
    threads = [threading.Thread(target=lambda: got.append(repr(parse(dets, "overhead").table))) for _ in range(2)]
    threads.append(threading.Thread(target=lambda: parse(dets, "overhead", params=LayoutParams(meld_zone=0.1))))
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == [want, want]


def test_the_layout_exports_public_names_only_and_documents_its_geometry():
    from mjtable.vision import layout
    from mjtable.vision.layout import geometry
    assert not [n for n in layout.__all__ if n.startswith("_")] and not hasattr(layout, "_Tile")
    public = [n for n in vars(geometry) if not n.startswith("_") and getattr(getattr(geometry, n), "__module__", "")
              == geometry.__name__]
    assert {"Tile", "Near", "Frame", "frame_of", "rows_of", "split_groups", "median", "nn_angle"} <= set(public)
    assert [n for n in public if not getattr(geometry, n).__doc__] == []


def test_no_module_of_vision_imports_a_private_name_of_another():
    """What two modules share is public in the module that owns it (vision.layout.geometry, for the layout)."""
    found = []
    for path in sorted(VISION.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                found += [f"{path.relative_to(ROOT)}:{node.lineno} {a.name}" for a in node.names
                          if a.name.startswith("_") and not a.name.startswith("__")]
    assert found == []
