"""The layout of a game's states (its zones and variables): the layout a new state starts from, and
the generated copier that copies a state's layout (`State.clone` and lookahead trials use it)."""

from __future__ import annotations

from typing import Any, cast

from trickkit.engine.protocols import LayoutCopier, SeatVars, SeatZones, TableVars, TableZones
from trickkit.rules.ruleset import Rules


class Layout:
    """The zones and variables of a state (as `State` holds them), without the state."""

    __slots__ = ("seat_vars", "seat_zones", "table_vars", "table_zones")

    seat_zones: SeatZones
    table_zones: TableZones
    seat_vars: SeatVars
    table_vars: TableVars


def initial_layout(rules: Rules, pool_zone: int) -> Layout:
    """The zones and variables of every new state of ``rules``: empty zones, every card in the
    pool zone (the first table zone) before the first deal, and the variables' initial values.
    `State` starts from a copy of it (by the layout's generated copier, see `layout_copier`)."""
    n = rules.num_players
    layout = Layout()
    layout.seat_zones = [[[] for _ in range(n)] for _ in rules.seat_zones]
    layout.table_zones = [[] for z in rules.table_zones for _ in range(max(z.count, 1))]  # families flattened
    layout.seat_vars = [[fresh(v.initial) for _ in range(n)] for v in rules.seat_vars]
    layout.table_vars = [fresh(v.initial) for v in rules.table_vars]
    if layout.table_zones:
        layout.table_zones[pool_zone] = list(range(len(rules.deck)))
    return layout


def fresh(value: Any) -> Any:
    """A copy of a variable's value that shares no list with anything else.

    DSL values are ints, texts, bools, null, plays (tuples of ints) and lists of these, so
    copying the lists (nested ones too) is a deep copy, without `copy.deepcopy`'s cost.
    """
    if value.__class__ is list:
        if list in map(type, value):  # a list holding lists (rare): copy those too
            return [fresh(v) if v.__class__ is list else v for v in value]
        return value[:]  # the usual case, found by a scan in C
    return value


def _holds_lists(typ: str) -> bool:
    """True if a variable of type ``typ`` may hold a list (a copy of a state copies those)."""
    return typ.startswith("list") or typ == "any"


def _value_copy(code: str, typ: str) -> str:
    """Source that copies the value ``code`` of a variable of type ``typ``: an empty list (a
    per-turn list variable, often) is made here, which costs a tenth of the call to `fresh`."""
    if not _holds_lists(typ):
        return code
    return f"(_fresh({code}) if {code} else [] if {code} == [] else {code})"


def layout_copier(rules: Rules) -> LayoutCopier:
    """A function ``copy(state) -> (seat_zones, table_zones, seat_vars, table_vars)`` that
    copies those four parts of a state of ``rules``, sharing no list with it.

    It is generated for the game's layout (how many seats, zones and variables, and which
    variables may hold lists) as straight-line code, about twice as fast as loops over the
    layout. Its source is made from those counts and indices only (no ruleset text), and it
    passes the same AST allow-list (`trickkit.dsl.allowlist`) as the rules' generated code.
    """
    from trickkit.dsl import allowlist

    n = rules.num_players
    seats = range(n)
    table_count = sum(max(z.count, 1) for z in rules.table_zones)
    lines = ["def _c0(s):"]
    if rules.seat_zones:
        names = [f"a{i}" for i in range(len(rules.seat_zones))]
        lines.append(f"    {', '.join(names)}, = s.seat_zones")
        seat_zones = "[" + ", ".join("[" + ", ".join(f"[*{a}[{j}]]" for j in seats) + "]" for a in names) + "]"
    else:
        seat_zones = "[]"
    if table_count:
        names = [f"t{i}" for i in range(table_count)]
        lines.append(f"    {', '.join(names)}, = s.table_zones")
        table_zones = "[" + ", ".join(f"[*{t}]" for t in names) + "]"
    else:
        table_zones = "[]"
    if rules.seat_vars:
        names = [f"v{i}" for i in range(len(rules.seat_vars))]
        lines.append(f"    {', '.join(names)}, = s.seat_vars")
        seat_vars = (
            "["
            + ", ".join(
                f"[*{v}]"
                if not _holds_lists(spec.type)
                else "[" + ", ".join(_value_copy(f"{v}[{j}]", spec.type) for j in seats) + "]"
                for v, spec in zip(names, rules.seat_vars)
            )
            + "]"
        )
    else:
        seat_vars = "[]"
    if not any(_holds_lists(spec.type) for spec in rules.table_vars):
        table_vars = "[*s.table_vars]"
    else:
        names = [f"q{i}" for i in range(len(rules.table_vars))]
        lines.append(f"    {', '.join(names)}, = s.table_vars")
        table_vars = "[" + ", ".join(_value_copy(q, spec.type) for q, spec in zip(names, rules.table_vars)) + "]"
    lines.append(f"    return {seat_zones}, {table_zones}, {seat_vars}, {table_vars}")
    source = "\n".join(lines) + "\n"
    env: dict[str, Any] = {"__builtins__": {}, "_fresh": fresh}
    code = compile(allowlist.check(source, env), f"<trickkit state copier {rules.name}>", "exec")
    exec(code, env)  # the allow-listed copier, in a namespace without built-ins
    copier = cast(LayoutCopier, env["_c0"])
    copier.source = source  # for `trickkit compile` and tests
    return copier
