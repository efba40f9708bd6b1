"""The committed models name no machine's folders, and an export's paths are cut from its metadata."""
from pathlib import Path

import pytest

onnx = pytest.importorskip("onnx", reason="the train extra (pip install -e '.[train]')")
from onnx import helper  # noqa: E402

from mjtable.models.graph import PATH, strip_paths  # noqa: E402

pytestmark = pytest.mark.train

MODELS = Path(__file__).resolve().parent.parent / "models"


def test_committed_models_name_no_absolute_path():
    for f in sorted(MODELS.glob("*.onnx")):
        m = onnx.load(str(f), load_external_data=False)
        for p in m.metadata_props:
            assert not PATH.search(p.value), (f.name, p.key, p.value)


def test_strip_paths_keeps_file_names():
    m = helper.make_model(helper.make_graph([], "g", [], []))
    m.metadata_props.add(key="description", value="YOLO11n model trained on /home/x/data/loc.yaml")
    m.metadata_props.add(key="license", value="AGPL-3.0 License (https://ultralytics.com/license)")
    m.metadata_props.add(key="data", value="{'data': '~/runs/x.yaml'}")
    assert strip_paths(m)
    assert [p.value for p in m.metadata_props] == ["YOLO11n model trained on loc.yaml",
                                                   "AGPL-3.0 License (https://ultralytics.com/license)",
                                                   "{'data': 'x.yaml'}"]
    assert not strip_paths(m)
