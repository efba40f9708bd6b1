"""The end-to-end benchmark's failure breakdown (scripts/bench_e2e.py)."""
from __future__ import annotations

import dataclasses

from scoring.table import PlayerArea
from scripts.bench_e2e import wrong_fields


def test_wrong_fields_names_the_parts_read_wrong():
    want = PlayerArea(seat="right", concealed=None, concealed_face_down=13, discards=(1, 2, 3), exposed=())
    assert wrong_fields(dataclasses.replace(want), want, overhead=True) == []
    got = dataclasses.replace(want, concealed_face_down=12, discards=(1, 3), exposed=(5,))
    assert wrong_fields(got, want, overhead=True) == ["face-down in hand", "discards", "exposed"]
    assert wrong_fields(got, want, overhead=False) == []          # a phone photo shows no river
    assert wrong_fields(None, want, overhead=True) == ["seat not read"]
