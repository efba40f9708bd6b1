"""One situation model, one vocabulary (mjtable.scoring.situation_fields, situation_model): every front end (the
command line, the web API, JSON hand lines, the archive, the Python API) reads the same names, takes the old names
as aliases with the same meaning, and refuses an unknown name or a bad value in one line."""
import dataclasses
import json
import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings, strategies as st

import mjtable
from mjtable import cli, errors
from mjtable.pipeline import FileDetector
from mjtable.scoring import batch
from mjtable.scoring.hand import Situation
from mjtable.scoring.situation import SituationError
from mjtable.scoring.situation_fields import CANONICAL, FIELDS, NAMES, OLD_NAMES, fields_of, situation_from_fields
from mjtable.scoring.situation_model import SituationModel, situation
from mjtable.web.app import create_app

ROOT = Path(__file__).resolve().parent.parent
HAND = "123m456p678s234s5z +5z"           # concealed: the first-deal wins can apply
KAN = "123m456p789s11z13s +2s"            # a closed wait (坎张) when the winning tile is set apart

# (hand, profile, canonical fields, the same with the old names, a fan that shows the field was read)
CASES = [
    ("123m456p78s11z [222z^] +9s", "default", {"prevalent_wind": "S"}, {"round_wind": "S"}, "圈风刻"),
    (HAND, "competition", {"heavenly_win": True, "self_drawn": True}, {"heavenly_hand": True, "self_drawn": True},
     "天和"),
    (HAND, "competition", {"earthly_win": True, "seat_wind": "S"}, {"earthly_hand": True, "seat_wind": "S"}, "地和"),
    (HAND, "competition", {"human_win": True}, {"human_hand": True}, "人和"),
    (KAN, "default", {"winning_tile_apart": False}, {"winning_tile_not_apart": True}, "-坎张"),
]
IDS = ["prevalent_wind", "heavenly_win", "earthly_win", "human_win", "winning_tile_apart"]


def _untimed(d: dict) -> dict:
    """A reading's JSON without its timings (they differ from run to run)."""
    return {k: v for k, v in d.items() if k != "timing_ms"}


def _fans_say(fans: list[str], word: str) -> bool:
    return word[1:] not in fans if word.startswith("-") else word in fans


# ------------------------------------------------------------------------------------------ the table


def test_one_name_for_each_field_of_the_dataclass():
    assert CANONICAL == tuple(f.name for f in dataclasses.fields(Situation))
    every = [n for f in FIELDS for n in f.names]
    assert len(every) == len(set(every)) == len(NAMES)
    assert OLD_NAMES == {"round_wind": "prevalent_wind", "heavenly_hand": "heavenly_win",
                         "earthly_hand": "earthly_win", "human_hand": "human_win",
                         "winning_tile_not_apart": "winning_tile_apart"}
    assert SituationModel().situation() == Situation() == situation_from_fields({})


def test_the_docs_table_is_the_vocabulary():
    """docs/python-api.md's table names each field once, with its old names (deprecated) beside it."""
    text = (ROOT / "docs" / "python-api.md").read_text(encoding="utf-8")
    rows = {}
    for line in text.split("## The situation", 1)[1].splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| `") and len(cells) >= 4:
            rows[cells[0].strip("`")] = set(re.findall(r"`([a-z_]+)`", cells[3]))
    assert list(rows) == list(CANONICAL)
    for f in FIELDS:
        assert rows[f.name] == set(f.names[1:]), f.name


def test_round_trip_through_the_canonical_words():
    sit = Situation(self_drawn=True, seat_wind=28, prevalent_wind=30, winning_tile_apart=False, void_suit=2)
    assert situation(fields_of(sit)) == situation_from_fields(fields_of(sit)) == sit
    assert fields_of(sit)["prevalent_wind"] == "N" and fields_of(sit)["void_suit"] == "s"


# ------------------------------------------------------------------------------------------ the two readers agree

_WORDS = st.sampled_from(["E", "s", "east", "1z", "东", "N ", "X", "m", "pin", "万", "q", "true", "FALSE", "on",
                          "no", "1", "", " ", "maybe"])
_VALUES = st.none() | st.booleans() | st.integers(-2, 40) | _WORDS | st.floats(0, 40) | st.lists(st.booleans(),
                                                                                                   max_size=2)
_KEYS = st.sampled_from(sorted(NAMES) + ["round_winds", "kind", "Self_drawn"])


@settings(max_examples=400, deadline=None)
@given(fields=st.dictionaries(_KEYS, _VALUES, max_size=5), text=st.booleans())
def test_json_lines_and_the_pydantic_model_give_the_same_answer(fields, text):
    """JSON lines are read without pydantic (mjtable batch's start-up): the same Situation, or the same line."""
    def outcome(read):
        try:
            return read(fields, text=text)
        except SituationError as e:
            assert "\n" not in str(e)
            return str(e)
    assert outcome(situation_from_fields) == outcome(situation)


# ------------------------------------------------------------------------------------------ the front ends


def _argv(fields: dict) -> list[str]:
    out = []
    for k, v in fields.items():
        flag = "--" + k.replace("_", "-")
        if v is False:
            out.append("--no-" + k.replace("_", "-"))
        elif v is True:
            out.append(flag)
        else:
            out += [flag, v]
    return out


def _cli(capsys, hand: str, profile: str, fields: dict) -> dict:
    assert cli.main(["score", hand, "--json", "--profile", profile, *_argv(fields)]) == 0
    return _untimed(json.loads(capsys.readouterr().out))


@pytest.mark.parametrize("hand, profile, new, old, word", CASES, ids=IDS)
def test_cli_old_flags_mean_the_new_ones(capsys, hand, profile, new, old, word):
    a, b = _cli(capsys, hand, profile, new), _cli(capsys, hand, profile, old)
    assert a == b and _fans_say([f["name_cn"] for f in a["result"]["fans"]], word)


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(detector=FileDetector(str(ROOT / "examples" / "phone_win.json"))),
                    base_url="http://localhost") as c:
        yield c


def _web(client, hand: str, profile: str, fields: dict) -> dict:
    r = client.post("/api/score", json={"hand": hand, "profile": profile, **fields})
    assert r.status_code == 200, r.text
    return _untimed(r.json()["result"])


@pytest.mark.parametrize("hand, profile, new, old, word", CASES, ids=IDS)
def test_web_old_fields_mean_the_new_ones(client, hand, profile, new, old, word):
    a, b = _web(client, hand, profile, new), _web(client, hand, profile, old)
    words = {k: {True: "on", False: "off"}.get(v, v) for k, v in old.items()}     # form words, as the page sends
    assert a == b == _web(client, hand, profile, words)
    assert _fans_say([f["name_cn"] for f in a["result"]["fans"]], word)


def test_web_form_takes_the_old_wind_name(client):
    photo = {"photo": ("p.jpg", (ROOT / "examples" / "phone_win.jpg").read_bytes(), "image/jpeg")}
    got = [client.post("/api/read", files=photo, data={k: "W", "seat_wind": "S"}) for k in ("prevalent_wind",
                                                                                             "round_wind")]
    assert [r.status_code for r in got] == [200, 200]
    assert _untimed(got[0].json()["result"]) == _untimed(got[1].json()["result"])
    assert got[0].json()["result"]["hand"]["prevalent_wind"] == "W"


def _line(hand: str, profile: str, fields: dict) -> dict:
    return batch.score_line(json.dumps({"hand": hand, "profile": profile, **fields}), 1)


@pytest.mark.parametrize("hand, profile, new, old, word", CASES, ids=IDS)
def test_json_line_old_keys_mean_the_new_ones(hand, profile, new, old, word):
    a, b = _line(hand, profile, new), _line(hand, profile, old)
    assert "error" not in a and a == b and _fans_say([f["name_cn"] for f in a["fans"]], word)


def _archive(tmp_path, lines: list[dict]) -> list[dict]:
    from mjtable.archive import items as A
    (tmp_path / "g").mkdir(exist_ok=True)
    f = tmp_path / "g" / "hands.jsonl"
    f.write_text("".join(json.dumps(d) + "\n" for d in lines), encoding="utf-8")
    (item,), _, _ = A.discover([f])
    return A.process(item, A.Options())


def test_archive_old_keys_mean_the_new_ones(tmp_path):
    lines = [{"hand": hand, "profile": profile, **fields} for hand, profile, new, old, _ in CASES
             for fields in (new, old)]
    rows = _archive(tmp_path, lines)
    assert [r["status"] for r in rows] == ["win"] * len(lines)
    for (new, old), (_, _, _, _, word) in zip(zip(rows[::2], rows[1::2]), CASES):
        assert _untimed(json.loads(new["detail"])) == _untimed(json.loads(old["detail"]))
        assert new["score"] == old["score"] and new["fans"] == old["fans"]
        assert _fans_say([f["name_cn"] for f in new["fans"]], word)


@pytest.mark.parametrize("hand, profile, new, old, word", CASES, ids=IDS)
def test_python_api_old_keywords_mean_the_new_ones(hand, profile, new, old, word):
    a, b = (_untimed(mjtable.score(hand, profile=profile, **f).to_dict()) for f in (new, old))
    assert a == b and _fans_say([f["name_cn"] for f in a["result"]["fans"]], word)


# ------------------------------------------------------------------------------------------ refusals

# (fields, what the one line says): an unknown name, a bad value under the new and the old name, both names
REFUSED = [
    ({"round_winds": "S"}, "round_winds"),
    ({"seat_wind": "X"}, "seat_wind: want E, S, W or N, got 'X'"),
    ({"round_wind": "X"}, "round_wind: want E, S, W or N, got 'X'"),
    ({"prevalent_wind": "E", "round_wind": "S"}, "round_wind: the old name of prevalent_wind"),
]
RIDS = ["unknown", "bad_wind", "bad_old_wind", "both_names"]


@pytest.mark.parametrize("argv, says", [
    (["--round-winds", "S"], "unrecognized arguments: --round-winds"),
    (["--seat-wind", "X"], "--seat-wind: want E, S, W or N, got 'X'"),
    (["--round-wind", "X"], "--prevalent-wind: want E, S, W or N, got 'X'"),
    (["--heavenly-win", "yes"], "unrecognized arguments: yes"),
])
def test_cli_refuses_in_one_line_with_exit_2(capsys, argv, says):
    assert cli.main(["score", HAND, *argv]) == errors.EXIT_USAGE
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and says in err, err


@pytest.mark.parametrize("fields, says", REFUSED, ids=RIDS)
def test_web_refuses_with_422_in_one_line(client, fields, says):
    for body in ({"hand": HAND, **fields}, {"hand": HAND, **fields, "self_drawn": "on"}):
        r = client.post("/api/score", json=body)
        assert r.status_code == 422 and list(r.json()) == ["error"], r.text
        assert says in r.json()["error"] and "\n" not in r.json()["error"]


@pytest.mark.parametrize("fields, says", REFUSED, ids=RIDS)
def test_json_line_and_archive_refuse_in_one_line(tmp_path, fields, says):
    out = _line(HAND, "default", fields)
    assert set(out) == {"line", "error"} and says in out["error"] and "\n" not in out["error"]
    (row,) = _archive(tmp_path, [{"hand": HAND, **fields}])
    assert row["status"] == "error" and says in row["error"]


@pytest.mark.parametrize("fields, says", REFUSED, ids=RIDS)
def test_python_api_refuses_with_a_usage_error(fields, says):
    with pytest.raises(SituationError) as e:
        mjtable.score(HAND, **fields)
    assert isinstance(e.value, errors.UsageError) and e.value.exit_code == errors.EXIT_USAGE
    assert says in str(e.value) and "\n" not in str(e.value)


def test_values_keep_their_strictness_where_they_are_typed():
    """JSON lines and the Python API take true/false for a flag; form fields and the command line also words."""
    assert "self_drawn: want true or false, got 'on'" in _line(HAND, "default", {"self_drawn": "on"})["error"]
    with pytest.raises(SituationError, match="self_drawn: want true or false, got 1"):
        mjtable.score(HAND, self_drawn=1)
    assert situation({"self_drawn": "on", "seat_wind": "", "void_suit": ""}, text=True) == Situation(self_drawn=True)
