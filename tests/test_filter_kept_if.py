"""`kept_if`: an unrolled combination filter's `and` chain tested on its first local itself."""

from trickkit.dsl.body import Line
from trickkit.dsl.filter_exits import kept_if


def test_a_chain_starting_with_a_local_is_tested_on_it() -> None:
    inner: list[Line] = ["t3 = h1", "if t3:", ["t2 = (a0 > 1)", "t3 = t2"]]
    assert kept_if(inner, "t3", "out.append((a0, 'left'))", "t4 = h1") == [
        "if h1:",
        ["t2 = (a0 > 1)", "t3 = t2", "if t3:", ["out.append((a0, 'left'))"]],
    ]


def test_a_chain_read_by_another_test_is_left_as_it_is() -> None:
    inner: list[Line] = ["t3 = h1", "if t3:", ["t3 = (a0 > 1)"]]
    assert kept_if(inner, "t3", "out.append((a0,))", "t5 = t3") == [*inner, "if t3:", ["out.append((a0,))"]]


def test_other_shapes_are_left_as_they_are() -> None:
    inner: list[Line] = ["t3 = (a0 > 1)"]
    assert kept_if(inner, "t3", "out.append((a0,))", "") == [*inner, "if t3:", ["out.append((a0,))"]]
