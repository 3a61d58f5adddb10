"""A kinds pass's lines tidied (`trickkit.dsl.pass_tidy`): charges of one block merged so that
the same total is charged, unread values made of locals dropped."""

from typing import Any

import pytest

from trickkit.dsl.pass_tidy import (
    charges_merged,
    copies_dropped,
    exits_joined,
    state_read_once,
    tidied,
    unread_dropped,
)

CHECK = ["    if s.budget < 0:", "        _over_budget()"]


def test_a_charge_whose_values_are_set_before_is_merged_into_the_one_before() -> None:
    lines = [
        "def _g1(s, fr):",
        "    s.budget -= _len(v0)",
        *CHECK,
        "    t1 = False",
        "    for v2 in t3:",
        "        if v2 == 1:",
        "            t1 = True",
        "            break",
        "    s.budget -= _len(t3)",
        *CHECK,
        "    return t1",
    ]
    out = charges_merged(lines)
    assert out[1] == "    s.budget -= _len(v0) + _len(t3)"
    assert sum("s.budget -=" in line for line in out) == 1
    assert sum("_over_budget()" in line for line in out) == 1


def test_a_charge_of_a_value_set_in_between_takes_the_earlier_one_down_to_it() -> None:
    lines = ["def _g1(s, fr):", "    s.budget -= _len(v0) * 4", *CHECK, "    h1 = s.seat_vars[1]", "    t2 = h1"]
    lines += ["    s.budget -= _len(t2)", *CHECK, "    return t2"]
    out = charges_merged(lines)
    assert out[:4] == [
        "def _g1(s, fr):",
        "    h1 = s.seat_vars[1]",
        "    t2 = h1",
        "    s.budget -= _len(v0) * 4 + _len(t2)",
    ]
    assert out[4:] == [*CHECK, "    return t2"]


@pytest.mark.parametrize(
    "between",
    [
        ["    if t1:", "        return True"],  # the later charge is not always made
        [
            "    for a0 in v0:",
            "        if a0:",
            "            continue",
            "        t2 = 1",
            "    if t1:",
            "        t2 = 2",
        ],
        [
            "    t2 = len(t9)",
            "    for a0 in t2:",
            "        t3 = a0",
        ],  # the later charge's value is set in between, in a loop
    ],
)
def test_charges_are_kept_apart_when_the_total_could_differ(between: Any) -> None:
    lines = ["def _g1(s, fr):", "    s.budget -= _len(v0)", *CHECK, *between, "    s.budget -= _len(t2)", *CHECK]
    assert charges_merged(lines) == lines


def test_a_break_out_of_the_block_keeps_charges_apart() -> None:
    lines = ["    for a0 in v0:", "        s.budget -= 1", "    " + CHECK[0], "    " + CHECK[1], "        if a0:"]
    lines += ["            break", "        s.budget -= 2", "    " + CHECK[0], "    " + CHECK[1]]
    assert charges_merged(lines) == lines


def test_charges_of_nested_blocks_stay_where_they_are() -> None:
    lines = ["    s.budget -= 1", *CHECK, "    if t1:", "        s.budget -= 2", "    " + CHECK[0], "    " + CHECK[1]]
    assert charges_merged(lines) == lines


def test_unread_values_of_locals_are_dropped_and_read_ones_kept() -> None:
    lines = [
        "    for a0 in v0:",
        "        h0 = (a0 != s.current)",
        "        if not h0:",
        "            continue",
        "        h1 = (not h0)",
        "        h2 = (h0 and h1)",
        "        h3 = (h2 and h0)",
        "        h4 = s.seat_vars[1][a0]",  # may raise: kept though unread
        "        out.append(a0)",
    ]
    out = unread_dropped(lines)
    assert out == [*lines[:4], lines[7], lines[8]]


def test_the_only_line_of_a_block_is_kept() -> None:
    lines = ["    if t0:", "        h1 = (t0 and t2)", "    return out"]
    assert unread_dropped(lines) == lines


def test_a_shipped_pass_tidied_charges_as_often_as_before() -> None:
    """Love Letter's pass: same games (goldens elsewhere), fewer charge statements."""
    import trickkit
    from trickkit.dsl import gen_base

    sources: list[list[str]] = []
    define = gen_base.GenBase._define

    def spy(self: Any, name: str, lines: list[str], record: bool = True) -> Any:
        sources.append(list(lines))
        return define(self, name, lines, record)

    gen_base.GenBase._define = spy  # type: ignore[method-assign]
    try:
        trickkit.load_game("love_letter")
    finally:
        gen_base.GenBase._define = define  # type: ignore[method-assign]
    passes = [lines for lines in sources if any(line.startswith("    m0, m1, m2 = fr") for line in lines)]
    assert passes
    for lines in passes:
        assert tidied(lines) == lines  # already tidied
        assert not any("h1004 =" in line for line in lines)  # the Guard's unread test
        # the top block's charges are one (the Guard's targets, charged only with a Guard, apart)
        assert sum("s.budget -=" in line for line in lines) == 2


def test_state_reads_are_made_once_at_the_top_of_a_pass() -> None:
    lines = [
        "def _g1(s, fr):",
        "    t0 = s.seat_zones[0][s.current]",
        "    for a0 in v0:",
        "        if a0 != s.current and not s.seat_vars[1][a0]:",
        "            out.append(a0)",
        "    v1 = s.seat_zones[0][s.current]",
        "    t2 = s.seat_vars[2][s.current]",
    ]
    out = state_read_once(lines)
    assert out[1:3] == ["    h901 = s.current", "    h900 = s.seat_zones[0][s.current]"]
    assert out[3:] == [
        "    t0 = h900",
        "    for a0 in v0:",
        "        if a0 != h901 and not s.seat_vars[1][a0]:",  # read once: left as it is
        "            out.append(a0)",
        "    v1 = h900",
        "    t2 = s.seat_vars[2][h901]",
    ]


@pytest.mark.parametrize("line", ["    s.seat_vars[1][a0] = True", "    s.current = 2", "    t3 = 'x'"])
def test_a_pass_that_may_set_the_state_keeps_its_reads(line: str) -> None:
    lines = ["def _g1(s, fr):", "    t0 = s.current", "    t1 = s.current + s.seat_vars[1][0]", line]
    assert state_read_once(lines) == lines


def test_a_copy_of_a_local_set_once_at_the_top_is_replaced_by_it() -> None:
    lines = [
        "def _g1(s, fr):",
        "    h0 = s.seat_vars[1]",
        "    t1 = False",
        "    if t1:",
        "        h2 = h0",  # a copy of h0, set once at the top: replaced
        "        t3 = h2[0]",
        "    t4 = t1",  # t1 is set again below: kept
        "    t1 = True",
        "    return t4",
    ]
    out = copies_dropped(lines)
    assert out == [*lines[:4], "        t3 = h0[0]", *lines[6:]]


def test_merged_charges_add_up_like_terms_to_the_same_amount() -> None:
    lines = [
        "def _g1(s, fr):",
        "    s.budget -= _len(h900) + _len(p0) * 4",
        "    if s.budget < 0:",
        "        _over_budget()",
        "    v0 = p0",
        "    s.budget -= _len(h900) + _len(p0) + 4 + _len(h900) + _len(v1) * _len(p0)",
        "    if s.budget < 0:",
        "        _over_budget()",
    ]
    out = charges_merged(lines)
    assert out == [
        *lines[:1],
        "    s.budget -= _len(h900) * 3 + _len(p0) * 5 + 4 + _len(p0) * _len(v1)",
        *lines[2:5],
    ]
    h900, p0, v1 = [1, 2], [3], [4, 5, 6]
    assert eval(out[1].split("-= ")[1], {"_len": len, "h900": h900, "p0": p0, "v1": v1}) == eval(
        "len(h900) + len(p0) * 4 + len(h900) + len(p0) + 4 + len(h900) + len(v1) * len(p0)"
    )
    # anything but lengths of locals and numbers is left as written
    other = ["def _g1(s, fr):", "    s.budget -= f(t0) + 1", *lines[2:5], "    s.budget -= f(t0)", *lines[6:]]
    assert charges_merged(other)[1] == "    s.budget -= f(t0) + 1 + f(t0)"


def test_tests_that_each_end_a_loop_turn_are_joined_into_one() -> None:
    lines = [
        "def _g1(s, fr):",
        "    for a0 in v0:",
        "        h1000 = (a0 != h903)",
        "        if not h1000:",
        "            continue",
        "        h1002 = h901[a0]",
        "        h1003 = (not h1002)",
        "        if not h1003:",
        "            continue",
        "        h1004 = h902[a0]",  # read again below: kept
        "        if not h1004:",
        "            continue",
        "        out.append(h1004)",
        "        h1005 = h9 if a0 else h8",  # a conditional value: kept whole under the `not`
        "        h1006 = (not h1005)",
        "        out.append(h1006)",
    ]
    out = exits_joined(lines)
    assert out == [
        *lines[:2],
        "        if (not ((a0 != h903))) or (not ((not (h901[a0])))):",
        "            continue",
        *lines[9:13],
        "        h1006 = (not (h9 if a0 else h8))",
        "        out.append(h1006)",
    ]
    # the same candidates kept, the same subscripts made (an error raised where it was)
    for seats in ([0, 1, 2, 3], [5, 1], []):
        h901, h902 = [False, True, False, False], [1, 0, 2, 0]
        found = []
        for source in (lines, out):
            env: dict[str, Any] = {"v0": seats, "h903": 2, "h901": h901, "h902": h902, "h8": 0, "h9": 1, "out": []}
            try:
                exec("\n".join(line[4:] for line in source[1:]), env)
                found.append(env["out"])
            except IndexError as e:
                found.append(str(e))
        assert found[0] == found[1]


def test_tests_followed_by_other_code_are_left_alone() -> None:
    lines = [
        "def _g1(s, fr):",
        "    for a0 in v0:",
        "        h1000 = (a0 != h903)",
        "        if not h1000:",
        "            out.append(a0)",  # no continue: kept as it is
        "        if a0:",
        "            continue",
        "        t1 = a0",
        "        if t1:",
        "            continue",
    ]
    assert exits_joined(lines) == lines
