"""``trickkit play``: one seat played by a person in the terminal, the others by agents."""

from __future__ import annotations

import argparse
from typing import Any

from trickkit.cli.common import UsageError, check_seed, console, load_ruleset, parse_params
from trickkit.errors import IllegalActionError


def cmd_play(args: argparse.Namespace) -> int:
    import random
    import shutil

    from trickkit.engine.view import Narrator, clean, columns, fit, render
    from trickkit.lab.simulation import RandomAgent

    check_seed(args.seed)
    game = load_ruleset(args.game, args.players, parse_params(args.param))
    if not 0 <= args.seat < game.num_players:
        raise UsageError(f"--seat must be 0..{game.num_players - 1}, got {args.seat}")
    out = console()
    width = max(shutil.get_terminal_size((80, 24)).columns - 1, 20)

    def say(line: str = "") -> None:  # escaped, and broken into lines no wider than the terminal
        for part in fit(clean(line), width):
            out.print(part, markup=False, emoji=False)

    # The seed fixes every hidden card and every opponent move: it is shown only at the end.
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    state = game.new_initial_state(seed=seed)
    agent = RandomAgent(random.Random(f"trickkit:play:{seed}"))
    me = args.seat
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
        shown = state.history()[-1] if shown is None else shown  # your own move, as the engine spells it
        say(f"seat {seat}{' (you)' if seat == me else ''}: {shown}")
        for line in narrator.tell(before, state) if narrator and before is not None else ():
            say(line)

    say(f"{game.title}: you are seat {me} of {game.num_players}. Scores count {unit}; {best} wins.")
    while not state.is_terminal():
        seat = state.current_player()
        if seat != me:
            action = agent.step(state)
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
