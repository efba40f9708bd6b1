"""Label corrections of the shared real photo sets (datasets/label_fixes.py): each fix meets exactly one row."""
import pytest

from mjtable.datasets.label_fixes import Fix, StaleFix, apply_fixes, load_fixes
from mjtable.scoring import tiles as T

ROWS = ["0 0.2890625 0.70390625 0.053125 0.10625", "0 0.5 0.5 0.05 0.1", "19 0.4 0.47890625 0.16875 0.165625"]


def test_a_fix_changes_only_the_row_it_meets():
    fix = Fix("a.jpg", 0.2891, 0.7039, T.make(T.MAN, 1), T.make(T.MAN, 9), "corner index 9")
    out = apply_fixes(ROWS, [fix])
    assert out[0].split() == [str(T.make(T.MAN, 9)), "0.2890625", "0.70390625", "0.053125", "0.10625"]
    assert out[1:] == ROWS[1:]


@pytest.mark.parametrize("x, y, was", [(0.9, 0.9, 0), (0.4, 0.4789, 0), (0.2891, 0.7039, 5)])
def test_a_fix_that_meets_no_row_is_refused(x, y, was):
    with pytest.raises(StaleFix):
        apply_fixes(ROWS, [Fix("a.jpg", x, y, was, 8, "")])


def test_a_fix_that_meets_two_rows_is_refused():
    with pytest.raises(StaleFix):
        apply_fixes(ROWS + [ROWS[0]], [Fix("a.jpg", 0.2891, 0.7039, 0, 8, "")])


def test_the_committed_fixes_load_and_each_changes_the_kind():
    fixes = [f for fs in load_fixes("chinese_mahjong_detection").values() for f in fs]
    assert fixes and all(f.was != f.now and f.evidence for f in fixes)
    assert load_fixes("no such dataset") == {}
