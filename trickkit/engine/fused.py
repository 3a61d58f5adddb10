"""Fused step functions: each tricks or bid step's legal actions, and the action applied, as
ONE generated function each (the engine's hottest path, at about hand-written speed).

`trickkit.engine.steps` runs a step by calling each rule's hook in turn (the follow duty's hand
filter, its definitions, the winner rule, ``after_trick`` ...): about 40 Python calls per
decision. Here the engine's own statements for a step (read the hand, map cards to actions,
remove the card, close the trick) are written out as generated lines, and every rule the
step runs is compiled into the same function (`trickkit.dsl.compiler.Splice`): a handful
of calls per decision. The functions are generated code like every rule: they pass the
allow-list, and ``trickkit compile GAME`` shows them, each part under a comment naming its
YAML line.

They are the fast path, not a second engine: `trickkit.engine.steps` stays the general path, used
for what is not generated here and whenever a generated function raises. Then the state is
put back as it was (see `State.apply_action`) and the general path runs the same action: it
reports the error, located, or (when the generated code computed a part too early, as hand
filters do) gives the same answer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeAlias

import attrs
import lark

from trickkit.dsl.body import CALLS_RULES, Line
from trickkit.dsl.compiler import Compiler, DSLCompileError, Splice
from trickkit.dsl.parser import DSLSyntaxError, parse
from trickkit.engine.actions import PlayTables
from trickkit.engine.steady import names_in, steady
from trickkit.engine.steps import acted_for, actor_of, end_tricks, start_trick
from trickkit.rules.cards import Deck
from trickkit.rules.ruleset import BidStep, TrickStep, TurnStep, step_where
from trickkit.rules.steps import never

Code: TypeAlias = "list[Line]"
"""Generated lines: a nested list is an indented block (`trickkit.dsl.compiler.Splice.define`)."""
Plan: TypeAlias = "bool | tuple[Any, ...]"
"""How the legal function tests a card (see `_plan`)."""


def fuse_steps(
    compiler: Compiler, steps: tuple[Any, ...], tables: PlayTables, num_players: int, deck: Deck
) -> tuple[Any, ...]:
    """``steps`` with a generated ``fused_legal``/``fused_apply`` on every tricks and bid
    step this module can generate, and a ``fused_next`` on turns steps with both an
    ``until_after_turn`` and an ``on_turn_start`` (the others are left as they are)."""
    out = []
    for step in steps:
        if isinstance(step, TrickStep):
            if step.sits_out is not None or step.actor is not None:  # the engine's helpers for them
                compiler.env.update(_start_trick=start_trick, _actor_of=actor_of, _acted_for=acted_for)
                compiler.env["_end_tricks"] = end_tricks
            step = attrs.evolve(
                step,
                fused_legal=_guarded(_trick_legal, compiler, step, tables),
                fused_apply=_guarded(_trick_apply, compiler, step, tables, num_players, deck),
                fused_start=_guarded(_trick_start, compiler, step, num_players)
                if step.sits_out or step.actor
                else None,
            )
        elif isinstance(step, BidStep):
            compiler.env["_bids"] = tables.bid_actions  # the bid actions of a list of options, checked
            compiler.env["_bid_range"] = tables.bid_range  # ... of range(a, b), made once per (a, b)
            step = attrs.evolve(
                step,
                fused_legal=_guarded(_bid_legal, compiler, step),
                fused_apply=_guarded(_bid_apply, compiler, step, num_players),
            )
        elif isinstance(step, TurnStep) and step.until_after_turn is not None and step.on_turn_start is not None:
            step = attrs.evolve(step, fused_next=_guarded(_turn_next, compiler, step, num_players))
        out.append(step)
    return tuple(out)


def _guarded(make: Callable[..., Any], *args: Any) -> Any:
    """``make(*args)``, or None where a rule cannot be generated into a fused function (the
    step then runs on the general path alone)."""
    try:
        return make(*args)
    except (DSLCompileError, DSLSyntaxError, RecursionError, _NotFused):
        return None


class _NotFused(Exception):
    """A step this module does not generate (e.g. a rule whose type is known only at play)."""


def _tree(hook: Any, start: str = "expr") -> Any:
    if hook is None or not isinstance(getattr(hook, "text", None), str):
        raise _NotFused()
    return parse(hook.text, start)


def _where(hook: Any) -> str:
    return "# " + repr(str(getattr(hook, "where", "")))[1:-1][:300]


# -- tricks ---------------------------------------------------------------------------------
def _trick_legal(c: Compiler, step: TrickStep, tables: PlayTables) -> Any:
    """``legal(s) -> [Action]``: the follow duty (its layers, ``always_allowed``) over the
    current seat's hand, then card -> action by table; what `trickkit.engine.steps.legal_tricks` does.

    Each layer of the duty is one loop over the hand that appends the actions of the cards
    passing it (and, when ``always_allowed`` is given, of the cards it allows, in hand order,
    noting whether some card did pass the duty): no list is built only to be mapped again."""
    sp = Splice(c, "l")
    hand, res = sp.temp(), sp.temp()
    card = sp.temp("a")
    single, copies = tables.single_play_action, tables.has_copies
    actions = sp.table(single if single is not None else tables.play_actions)
    if copies:  # copies of a card are one action: offered for the first copy met in the hand
        first, seen = sp.table(tables.first_copy), sp.temp()
        copied = sp.table(tuple(tables.first_copy.count(f) > 1 for f in tables.first_copy))
    add_one = f"{res}.append({actions}[{card}])" if single is not None else f"{res} += {actions}[{card}]"

    def add(hit: str | None = None) -> Code:  # the lines adding the card's actions to res
        lines: Code = [f"{hit} = True"] if hit else []
        if copies:  # (every copy of a card has the actions of its first copy)
            lines += [
                f"if {copied}[{card}]:",
                [f"if {first}[{card}] in {seen}:", ["continue"], f"{seen}.append({first}[{card}])"],
            ]
        return lines + [add_one]

    def loop(body: Sequence[Line]) -> Code:  # res = the actions the body adds, card by card over the hand
        return [f"{res} = []", *([f"{seen} = []"] if copies else []), f"for {card} in {hand}:", list(body)]

    def passing(code: str, inner: Sequence[Line], then: Code) -> Code:  # the card's lines: ``then`` if it passes
        return [*inner, f"if {code}:", then]

    always = step.always_allowed

    def emit(plan: Plan, hoisted: dict[Any, Any]) -> tuple[Code, dict[Any, Any]]:
        """Lines returning the legal actions if a plan (see `_plan`) passes some card, else
        falling through; and the parts they surely computed."""
        if plan is True:
            return loop(add()) + [f"return {res}"], hoisted
        if plan is False:
            return [], hoisted
        if plan[0] == "test":
            code, hoist, inner, after = sp.card_test(plan[1], card, hoisted)
            if always is None:
                return [*hoist, *loop(passing(code, inner, add())), f"if {res}:", [f"return {res}"]], after
            # some card must be played: those, and the ones always allowed (in hand order)
            hit = sp.temp()
            acode, ahoist, ainner, _ = sp.card_test(_tree(always), card, after)
            body: Code = [*inner, f"if {code}:", add(hit), "else:", [_where(always), *passing(acode, ainner, add())]]
            return [*hoist, *ahoist, f"{hit} = False", *loop(body), f"if {hit}:", [f"return {res}"]], after
        _, cond, then, other = plan  # a part that does not depend on the card decides, once
        code, hoist, inner, after = sp.card_test(cond, card, hoisted)
        if inner:
            raise _NotFused()  # cannot happen: a part that reads no card is computed before the loop
        if code in ("True", "False"):  # a parameter decides
            return emit(then if code == "True" else other, after)
        chosen: Code = [
            *hoist,
            f"if {code}:",
            emit(then, after)[0] or ["pass"],
            "else:",
            emit(other, after)[0] or ["pass"],
        ]
        return chosen, after

    lines: Code = [f"# {step_where(step)}: the legal plays", f"{hand} = s.seat_zones[{step.hand.index}][s.current]"]
    hoisted: dict[Any, Any] = {}  # parts computed by lines that surely ran before
    for duty in (step.must_play_if_able,) + tuple(step.fallback_duties):
        body, hoisted = emit(_plan(c, _tree(duty)), hoisted)
        lines += [_where(duty)] + body
        if body and body[-1] == f"return {res}":  # every card passes: the later layers never run
            return sp.define(["s"], lines)
    lines += ["# no card can do its duty: any card"] + loop(add()) + [f"return {res}"]
    return sp.define(["s"], lines)


_CARD = (("card", "card"),)


def _plan(c: Compiler, tree: Any, depth: int = 0) -> Plan:
    """A card test as a plan for the legal function: True (every card passes), False (none),
    ``("test", tree)`` (test each card) or ``("if", cond, then, else)``, where ``cond`` does not
    depend on the card: computed once, it picks the plan to run, so the card loop tests only
    what does depend on the card (``if len(trick) == 0 then ... else ...``, ``led == null or ...``).

    The test is truthy for a card exactly when its plan passes the card (expressions have no
    effects; a part computed that a card's test would not reach can only raise, and then the
    engine answers on its general path)."""
    kind = tree.data if isinstance(tree, lark.Tree) else None
    if kind == "true_lit":
        return True
    if kind == "false_lit":
        return False
    if depth > 8:
        return "test", tree
    if kind == "name":  # a definition that names the card: its own text (as the compiler inlines it)
        name = str(tree.children[0])
        if (
            name != "card"
            and name in c._def_trees
            and not c.ns.definition_params.get(name)
            and c.context_reads(tree, _CARD)
        ):
            return _plan(c, c._def_trees[name], depth + 1)
    if not c.context_reads(tree, _CARD):
        return "if", tree, True, False
    if kind == "if_expr" and not c.context_reads(tree.children[0], _CARD):
        return "if", tree.children[0], _plan(c, tree.children[1], depth + 1), _plan(c, tree.children[2], depth + 1)
    if kind == "or_" and not c.context_reads(tree.children[0], _CARD):
        return "if", tree.children[0], True, _plan(c, tree.children[1], depth + 1)
    if kind == "and_" and not c.context_reads(tree.children[0], _CARD):
        return "if", tree.children[0], _plan(c, tree.children[1], depth + 1), False
    return "test", tree


def _trick_apply(c: Compiler, step: TrickStep, tables: PlayTables, n: int, deck: Deck) -> Any:
    """``apply(s, act) -> finished``: the card played, and at the trick's end the winner rule,
    ``after_trick``, the next leader and the cards taken, inline; what
    `trickkit.engine.steps.apply_tricks` and ``_end_trick`` do."""
    if step.winner is None:
        raise _NotFused()
    sp = Splice(c, "p")
    seat, hand, face, card, trick = (sp.temp() for _ in range(5))
    face_card = sp.table(tuple(fc for fc, _ in tables.face_play))
    sits, acts = step.sits_out is not None, step.actor is not None
    # the history names the seat that chose the card (it names the seat due, which chose its own)
    acted: Code = [f"if s.actor != {seat}:", ["_acted_for(s)"]] if acts else []
    lines: Code = [
        f"# {step_where(step)}: a card played",
        f"{seat} = s.current",
        *acted,
        f"{hand} = s.seat_zones[{step.hand.index}][{seat}]",
        f"{face} = act.face",
        f"{card} = {face_card}[{face}]",
    ]
    if tables.has_copies:  # the first copy in the hand (copies can differ, e.g. in a `copy` attribute)
        first, found, x = sp.table(tables.first_copy), sp.temp(), sp.temp("v")
        faces, mode = sp.table(deck.card_faces), sp.table(tuple(m for _, m in tables.face_play))
        texts = deck.texts
        copied = sp.table(tuple(texts.count(t) > 1 for t in texts))  # the cards that have copies
        lines += [
            f"if {copied}[{card}]:",
            [
                f"{found} = None",
                f"for {x} in {hand}:",
                [f"if {first}[{x}] == {card}:", [f"{found} = {x}", "break"]],
                f"{face} = {faces}[{found}][{mode}[{face}]]",
                f"{card} = {found}",
            ],
        ]
    order, left = sp.temp(), sp.table(tuple((k + 1) % n for k in range(n)))  # left: the next seat clockwise
    lines += [
        f"{hand}.remove({card})",
        f"{trick} = s.trick",
        f"{order} = _len({trick})",
        f"{trick}.append(({seat}, {card}, {face}, {order}))",
    ]
    chooser = _chooser(sp, step, n) if acts else []  # who chooses the next card
    if sits:  # the seats that play this trick, found as it started (`trickkit.engine.steps.start_trick`)
        lines += [
            f"if {order} < s.seating[1] - 1:",
            ["s.current = s.seating[0][" + seat + "]", *chooser, "return False"],
        ]
    else:
        lines += [f"if {order} < {n - 1}:", [f"s.current = {left}[{seat}]", *chooser, "return False"]]
    # the trick is complete
    val, wlines = sp.expression(_tree(step.winner), {})
    if val.type != "play":  # known only at play: the general path checks it
        raise _NotFused()
    w = sp.temp()
    lines += [_where(step.winner)] + wlines + [f"{w} = {val.code}"]
    nobody = step.no_winner_to is not None and val.nullable  # a trick may be won by nobody
    if not nobody:
        lines += [f"if {w} is None:", ["_no_winner()"]]  # the general path says why
    # a play kept from another trick cannot win this one: the general path says so, located
    lines += [f"if {w} is not None and {w} not in {trick}:", ["_no_winner()"]]
    winner = {"winner": (w, "play", nobody)}
    if step.after_trick is not None:
        lines += [_where(step.after_trick)] + sp.block(_tree(step.after_trick, "block"), winner)
    leader = sp.temp()
    if step.next_leader is not None:
        lval, llines = sp.expression(_tree(step.next_leader), winner)
        if lval.type != "int":  # known only at play: the general path checks it
            raise _NotFused()
        lines += [_where(step.next_leader)] + llines + [f"{leader} = {lval.code}"]
        if lval.nullable:  # null is no seat: the general path says so, located
            lines += [f"if {leader} is None:", ["_no_winner()"]]
    elif nobody:
        lines += [f"if {w} is None:", ["_no_winner()"], f"{leader} = {w}[0]"]
    else:
        lines.append(f"{leader} = {w}[0]")
    v, zone = sp.temp("v"), sp.temp()

    def take(code: str) -> Code:  # the trick's cards onto a zone, in play order
        whole = f"{code} += [{', '.join(f'{trick}[{k}][1]' for k in range(n))}]"
        if n <= 8 and not sits:  # the trick is complete: its n plays, written out (no loop, no comprehension call)
            return [whole]
        loop: Code = [f"{zone} = {code}", f"for {v} in {trick}:", [f"{zone}.append({v}[1])"]]
        if n <= 8:  # nobody sat out (the last play's order is n - 1): written out too
            return [f"if {order} == {n - 1}:", [whole], "else:", loop]
        return loop

    taken = take(
        f"s.seat_zones[{step.taken_to.index}][{w}[0]]" if step.taken_to is not None else "s.table_zones[0]"
    )  # the pool: the first table zone (Game.pool_zone)
    if nobody and step.no_winner_to is not None:  # (nobody: there is a no_winner_to zone)
        lines += [f"if {w} is None:", take(f"s.table_zones[{step.no_winner_to.index}]"), "else:", taken]
    else:
        lines += taken
    done: Code
    start: Code
    if acts and not sits:  # the step ends: nobody acts for another; a trick starts: who leads, who chooses
        done = ["s.seating = None", "s.actor = None", "return True"]  # `trickkit.engine.steps.end_tricks`, inline
        start = [f"s.current = {leader} % {n}", *_chooser(sp, step, n), "return False"]
    elif sits or acts:  # the step ends: nobody sits out or acts for another; a trick starts: who plays, who chooses
        done, start = ["_end_tricks(s)", "return True"], [f"_start_trick(s, {leader} % {n})", "return False"]
        if sits and not acts and step.next_leader is None and _steady_sitting(c, step, n):
            # the same seats sit out as in this trick, and the winner, who played it, leads
            start = [f"s.current = {leader} % {n}", "return False"]
        elif sits and not acts:
            start = _sitting_start(sp, step, n, leader) or start
    else:
        done, start = ["return True"], [f"s.current = {leader} % {n}", "return False"]
    lines += [
        f"s.last_trick = (s.step, {trick}, {w})",
        "s.trick = []",
        "s.tricks_done += 1",
        "if s.tricks_done >= s.tricks_total:",
        done,
        f"for {v} in s.seat_zones[{step.hand.index}]:",
        [f"if {v}:", start],
        *done,
    ]  # every hand is empty
    return sp.define(["s", "act"], lines)


def _chooser(sp: Splice, step: TrickStep, n: int) -> Code:
    """The lines setting who chooses the card due from ``s.current``: the ``actor`` rule, inline
    (`trickkit.engine.steps.actor_of`; a result that is no seat goes to it, which says so, located)."""
    due, chosen = sp.temp(), sp.temp()
    aval, alines = sp.expression(_tree(step.actor), {"seat": (due, "int", False)})
    if aval.type != "int":  # known only at play: the general path checks it
        raise _NotFused()
    return [
        _where(step.actor),
        f"{due} = s.current",
        *alines,
        f"{chosen} = {aval.code}",
        # null or not a seat: the general path says so, located (an int by type: never a bool)
        f"if {f'{chosen} is None or ' if aval.nullable else ''}not 0 <= {chosen} < {n}:",
        ["s.actor = _actor_of(s)"],
        "else:",
        [f"s.actor = {chosen}"],
    ]


def _steady_sitting(c: Compiler, step: TrickStep, n: int) -> bool:
    """Does the step's ``sits_out`` hold still while the step runs (`trickkit.engine.steady`), and
    charge no evaluation budget (its generated code spends none and calls no rule), so that the
    seats sitting out the first trick sit out every trick?"""
    tree = _tree(step.sits_out)
    written = frozenset(names_in(_tree(step.after_trick, "block"))) if step.after_trick is not None else frozenset()
    if not steady(c, tree, frozenset({"seat"}), written):
        return False
    val, lines = Splice(c, "p").expression(tree, {"seat": ("0", "int", False)})
    flat = "\n".join([*lines, val.code])
    return "s.budget" not in flat and "(s," not in flat and not CALLS_RULES.search(flat)


def _trick_start(c: Compiler, step: TrickStep, n: int) -> Any:
    """``start(s, leader)``: a trick starts, in a step whose seats may sit out and that has no
    ``actor``, or in one with an ``actor`` where nobody sits out (the first trick, as the step is
    entered: `trickkit.engine.steps.start_trick`)."""
    sp = Splice(c, "p")
    leader = sp.temp()
    if step.sits_out is None:  # who leads, and who chooses his card
        return sp.define(
            ["s", leader], [f"# {step_where(step)}: a trick starts", f"s.current = {leader}", *_chooser(sp, step, n)]
        )
    lines = _sitting_start(sp, step, n, leader) if step.actor is None else None
    if lines is None:
        raise _NotFused()
    return sp.define(["s", leader], [f"# {step_where(step)}: a trick starts", *lines])


def _sitting_start(sp: Splice, step: TrickStep, n: int, leader: str) -> Code | None:
    """The lines starting the next trick, led by ``leader``, in a step whose seats may sit out
    (`trickkit.engine.steps.start_trick`, inline): the ``sits_out`` rule for each seat, the
    pattern of sitting seats as a number, and the seating and actual leader of that pattern
    from a table made here. None where that cannot be written out (the general call then)."""
    if n > 8:  # a table of 2**n patterns: small seat counts only
        return None
    parts: Code = [_where(step.sits_out)]
    bits = []
    for k in range(n):
        val, lines = sp.expression(_tree(step.sits_out), {"seat": (str(k), "int", False)})
        if val.type != "bool" or val.nullable:  # a result the hook checks: the general call
            return None
        parts += lines  # (the value's code stays valid after the next seats' lines: they only read)
        bits.append(f"({val.code})" if k == 0 else f"{1 << k} * ({val.code})")
    table: list[Any] = []  # per pattern (seat k sits out: bit k set): (State.seating, the leader for each seat) or None
    for mask in range(1 << n):
        sitting = tuple(bool(mask >> k & 1) for k in range(n))
        if all(sitting):  # nobody can play: the general call says so, located
            table.append(None)
            continue
        following = tuple(next((k + d) % n for d in range(1, n + 1) if not sitting[(k + d) % n]) for k in range(n))
        table.append(((following, n - sum(sitting)), tuple(following[k] if sitting[k] else k for k in range(n))))
    lead, row, seats = sp.temp(), sp.temp(), sp.table(tuple(table))
    return [
        f"{lead} = {leader} % {n}",
        *parts,
        f"{row} = {seats}[{' + '.join(bits)}]",
        f"if {row} is None:",
        [f"_start_trick(s, {lead})", "return False"],
        f"s.seating = {row}[0]",
        f"s.current = {row}[1][{lead}]",
        "return False",
    ]


# -- bids -----------------------------------------------------------------------------------
def _bid_legal(c: Compiler, step: BidStep) -> Any:
    """``legal(s) -> [Action]``: the options rule, its numbers checked and mapped to actions."""
    sp = Splice(c, "l")
    tree = _tree(step.options)
    if _is_range(c, tree):  # range(a, b): numbers of their own, the list of actions made once per (a, b)
        (a, alines), (b, blines) = (sp.expression(arg, {}) for arg in tree.children[1:])
        if a.type == b.type == "int" and not a.nullable and not b.nullable:
            return sp.define(
                ["s"], [_where(step.options)] + alines + blines + [f"return _bid_range({a.code}, {b.code})"]
            )
    val, lines = sp.expression(tree, {})
    return sp.define(["s"], [_where(step.options)] + lines + [f"return _bids({val.code})"])


def _is_range(c: Compiler, tree: Any) -> bool:
    """Is ``tree`` a call of the built-in ``range`` with two arguments (no definition of that name)?"""
    return (
        isinstance(tree, lark.Tree)
        and tree.data == "call"
        and str(tree.children[0]) == "range"
        and len(tree.children) == 3
        and all(isinstance(x, lark.Tree) for x in tree.children[1:])
        and "range" not in c._def_trees
    )


def _bid_apply(c: Compiler, step: BidStep, n: int) -> Any:
    """``apply(s, act) -> finished``: the number bid into the seat variable; the next seat bids."""
    if step.variable is None:
        raise _NotFused()
    sp = Splice(c, "p")
    return sp.define(
        ["s", "act"],
        [
            f"# {step_where(step)}: a bid",
            f"s.seat_vars[{step.variable.index}][s.current] = act.value",
            "s.acted += 1",
            f"if s.acted == {n}:",
            ["return True"],
            f"s.current = (s.current + 1) % {n}",
            "return False",
        ],
    )


# -- turns ----------------------------------------------------------------------------------
def _turn_next(c: Compiler, step: TurnStep, n: int) -> Any:
    """``next(s) -> bool``, once a turn has ended (a turns step with no ``until``): True if
    ``until_after_turn`` holds, else the next turn starts (`trickkit.engine.turns.start_turn`
    without per-turn variables) and its ``on_turn_start`` block runs. One call where the planned
    apply (`trickkit.engine.turnplan`) made two, at every turn of a game that has both rules."""
    ended, start = step.until_after_turn, step.on_turn_start
    if step.until is not never or getattr(ended, "size", None) != 0 or getattr(start, "size", None) != 0:
        raise _NotFused()  # rules with a context of their own (the planned apply calls them)
    sp = Splice(c, "p")
    val, lines = sp.expression(_tree(ended), {})
    if val.type != "bool" or val.nullable:  # a result the hook checks: the planned apply's calls
        raise _NotFused()
    seat = sp.temp()
    return sp.define(
        ["s"],
        [
            f"# {step_where(step)}: a turn ended, the next one starts",
            _where(ended),
            *lines,
            f"if {val.code}:",
            ["return True"],
            f"{seat} = s.next_turn",  # the seat an effect named, else the next one round
            f"{seat} = (s.turn_player + 1 if {seat} is None else {seat}) % {n}",
            f"s.current = {seat}",
            f"s.turn_player = {seat}",
            "s.turn_over = False",
            "s.next_turn = None",
            "s.turn_no += 1",
            _where(start),
            *sp.block(_tree(start, "block"), {}),
            "return False",
        ],
    )
