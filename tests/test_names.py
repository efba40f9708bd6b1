"""mjtable.vision.names: every naming scheme maps to the right tile; names files are read the way ultralytics reads
them."""
import json

import pytest

from mjtable.scoring import tiles as T
from mjtable.vision.names import NamesError, load_names, map_names, parse_yaml_names, tile_of

# names: line of the real riichi set's data.yaml (Roboflow "riichi-mahjong", CC BY 4.0), as exported
RIICHI_YAML = """train: ../train/images
val: ../valid/images

nc: 34
names: ['1man', '1pin', '1sou', '2man', '2pin', '2sou', '3man', '3pin', '3sou', '4man', '4pin', '4sou', '5man', '5pin', '5sou', '6man', '6pin', '6sou', '7man', '7pin', '7sou', '8man', '8pin', '8sou', '9man', '9pin', '9sou', 'chun', 'east', 'haku', 'hatsu', 'north', 'south', 'west']

roboflow:
  workspace: hust-xq5rx
  license: CC BY 4.0
"""  # noqa: E501  (the names: line is kept as exported)


def test_project_notation_for_every_tile():
    for t in range(T.N_TILES):
        assert tile_of(T.code(t)) == t
    assert tile_of("back") == T.BACK


def test_letter_first_scheme():
    names = [f"m{r}" for r in range(1, 10)] + [f"p{r}" for r in range(1, 10)] + [f"s{r}" for r in range(1, 10)] \
        + [f"z{r}" for r in range(1, 8)] + [f"f{r}" for r in range(1, 9)]
    assert map_names(names) == {i: i for i in range(42)}
    # z1-z4 = E S W N, z5 white, z6 green, z7 red
    assert [tile_of(f"z{r}") for r in range(1, 8)] == [T.EAST, T.SOUTH, T.WEST, T.NORTH, T.WHITE, T.GREEN, T.RED]


def test_riichi_scheme():
    suits = {"man": 0, "pin": 9, "sou": 18}
    for word, base in suits.items():
        for r in range(1, 10):
            assert tile_of(f"{r}{word}") == base + r - 1
    honours = ["east", "south", "west", "north", "haku", "hatsu", "chun"]
    assert [tile_of(h) for h in honours] == list(range(27, 34))


def test_riichi_data_yaml_from_the_shared_set(tmp_path):
    (tmp_path / "data.yaml").write_text(RIICHI_YAML)
    m = load_names(tmp_path / "data.yaml")
    assert len(m) == 34 and sorted(m.values()) == list(range(34))
    # its order is alphabetical: 1man 1pin 1sou 2man ... chun east haku hatsu north south west
    assert m[0] == 0 and m[1] == 9 and m[2] == 18 and m[3] == 1
    assert [m[i] for i in range(27, 34)] == [T.RED, T.EAST, T.WHITE, T.GREEN, T.NORTH, T.SOUTH, T.WEST]


def test_other_spellings_and_case():
    assert tile_of("5-Man") == tile_of("MAN5") == tile_of("5_wan") == tile_of("五万") == 4
    assert tile_of("0p") == tile_of("0pin") == 13                     # red five is a five
    assert tile_of("3筒") == tile_of("三饼") == tile_of("3 dots") == 11
    assert tile_of("White Dragon") == tile_of("bai") == tile_of("白板") == T.WHITE
    assert tile_of("红中") == tile_of("Red") == T.RED
    assert tile_of("plum") == tile_of("梅") == 38 and tile_of("bamboo") == 41 and tile_of("1bamboo") == 18
    assert tile_of("face_down") == T.BACK
    assert tile_of("joker") is None and tile_of("10m") is None and tile_of("8z") is None


def test_explicit_mapping_and_unknown_names_listed():
    assert map_names({0: "5m", "3": "7z"}) == {0: 4, 3: 33}
    with pytest.raises(NamesError) as e:
        map_names(["1m", "joker", "2m", "blank"])
    assert "1: 'joker'" in str(e.value) and "3: 'blank'" in str(e.value)
    with pytest.raises(NamesError, match="not a number"):
        map_names({"a": "1m"})
    with pytest.raises(NamesError, match="no class names"):
        map_names([])


YAML_CASES = {
    "flow list": "path: x\nnames: ['1m', \"2m\", 3m]  # comment\nnc: 3\n",
    "multi-line flow": "names: [1m,\n  2m,\n  3m]\n",
    "block list": "train: a\nnames:\n  - 1m\n  - '2m'   # two\n  - 3m\nval: b\n",
    "block list no indent": "names:\n- 1m\n- 2m\n- 3m\n",
    "block mapping": "names:\n  0: 1m\n  1: 2m\n  2: 3m\nnc: 3\n",
    "flow mapping": "names: {0: 1m, 1: '2m', 2: 3m}\n",
}


@pytest.mark.parametrize("case", sorted(YAML_CASES))
def test_yaml_subset(case, tmp_path):
    p = tmp_path / "data.yaml"
    p.write_text(YAML_CASES[case])
    assert load_names(p) == {0: 0, 1: 1, 2: 2}


@pytest.mark.parametrize("case", sorted(YAML_CASES))
def test_yaml_subset_agrees_with_pyyaml(case):
    yaml = pytest.importorskip("yaml")
    names, _ = parse_yaml_names(YAML_CASES[case])
    ref = yaml.safe_load(YAML_CASES[case])["names"]
    if isinstance(ref, dict):
        ref = {str(k): v for k, v in ref.items()}
    assert names == ref


def test_json_names(tmp_path):
    p = tmp_path / "names.json"
    p.write_text(json.dumps({"names": {"0": "east", "1": "back"}}))
    assert load_names(p) == {0: T.EAST, 1: T.BACK}
    p.write_text(json.dumps(["1f", "2f"]))
    assert load_names(p) == {0: 34, 1: 35}


@pytest.mark.parametrize("name, text, msg", [
    ("data.yaml", "train: a\n", "no 'names:' key"),
    ("data.yaml", "names: 1m\n", "must be a list or a mapping"),
    ("data.yaml", "names: [1m, 2m\n", "unclosed"),
    ("data.yaml", "names: [1m, 2m]\nnc: 3\n", "nc is 3 but 2 names"),
    ("data.yaml", "names:\n  - 1m\n  0: 2m\n", "mixes"),
    ("data.yaml", "names: [1m, dragon]\n", "unknown class name.*dragon"),
    ("n.json", "[" * 100_000 + "]" * 100_000, "nested too deep"),
    ("n.json", '{"nc": "2", "names": ["1m", "2m"]}', "nc: want the number of classes"),
    ("n.json", '{"names": {"0": "1m", "00": "3m"}}', "class index 0 is given more than once"),
])
def test_bad_names_files(name, text, msg, tmp_path):
    p = tmp_path / name
    p.write_text(text)
    with pytest.raises(NamesError, match=msg):
        load_names(p)


def test_a_names_file_that_is_no_regular_file_is_refused_unread(tmp_path):
    import os
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(NamesError, match="not a regular file"):
        load_names(tmp_path / "fifo")                       # a FIFO had blocked the reader for ever
    with pytest.raises(NamesError, match="not a regular file"):
        load_names("/dev/zero")                             # and /dev/zero had been read until memory ran out


def test_missing_and_bad_json_files(tmp_path):
    with pytest.raises(NamesError, match="cannot read"):
        load_names(tmp_path / "nope.yaml")
    p = tmp_path / "n.json"
    p.write_text("{bad")
    with pytest.raises(NamesError, match="bad JSON"):
        load_names(p)
