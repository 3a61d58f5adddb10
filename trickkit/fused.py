"""Fused step functions: each tricks or bid step's legal actions, and the action applied, as
ONE generated function each (the engine's hottest path, at about hand-written speed).

`trickkit.steps` runs a step by calling each rule's hook in turn (the follow duty's hand
filter, its definitions, the winner rule, ``after_trick`` ...): about 40 Python calls per
decision. Here the engine's own statements for a step (read the hand, map cards to actions,
remove the card, close the trick) are written out as generated lines, and every rule the
step runs is compiled into the same function (`trickkit.dsl.compiler.Splice`): a handful
of calls per decision. The functions are generated code like every rule: they pass the
allow-list, and ``trickkit compile GAME`` shows them, each part under a comment naming its
YAML line.

They are the fast path, not a second engine: `trickkit.steps` stays the general path, used
for what is not generated here and whenever a generated function raises. Then the state is
put back as it was (see `State.apply_action`) and the general path runs the same action: it
reports the error, located, or (when the generated code computed a part too early, as hand
filters do) gives the same answer.
"""

from __future__ import annotations

import attrs
import lark

from .actions import PlayTables
from .dsl.compiler import Compiler, DSLCompileError, Splice
from .dsl.parser import DSLSyntaxError, parse
from .ruleset import BidStep, TrickStep, step_where


def fuse_steps(compiler: Compiler, steps: tuple, tables: PlayTables, num_players: int, deck) -> tuple:
    """``steps`` with a generated ``fused_legal``/``fused_apply`` on every tricks and bid
    step this module can generate (the others are left as they are)."""
    out = []
    for step in steps:
        if isinstance(step, TrickStep):
            step = attrs.evolve(step, fused_legal=_guarded(_trick_legal, compiler, step, tables),
                                fused_apply=_guarded(_trick_apply, compiler, step, tables, num_players, deck))
        elif isinstance(step, BidStep):
            compiler.env["_bids"] = tables.bid_actions  # the bid actions of a list of options, checked
            step = attrs.evolve(step, fused_legal=_guarded(_bid_legal, compiler, step),
                                fused_apply=_guarded(_bid_apply, compiler, step, num_players))
        out.append(step)
    return tuple(out)


def _guarded(make, *args):
    """``make(*args)``, or None where a rule cannot be generated into a fused function (the
    step then runs on the general path alone)."""
    try:
        return make(*args)
    except (DSLCompileError, DSLSyntaxError, RecursionError, _NotFused):
        return None


class _NotFused(Exception):
    """A step this module does not generate (e.g. a rule whose type is known only at play)."""


def _tree(hook, start: str = "expr"):
    if hook is None or not isinstance(getattr(hook, "text", None), str):
        raise _NotFused()
    return parse(hook.text, start)


def _where(hook) -> str:
    return "# " + repr(str(getattr(hook, "where", "")))[1:-1][:300]


# -- tricks ---------------------------------------------------------------------------------
def _trick_legal(c: Compiler, step: TrickStep, tables: PlayTables):
    """``legal(s) -> [Action]``: the follow duty (its layers, ``always_allowed``) over the
    current seat's hand, then card -> action by table; what `trickkit.steps.legal_tricks` does."""
    sp = Splice(c, "l")
    hand, res = sp.temp(), sp.temp()
    card = sp.temp("a")
    single, copies = tables.single_play_action, tables.has_copies
    direct = single is not None and not copies  # one action per card: the filters build the actions
    actions = sp.table(single if single is not None else tables.play_actions)
    first = sp.table(tables.first_copy)
    # what the filters collect: the actions themselves, or each card's first copy, or the cards
    elem = f"{actions}[{card}]" if direct else f"{first}[{card}]" if copies else card

    def finish(cards: str) -> str:  # the actions of the hand or of the cards collected (each copy once, each mode)
        if cards == res and direct:
            return res
        if cards != res and (direct or copies):
            cards = f"[{elem} for {card} in {cards}]"
            if direct:
                return cards
        if copies:
            cards = f"_fromkeys({cards})"
        if single is not None:
            return f"[{actions}[{card}] for {card} in {cards}]"
        v = sp.temp("v")
        return f"[{v} for {card} in {cards} for {v} in {actions}[{card}]]"

    def select(test_code: str, inner: list) -> list:  # res = the cards (or actions) passing a test
        if not inner:
            return [f"{res} = [{elem} for {card} in {hand} if {test_code}]"]
        return [f"{res} = []", f"for {card} in {hand}:", inner + [f"if {test_code}:", [f"{res}.append({elem})"]]]

    lines = [f"# {step_where(step)}: the legal plays", f"{hand} = s.seat_zones[{step.hand.index}][s.current]"]
    duties = (step.must_play_if_able,) + tuple(step.fallback_duties)
    always = step.always_allowed
    hoisted: dict = {}  # parts computed by lines that surely ran before
    for layer, duty in enumerate(duties):
        tree = _tree(duty)
        code, hoist, inner, hoisted = sp.card_test(tree, card, hoisted)
        lines += [_where(duty)] + hoist
        if layer == 0 and code == "True" and not inner:  # no duty: the whole hand
            return sp.define(["s"], lines + [f"return {finish(hand)}"])
        lines += select(code, inner)
        decided = [f"return {finish(res)}"]
        if always is not None:  # some card must be played: those, and the ones always allowed
            either = lark.Tree("or_", [tree, _tree(always)])
            ecode, ehoist, einner, _ = sp.card_test(either, card, hoisted)
            decided = [f"if _len({res}) < _len({hand}):", [_where(always)] + ehoist + select(ecode, einner)] + decided
        lines += [f"if {res}:", decided]
    lines.append(f"return {finish(hand)}")  # no card can do its duty: any card
    return sp.define(["s"], lines)


def _trick_apply(c: Compiler, step: TrickStep, tables: PlayTables, n: int, deck):
    """``apply(s, act) -> finished``: the card played, and at the trick's end the winner rule,
    ``after_trick``, the next leader and the cards taken, inline; what
    `trickkit.steps.apply_tricks` and ``_end_trick`` do."""
    if step.winner is None:
        raise _NotFused()
    sp = Splice(c, "p")
    seat, hand, face, card, trick = (sp.temp() for _ in range(5))
    face_card = sp.table(tuple(fc for fc, _ in tables.face_play))
    lines = [f"# {step_where(step)}: a card played", f"{seat} = s.current",
             f"{hand} = s.seat_zones[{step.hand.index}][{seat}]", f"{face} = act.face", f"{card} = {face_card}[{face}]"]
    if tables.has_copies:  # the first copy in the hand (copies can differ, e.g. in a `copy` attribute)
        first, found, x = sp.table(tables.first_copy), sp.temp(), sp.temp("v")
        faces, mode = sp.table(deck.card_faces), sp.table(tuple(m for _, m in tables.face_play))
        lines += [f"{found} = None", f"for {x} in {hand}:", [f"if {first}[{x}] == {card}:", [f"{found} = {x}", "break"]],
                  f"{face} = {faces}[{found}][{mode}[{face}]]", f"{card} = {found}"]
    lines += [f"{hand}.remove({card})", f"{trick} = s.trick", f"{trick}.append(({seat}, {card}, {face}, _len({trick})))",
              f"if _len({trick}) < {n}:", [f"s.current = ({seat} + 1) % {n}", "return False"]]
    # the trick is complete
    val, wlines = sp.expression(_tree(step.winner), {})
    if val.type != "play":  # known only at play: the general path checks it
        raise _NotFused()
    w = sp.temp()
    lines += [_where(step.winner)] + wlines + [f"{w} = {val.code}"]
    nobody = step.no_winner_to is not None and val.nullable  # a trick may be won by nobody
    if not nobody:
        lines += [f"if {w} is None:", ["_no_winner()"]]  # the general path says why
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
    v = sp.temp("v")
    played = f"[{v}[1] for {v} in {trick}]"
    taken = (f"s.seat_zones[{step.taken_to.index}][{w}[0]] += {played}" if step.taken_to is not None
             else f"s.table_zones[0] += {played}")  # the pool: the first table zone (Game.pool_zone)
    if nobody:
        lines += [f"if {w} is None:", [f"s.table_zones[{step.no_winner_to.index}] += {played}"], "else:", [taken]]
    else:
        lines.append(taken)
    lines += [f"s.last_trick = (s.step, {trick}, {w})", "s.trick = []", "s.tricks_done += 1",
              "if s.tricks_done >= s.tricks_total:", ["return True"],
              f"for {v} in s.seat_zones[{step.hand.index}]:", [f"if {v}:", [f"s.current = {leader} % {n}", "return False"]],
              "return True"]  # every hand is empty
    return sp.define(["s", "act"], lines)


# -- bids -----------------------------------------------------------------------------------
def _bid_legal(c: Compiler, step: BidStep):
    """``legal(s) -> [Action]``: the options rule, its numbers checked and mapped to actions."""
    sp = Splice(c, "l")
    val, lines = sp.expression(_tree(step.options), {})
    return sp.define(["s"], [_where(step.options)] + lines + [f"return _bids({val.code})"])


def _bid_apply(c: Compiler, step: BidStep, n: int):
    """``apply(s, act) -> finished``: the number bid into the seat variable; the next seat bids."""
    if step.variable is None:
        raise _NotFused()
    sp = Splice(c, "p")
    return sp.define(["s", "act"], [
        f"# {step_where(step)}: a bid", f"s.seat_vars[{step.variable.index}][s.current] = act.value",
        "s.acted += 1", f"if s.acted == {n}:", ["return True"], f"s.current = (s.current + 1) % {n}", "return False"])
