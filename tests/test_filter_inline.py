"""A kinds pass inlines its combination filters and computes a hoisted part they share once
(`trickkit.dsl.filter_inline`), charging the budget as before."""

from trickkit.dsl.filter_inline import inline_filter

FILTER = [
    "def _g1(s, fr, domains):",
    "    h0 = s.seat_zones[0][s.current]",
    "    t1 = h0",
    "    s.budget -= _len(t1)",
    "    if s.budget < 0:",
    "        _over_budget()",
    "    t3 = False",
    "    for v2 in t1:",
    "        if (_T1[v2] == 7):",
    "            t3 = True",
    "            break",
    "    h4 = t3",
    "    out = []",
    "    for a0 in domains[0]:",
    "        if h4 or _T1[a0] == 4:",
    "            out.append((a0,))",
    "    return out",
]


def test_a_filter_is_inlined_with_its_locals_renumbered_and_domains_named() -> None:
    lines = inline_filter(FILTER, "[v0]", [1000], "out.append({})", {}, True)
    assert lines is not None
    assert "h1000 = s.seat_zones[0][s.current]" in lines
    assert "for a0 in v0:" in lines
    assert lines[-1] == "out.append(q1005)"
    assert not any("domains" in line or "return" in line for line in lines)


def test_a_part_computed_by_an_earlier_filter_is_only_charged() -> None:
    known: dict[str, list[str]] = {}
    base = [1000]
    first = inline_filter(FILTER, "[v0]", base, "out.append({})", known, True)
    second = inline_filter(FILTER, "[v0]", base, "out.append({})", known, True)
    assert first is not None and second is not None
    assert sum("for v" in line for line in second) == 0  # the loop over the hand: not run again
    assert second.count("s.budget -= _len(t1001)") == 1  # its charge: made again, on the first's local
    assert "    if h1004 or _T1[a0] == 4:" in second


def test_a_guarded_filter_shares_nothing_with_later_ones() -> None:
    known: dict[str, list[str]] = {}
    base = [1000]
    inline_filter(FILTER, "[v0]", base, "out.append({})", known, False)  # under a guard: may not have run
    second = inline_filter(FILTER, "[v0]", base, "out.append({})", known, True)
    assert second is not None and sum("for v" in line for line in second) == 1


def test_a_filter_returning_early_is_not_inlined() -> None:
    early = [*FILTER[:-2], "            return [(a0,)]", "    return out"]
    assert inline_filter(early, "[v0]", [1000], "out.append({})", {}, True) is None


def test_a_filter_with_plain_text_literals_is_inlined_with_its_literals_unchanged() -> None:
    # `card.kind == 'pip'` (Trumps' play): renaming the locals leaves the literal as it is
    pip = [line.replace("_T1[a0] == 4", "_T1[a0] == 'pip'") for line in FILTER]
    lines = inline_filter(pip, "[v0]", [1000], "out.append({})", {}, True)
    assert lines is not None and "    if h1004 or _T1[a0] == 'pip':" in lines


def test_a_filter_whose_literal_holds_a_renamed_name_or_a_quote_is_not_inlined() -> None:
    for literal in ("'t1'", "'out'", "'domains[0]'", '"pip"', "'it\\'s'"):
        odd = [line.replace("_T1[a0] == 4", f"_T1[a0] == {literal}") for line in FILTER]
        assert inline_filter(odd, "[v0]", [1000], "out.append({})", {}, True) is None, literal
