"""Per-unit outcomes held one byte per unit (:mod:`evalkit.gate.units`) give the numbers the
dict form gives to :func:`evalkit.metrics.compare.compare_units`."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalkit.gate.units import EMPTY, UnitLayout, Units, compare_counts_of, only_in
from evalkit.metrics.compare import compare_counts, compare_units

SLOTS = [("p1", None), ("p2", None), ("p1", "act"), ("p1", "abstain"), ("p2", "act"), ("p3", "act_resist")]


@st.composite
def units(draw, paired: bool):
    pool = [s for s in SLOTS if (s[1] is None) == paired]
    slots = draw(st.lists(st.sampled_from(pool), unique=True))
    epochs = draw(st.integers(1, 3))
    outcomes = draw(st.lists(st.integers(0, 1), min_size=len(slots) * epochs, max_size=len(slots) * epochs))
    return Units(UnitLayout(tuple(slots), epochs), bytearray(outcomes))


@settings(max_examples=200, deadline=None)
@given(st.booleans().flatmap(lambda paired: st.tuples(units(paired), units(paired))))
def test_counts_and_differences_equal_those_of_the_dict_form(pair):
    a, b = pair
    da, db = dict(a), dict(b)
    assert len(a) == len(da) and a.k == sum(da.values()) and list(a.values()) == list(da.values())
    expected = compare_units(da, db, samples=50)
    assert compare_counts(*compare_counts_of(a, b), samples=50) == expected
    assert only_in(a, b) == sorted(set(da) - set(db)) and only_in(b, a) == sorted(set(db) - set(da))
    assert compare_counts_of(a, EMPTY) == (0, 0, 0, 0, 0) and only_in(a, EMPTY) == sorted(da)
    assert a.pair_ids() == {u[0] for u in da}


def test_a_unit_is_read_by_its_pair_variant_and_epoch():
    layout = UnitLayout((("p1", "act"), ("p1", "abstain"), ("p2", "act")), 2)
    units = Units(layout, bytearray([1, 0, 0, 1, 1, 1]))
    assert list(units.items()) == [(("p1", "act", 1), 1), (("p1", "act", 2), 0), (("p1", "abstain", 1), 0),
                                   (("p1", "abstain", 2), 1), (("p2", "act", 1), 1), (("p2", "act", 2), 1)]
    assert units[("p1", "abstain", 2)] == 1 and ("p2", "act", 3) not in units and ("p2", 1) not in units
    with pytest.raises(KeyError):
        units[("p3", "act", 1)]
    with pytest.raises(ValueError, match="5 outcomes for 3 slots × 2 epochs"):
        Units(layout, bytearray(5))
