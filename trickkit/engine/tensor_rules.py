"""What the observation encoder (`trickkit.engine.tensor`) reads from a ruleset besides its layout:
the texts its variables can hold, and whether its score rule reads a seat variable as it is."""

from __future__ import annotations

import re
from typing import Any


def text_vocabulary(game: Any) -> tuple[str, ...]:
    """The text values this game's variables can be expected to hold (see `trickkit.engine.tensor`)."""
    from trickkit.engine.spaces import _Prober, auction_calls

    rules = game.rules
    found: set[str] = set()
    for name, values in rules.deck.attrs.items():
        if name != "name":
            found.update(v for v in values if isinstance(v, str))
    found.update(v for v in rules.params.values() if isinstance(v, str))
    for v in rules.seat_vars + rules.table_vars:
        if isinstance(v.initial, str):
            found.add(v.initial)
    prober = _Prober(game)
    for step in rules.steps:
        if step.kind == "auction":  # the calls a contract variable may hold
            found.update(v for v in auction_calls(prober, step) if isinstance(v, str))
        if step.kind == "turns":
            for kind in list(step.kinds) + [k for w in step.windows for k in w.kinds]:
                for hook, typ in zip(kind.domains, kind.choice_types):
                    if typ != "card":
                        found.update(v for v in prober.values(hook) if isinstance(v, str))
    return tuple(sorted(found))


def bare_seat_variable(rules: Any) -> int:
    """The index of the seat variable the score rule reads as it is (``score: total[seat]``), else -1.

    Told from the rule's generated function, which then only indexes the variable by the seat
    (`trickkit.dsl.runtime.index`, which is ``values[seat]`` for a seat; or that read written out for
    a seat in range, the call kept for the rest): the encoder reads the
    variable itself instead of calling the rule once per seat."""
    fn = getattr(rules.score, "fn", None)
    if getattr(rules.score, "size", None) != 1 or not callable(fn):
        return -1
    source = rules.generated_source or ""
    at = source.find(f"\ndef {fn.__name__}(s, fr):\n")
    if at < 0:
        return -1
    body = source[at + 1 :].split("\n\n", 1)[0].splitlines()[1:]
    lines = [line.strip() for line in body if not line.strip().startswith("#")]
    if len(lines) != 2 or lines[0] != "a0 = fr[0]":
        return -1
    found = re.fullmatch(r"return _index\(s\.seat_vars\[(\d+)\], a0\)", lines[1]) or re.fullmatch(
        # the same read with the in-range case written out (`trickkit.dsl.gen_expr`)
        r"return \(s\.seat_vars\[(\d+)\]\[a0\] if a0 is not None and 0 <= a0 < \d+"
        r" else _index\(s\.seat_vars\[\1\], a0\)\)",
        lines[1],
    )
    return int(found.group(1)) if found else -1
