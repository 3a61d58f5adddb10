"""``trickkit play``: one seat played by a person in the terminal, the others by agents."""

from __future__ import annotations

import argparse
import os
from typing import Any

from trickkit.cli.common import (
    UsageError,
    check_out,
    check_outputs,
    check_seed,
    console,
    load_ruleset,
    parse_params,
    write_guard,
)
from trickkit.errors import IllegalActionError, TrickkitError

#: The word that stands for your own seat in a per-seat ``--agents`` list.
HUMAN = "human"


def seat_agents(text: str | None, options: list[str], players: int, me: int) -> list[Any] | None:
    """The agent specs of ``play --agents`` for every seat (None at ``me``, your seat), or None.

    ``text`` is one spec (every other seat), one spec per other seat in seat order, or one per
    seat with ``human`` at yours; ``options`` are ``--agent-option KEY=VALUE`` items applied to
    every listed agent that has the option, as in ``simulate``.

    Raises:
        UsageError: a bad spec or option, or a count that fits none of these forms.
    """
    from trickkit.agents import AGENTS, parse_agent_spec

    extra: dict[str, str] = {}
    for item in options:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise UsageError(f"--agent-option {item!r}: expected KEY=VALUE")
        extra[key.strip()] = value.strip()
    if text is None:
        if extra:
            raise UsageError("--agent-option needs --agents (e.g. --agents ismcts)")
        return None
    items = [t.strip() for t in text.split(",")]
    if len(items) == players:
        if items[me].lower() != HUMAN:
            raise UsageError(
                f"--agents lists {players} seats: write {HUMAN!r} for your seat {me} "
                f"(or list only the other {players - 1} seats)"
            )
        del items[me]
    elif len(items) == 1:
        items = items * (players - 1)
    elif len(items) != players - 1:
        raise UsageError(
            f"--agents: give one agent for every other seat, {players - 1} (one per other seat) or "
            f"{players} (one per seat, {HUMAN!r} at yours); got {len(items)}"
        )
    if any(t.lower() == HUMAN for t in items):
        raise UsageError(f"--agents: {HUMAN!r} stands only for your own seat {me} (see --seat)")
    try:
        specs: list[Any] = [parse_agent_spec(t, extra) for t in items]
    except TrickkitError as exc:
        raise UsageError(f"--agents: {exc}") from None
    unused = sorted(set(extra) - {k for s in specs for k in AGENTS[s.name][1]})
    if unused:
        raise UsageError(f"--agent-option {unused[0]!r} fits none of the agents in --agents")
    specs.insert(me, None)
    return specs


def cmd_play(args: argparse.Namespace) -> int:
    import random
    import shutil

    from trickkit.agents import make_agent
    from trickkit.engine.view import Narrator, clean, columns, fit, render
    from trickkit.lab.simulation import RandomAgent

    check_seed(args.seed)
    if args.out is not None:
        check_outputs([args.game], {"--out": args.out})
        check_out(args.out)
    game = load_ruleset(args.game, args.players, parse_params(args.param))
    if not 0 <= args.seat < game.num_players:
        raise UsageError(f"--seat must be 0..{game.num_players - 1}, got {args.seat}")
    specs = seat_agents(args.agents, args.agent_option, game.num_players, args.seat)
    out = console()
    width = max(shutil.get_terminal_size((80, 24)).columns - 1, 20)

    def say(line: str = "") -> None:  # escaped, and broken into lines no wider than the terminal
        for part in fit(clean(line), width):
            out.print(part, markup=False, emoji=False)

    # The seed fixes every hidden card and every opponent move: it is shown only at the end.
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    state = game.new_initial_state(seed=seed)
    rng = random.Random(f"trickkit:play:{seed}")  # the other seats' agents draw from it, in turn
    me = args.seat
    agents = [
        None if seat == me else RandomAgent(rng) if specs is None else make_agent(specs[seat], rng)
        for seat in range(game.num_players)
    ]
    played: list[str] = []  # the record's actions: the engine's own text of each
    rules = getattr(game, "rules", None)
    narrator = Narrator(game, me) if rules is not None else None
    titles = narrator.titles if narrator else {}
    hidden = narrator.hidden if narrator else frozenset()
    unit = getattr(game, "score_unit", "points")
    best = "lowest" if rules is not None and not rules.winners_highest else "highest"

    def show(title: str) -> None:
        say(f"--- {title} ---")
        for line in render(state.observation(me), me, titles, unit, hidden):
            say(line)

    def perform(seat: int, action: Any, shown: str | None) -> None:
        before = narrator.snapshot(state) if narrator else None
        state.apply_action(action)
        played.append(state.history()[-1])
        shown = state.history()[-1] if shown is None else shown  # your own move, as the engine spells it
        say(f"seat {seat}{' (you)' if seat == me else ''}: {shown}")
        for line in narrator.tell(before, state) if narrator and before is not None else ():
            say(line)

    say(f"{game.title}: you are seat {me} of {game.num_players}. Scores count {unit}; {best} wins.")
    while not state.is_terminal():
        seat = state.current_player()
        if seat != me:
            action = agents[seat].step(state)
            perform(seat, action, state.action_seen_by(action, me))  # hidden bids show as 'bid ?'
            continue
        show(f"seat {me} (you) to act")
        actions = state.legal_actions()
        for line in columns([f"{i}. {clean(a)}" for i, a in enumerate(actions, start=1)], width):
            say(line)
        for line in narrator.meanings(actions) if narrator else ():
            say(line)
        while True:
            try:
                answer = input("your move (number or text)> ").strip()
            except EOFError:
                say()
                say(f"bye (this was seed {seed})")
                if args.out is not None:
                    say(f"the game did not end: nothing written to {args.out}")
                return 0
            if not answer:
                continue
            picked = pick(answer, len(actions))
            if picked == 0:
                say(f"pick 1..{len(actions)} or type an action")
                continue
            choice: Any = actions[picked - 1] if isinstance(picked, int) else picked
            try:
                perform(me, choice, None)
            except IllegalActionError as exc:
                say(f"not allowed: {exc}")
                continue
            break
    show("final position")
    scores = state.scores()
    winners = state.winners()
    say("final scores:")
    for seat, score in enumerate(scores):
        mark = " (you)" if seat == me else ""
        won = "  winner" if seat in winners else ""
        say(f"  seat {seat}{mark}: {score} {unit}{won}")
    if args.out is not None:
        write_record(args.out, game, seed, played, state)
        say(f"wrote the game to {args.out} (trickkit replay {args.out})")
    say(f"seed {seed}: play this deal again with --seed {seed}")
    return 0


def pick(answer: str, count: int) -> int | str:
    """What an answer at the prompt means: the number (1..``count``) of a listed action, ``0``
    for a number out of that range, or else the text itself, an action to apply.

    Only ASCII digits make a number: ``²`` or ``٣`` (which `str.isdigit` accepts, and `int`
    partly too) are texts, refused as actions like any other, and a number of thousands of
    digits is out of range, not an error.
    """
    if answer.isascii() and answer.isdigit():
        digits = answer.lstrip("0")
        if len(digits) > len(str(count)):  # more digits than any listed number: never converted
            return 0
        index = int(digits or "0")
        return index if 1 <= index <= count else 0
    return answer


def write_record(out: str, game: Any, seed: int, actions: list[str], state: Any) -> None:
    """Write the finished game to ``out`` as one JSON line, the record ``simulate --out`` writes.

    The file is replaced only once the line is written (`trickkit.lab.files.atomic_writer`).

    Raises:
        UsageError: the file cannot be written.
    """
    from trickkit.lab.files import atomic_writer
    from trickkit.lab.simulation import game_record, record_line

    def write() -> None:
        with atomic_writer(out) as sink:
            sink.write(record_line(game_record(game, seed, actions, state), os.path.dirname(os.path.abspath(out))))

    write_guard(out, write)
