"""``trickkit lint``: things in a ruleset that load fine but are probably mistakes.

Each finding is a located `trickkit.Problem` (file, line, column, YAML path, message):

- **unused**: a definition, variable or zone that no rule names (the first table zone, where
  every card starts, and the zones and variables steps use by default count as named);
- **never legal**: an action kind of a ``turns`` step (or a reaction) that was not legal once
  in ``games`` random games (seen by asking for the legal actions at every decision), or a
  call of an ``auction`` step that its ``allowed`` rule never let a seat make there;
- **duplicate card texts**: cards with one text that are not copies of one another (their
  attributes differ), so an action text cannot tell them apart;
- **unknown text literals**: a text that a definition or a parameter gives, compared with a
  card attribute (``card.suit == trump``), that no card has (a literal written right beside
  the attribute is already a load error);
- **trick resolution not total**: a ``winner`` rule that, on some small trick, names no
  winner (and the step has no ``no_winner_to``), names a play that is not in the trick, or
  fails. Tricks are enumerated from a small representative subset of the deck (per class
  of card, kind and suit: its lowest and highest rank and evenly spaced ones between, one
  more than the seat count; every card without a rank),
  every seat leading, up to `TRICK_LIMIT` tricks per step (a counted limit). A winner rule
  returns one play, so two winners cannot arise: ties inside ``highest``/``lowest`` go to
  the earliest play.

A ruleset that does not load is reported by its load problems (duplicate card texts may be
one of them), and lint stops there.
"""

from __future__ import annotations

import itertools
import os
import random
from collections.abc import Iterable
from typing import Any

import lark

from trickkit.errors import Problem, RulesetError, TrickkitError

__all__ = ["TRICK_LIMIT", "lint"]

TRICK_LIMIT = 20_000
"""Most tricks evaluated per ``tricks`` step when looking for tricks without a single winner."""

PLAY_ACTIONS = 50_000
"""Most actions lint's random games play in all (a counted limit): once they are spent, lint
plays no more games and counts what the finished ones reached."""

GAME_ACTIONS = 20_000
"""Most actions one of lint's random games may take (or the ruleset's ``max_actions``, if lower).
A game that has not ended then is a finding at ``game_over`` ("did not end") and lint plays no
more games: a ruleset that never ends is linted in seconds, not after ``max_actions`` actions for
each of its games."""


_NOT_DSL = {
    "name",
    "title",
    "description",
    "source",
    "text",
    "score_unit",
    "format",
    "extends",
    "winners",
    "players",
    "suit",
    "rank",
    "copies",
    "modes",
    "attributes",
    "type",
    "options_text",
}
"""Keys whose text values are not rules (names, prose, templates, deck layout)."""


def _text(token: object) -> str:
    """A text literal's value; a malformed escape (refused when the ruleset compiles) reads as written."""
    from trickkit.dsl.types import DSLCompileError, text_value

    try:
        return text_value(token)
    except DSLCompileError:
        return str(token)[1:-1]


def lint(
    name_or_path: str | os.PathLike[str],
    players: int | None = None,
    params: dict[str, Any] | None = None,
    *,
    games: int = 50,
    seed: int = 0,
    trick_limit: int = TRICK_LIMIT,
) -> list[Problem]:
    """Every finding of `trickkit lint` on a ruleset, in file order.

    Args:
        name_or_path: a ruleset path or a shipped game name.
        players: the seat count to load (default the ruleset's default).
        params: parameter values, as for `trickkit.load_game`.
        games: random games played to count how often each action kind is legal.
        seed: the seed of those games.
        trick_limit: most tricks evaluated per tricks step.

    Returns:
        One `trickkit.Problem` per finding (empty: nothing found); a ruleset that does not
        load gives its load problems.
    """
    from trickkit.engine.loader import load_game, read_document

    try:
        doc, loc = read_document(name_or_path)
        game = load_game(name_or_path, players=players, **dict(params or {}))
    except RulesetError as e:
        return list(e.problems)
    findings: list[Problem] = []
    findings += _unused(doc, loc)
    findings += _duplicate_texts(doc, loc, game)
    findings += _unknown_literals(doc, loc, game)
    snapshots, legal_counts, played, unfinished = _play(game, games, seed)
    if unfinished:
        findings.append(
            loc.problem(
                ("game_over",) if "game_over" in doc else (),
                f"a random game did not end within {unfinished} actions (game_over never held: a ruleset "
                f"that never ends?); lint stopped playing after {played} finished game"
                f"{'s' if played != 1 else ''} (trickkit.lab.lint.GAME_ACTIONS)",
            )
        )
    else:
        findings += _never_legal(doc, loc, game, legal_counts, played)
    findings += _tricks(doc, loc, game, snapshots, trick_limit)
    return sorted(findings, key=lambda p: (p.file, p.line, p.column, p.path))


# ---------------------------------------------------------------- DSL texts and the names they use
def _texts(node: Any, path: tuple[Any, ...] = ()) -> Iterable[tuple[tuple[Any, ...], str]]:
    """``(path, text)`` of every text in the document that may be a rule."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k in _NOT_DSL and path[:1] != ("definitions",) and not isinstance(v, dict):
                continue  # (a mapping under such a key may be an action kind named 'text', say)
            yield from _texts(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _texts(v, path + (i,))
    elif isinstance(node, str):
        yield path, node


def _names(text: str) -> set[str]:
    """The names a DSL text reads, writes or calls (attribute names excluded); empty if it is not DSL."""
    from trickkit.dsl.parser import DSLSyntaxError, parse

    tree = None
    for start in ("expr", "block"):
        try:
            tree = parse(text, start)
            break
        except DSLSyntaxError:
            continue
    if tree is None:
        return set()
    found = set()
    for sub in tree.iter_subtrees():
        if sub.data in ("name", "call", "target_name", "target_index", "call_stmt", "aggregate"):
            tok = next((c for c in sub.children if getattr(c, "type", None) == "NAME"), None)
            if tok is not None:
                found.add(str(tok))
        if sub.data in ("call", "call_stmt"):  # can('kind'): the kind is named in a text
            for c in sub.children:
                if isinstance(c, lark.Tree) and c.data == "str_lit":
                    found.add(_text(c.children[0]))
    return found


def _unused(doc: dict[str, Any], loc: Any) -> list[Problem]:
    uses: dict[str, int] = {}
    own: dict[tuple[Any, ...], set[str]] = {}
    for path, text in _texts(doc):
        names = _names(text) | {text.strip()}  # a bare zone or variable name (deal: {to: hand})
        own[path] = names
        for n in names:
            uses[n] = uses.get(n, 0) + 1
    # names steps use when their keys are left out
    for step in doc.get("round", []) or []:
        if not isinstance(step, dict):
            continue
        for kind, body in step.items():
            body = body if isinstance(body, dict) else {}
            if kind == "deal":
                for key, default in (("to", "hand"), ("rest", "stock")):
                    if key not in body:
                        uses[default] = uses.get(default, 0) + 1
            if kind == "tricks" and "hand" not in body:
                uses["hand"] = uses.get("hand", 0) + 1
    findings = []
    defs = doc.get("definitions") or {}
    for key in defs:
        name = str(key).split("(")[0].strip()
        self_uses = sum(1 for p, names in own.items() if p[:2] == ("definitions", key) and name in names)
        if uses.get(name, 0) - self_uses <= 0:
            findings.append(loc.problem(("definitions", key), f"definition {name!r} is never used", at_key=True))
    for section in [k for k in doc if str(k).endswith("_variables") and isinstance(doc[k], dict)]:
        for name in doc[section]:
            if uses.get(str(name), 0) == 0:
                findings.append(loc.problem((section, name), f"variable {name!r} is never used", at_key=True))
    zones = doc.get("zones") or {}
    first_table = next(
        (z for z, spec in zones.items() if isinstance(spec, dict) and spec.get("owner") == "table"), None
    )
    for name in zones:
        if name != first_table and uses.get(str(name), 0) == 0:
            findings.append(loc.problem(("zones", name), f"zone {name!r} is never used", at_key=True))
    return findings


# ---------------------------------------------------------------- cards
def _duplicate_texts(doc: dict[str, Any], loc: Any, game: Any) -> list[Problem]:
    deck = game.rules.deck
    findings = []
    for text, ids in deck.by_text.items():
        if len(ids) < 2:
            continue
        attrs = {name: table for name, table in deck.attrs.items() if name != "copy"}
        shapes = {tuple(table[c] for table in attrs.values()) for c in ids}
        if len(shapes) > 1:
            groups = [
                g
                for g, group in enumerate(doc.get("deck") or [])
                if isinstance(group, dict) and group.get("text") == text
            ]  # a group written with that very text, if any
            where = ("deck", groups[-1], "text") if groups else ("deck",)
            findings.append(
                loc.problem(
                    where,
                    f"{len(ids)} cards have the text {text!r} but are not copies of "
                    f"one card (their attributes differ): actions cannot tell them apart",
                )
            )
    return findings


def _compared_names(text: str, attributes: set[str]) -> list[tuple[str, str]]:
    """``(attribute, name)`` for each ``x.attribute == name`` (or ``!=``, ``in``) in a DSL text."""
    from trickkit.dsl.parser import DSLSyntaxError, parse

    try:
        tree = parse(text, "expr")
    except DSLSyntaxError:
        try:
            tree = parse(text, "block")
        except DSLSyntaxError:
            return []
    out = []
    for sub in tree.iter_subtrees():
        if sub.data not in ("compare", "contains", "not_contains"):
            continue
        sides = [c for c in sub.children if hasattr(c, "data")]
        if len(sides) != 2:
            continue
        for a, b in (sides, sides[::-1]):
            if not (isinstance(a, lark.Tree) and isinstance(b, lark.Tree)):
                continue
            if a.data == "attr" and str(a.children[-1]) in attributes and b.data == "name":
                out.append((str(a.children[-1]), str(b.children[0])))
    return out


def _literals(node: Any) -> set[str]:
    """Every text literal an expression may give (the branches of ``if``, ``??``)."""
    if not hasattr(node, "data"):
        return set()
    if node.data == "str_lit":
        return {_text(node.children[0])}
    if node.data in ("if_expr", "coalesce"):
        kids = [c for c in node.children if hasattr(c, "data")]
        return set().union(*(_literals(c) for c in (kids[1:] if node.data == "if_expr" else kids)))
    return set()


def _unknown_literals(doc: dict[str, Any], loc: Any, game: Any) -> list[Problem]:
    from trickkit.dsl.parser import DSLSyntaxError, parse

    deck = game.rules.deck
    values = {name: {v for v in table if isinstance(v, str)} for name, table in deck.face_attrs.items()}
    for name, table in deck.attrs.items():
        values.setdefault(name, set()).update(v for v in table if isinstance(v, str))
    attributes = {a for a, vs in values.items() if vs}
    compared: dict[str, set[str]] = {}
    for _, text in _texts(doc):
        for attr, name in _compared_names(text, attributes):
            compared.setdefault(name, set()).add(attr)
    findings = []
    defs = doc.get("definitions") or {}
    for key, body in defs.items():
        name = str(key).split("(")[0].strip()
        if name not in compared or not isinstance(body, str):
            continue
        try:
            lits = _literals(parse(body, "expr"))
        except DSLSyntaxError:
            continue
        for attr in sorted(compared[name]):
            for lit in sorted(lits - values[attr]):
                findings.append(
                    loc.problem(
                        ("definitions", key),
                        f"definition {name!r} may give {lit!r}, compared with the cards' {attr}, which no card has",
                    )
                )
    for name, spec in (doc.get("parameters") or {}).items():
        if name not in compared or not isinstance(spec, dict):
            continue
        given = [spec.get("default")] + list(spec.get("options", spec.get("choices", [])) or [])
        for attr in sorted(compared[name]):
            for lit in sorted({v for v in given if isinstance(v, str)} - values[attr] - {"none", ""}):
                findings.append(
                    loc.problem(
                        ("parameters", name),
                        f"parameter {name!r} may be {lit!r}, compared with the cards' {attr}, which no card has",
                    )
                )
    return findings


# ---------------------------------------------------------------- auctions
def _calls_never_legal(
    doc: dict[str, Any], loc: Any, game: Any, i: int, step: Any, counts: dict[tuple[Any, ...], int], games: int
) -> list[Problem]:
    """An auction with an ``allowed`` rule: the calls that rule never let a seat make in the random
    games (every call is legal at an auction's start without one)."""
    from trickkit.engine.spaces import all_auction_calls

    item = doc.get("round", [])[i] if i < len(doc.get("round", [])) else None
    if step.allowed is None or not isinstance(item, dict) or "auction" not in item:
        return []
    never = [
        str(c)
        for c in all_auction_calls(game, step)
        if counts.get((i, -2, step.template.replace("{call}", str(c))), 0) == 0
    ]
    if not never or all(counts.get(k, 0) == 0 for k in counts if k[:2] == (i, -2)):
        return []  # the auction itself was never reached: nothing to say about its calls
    shown = ", ".join(never[:8]) + (f" and {len(never) - 8} more" if len(never) > 8 else "")
    return [
        loc.problem(
            ("round", i, "auction", "allowed"),
            f"the auction's 'allowed' rule never let a seat make the call{'s' if len(never) > 1 else ''} "
            f"{shown} in {games} random games (a dead call, or one random play cannot reach)",
        )
    ]


# ---------------------------------------------------------------- random games
def _play(game: Any, games: int, seed: int) -> Any:
    """Random games: ``({tricks step index: [states at a trick's start]}, {(step, window, verb): times
    legal}, games played to their end or to an error, the action count a game did not end within or 0)``,
    at most `PLAY_ACTIONS` actions in all and `GAME_ACTIONS` per game."""
    snapshots: dict[int, list[Any]] = {}
    counts: dict[tuple[Any, ...], int] = {}
    rng = random.Random(f"trickkit-lint:{seed}")
    left = PLAY_ACTIONS
    played = 0
    limit = min(game.rules.max_actions, GAME_ACTIONS)
    for _g in range(games):
        try:
            state = game.new_initial_state(seed=rng.randrange(2**32))
            while not state.is_terminal():
                if len(state._history) >= limit:
                    return snapshots, counts, played, limit
                if left <= 0:  # out of actions: this game is left unfinished and uncounted
                    return snapshots, counts, played, 0
                left -= 1
                legal = state.legal_actions()
                step = game.rules.steps[state.step]
                if step.kind == "tricks" and not state.trick and len(snapshots.setdefault(state.step, [])) < 3:
                    snapshots[state.step].append(state.clone())
                for verb in {a.verb for a in legal}:
                    key = (state.step, state.window if step.kind == "turns" else -1, verb)
                    counts[key] = counts.get(key, 0) + 1
                if step.kind == "auction":  # every call offered (calls share a verb)
                    for a in legal:
                        key = (state.step, -2, a.text)
                        counts[key] = counts.get(key, 0) + 1
                state.apply_action(rng.choice(legal))
        except TrickkitError:
            pass  # `trickkit test` reports games that fail; lint looks at what the others reach
        played += 1
    return snapshots, counts, played, 0


def _never_legal(
    doc: dict[str, Any], loc: Any, game: Any, counts: dict[tuple[Any, ...], int], games: int
) -> list[Problem]:
    if games <= 0:
        return []
    findings = []
    for i, step in enumerate(game.rules.steps):
        if step.kind == "auction":
            findings += _calls_never_legal(doc, loc, game, i, step, counts, games)
        if step.kind != "turns":
            continue
        places: list[tuple[int, Any, tuple[str | int, ...]]] = [(-1, step.kinds, ("round", i, "turns", "actions"))]
        body = (doc["round"][i] or {}).get("turns", {}) if i < len(doc.get("round", [])) else {}
        window_names = list((body.get("reactions") or {}).keys())
        for w, window in enumerate(step.windows):
            name = window_names[w] if w < len(window_names) else getattr(window, "name", str(w))
            places.append((w, window.kinds, ("round", i, "turns", "reactions", name, "actions")))
        for w, kinds, prefix in places:
            for kind in kinds:
                if counts.get((i, w, kind.name), 0) == 0:
                    findings.append(
                        loc.problem(
                            prefix + (kind.name,),
                            f"action kind {kind.name!r} was never legal "
                            f"in {games} random games (a dead rule, or one random play "
                            f"cannot reach)",
                            at_key=True,
                        )
                    )
    return findings


# ---------------------------------------------------------------- trick resolution
def _representatives(game: Any) -> list[tuple[int, int]]:
    """``(card, face)`` pairs: per class of card (kind, suit) its lowest, middle and highest rank,
    and every face of a card without a rank (special cards), each text once."""
    deck = game.rules.deck
    rank, suit, kind = (deck.face_attrs.get(a) for a in ("rank", "suit", "kind"))
    classes: dict[tuple[Any, ...], list[int]] = {}
    chosen, seen = [], set()
    for f, text in enumerate(deck.face_texts):
        if text in seen:
            continue
        seen.add(text)
        r = rank[f] if rank else None
        if not isinstance(r, int):
            chosen.append(f)
        else:
            classes.setdefault((kind[f] if kind else None, suit[f] if suit else None), []).append(f)
    # enough ranks per class for a whole trick of one class: lowest, highest and evenly between
    k = max(3, game.num_players + 1)
    for faces in classes.values():
        faces.sort(key=lambda f: rank[f])
        picks = [faces[round(j * (len(faces) - 1) / (k - 1))] for j in range(k)]
        chosen += list(dict.fromkeys(picks))
    return [(deck.face_card[f], f) for f in chosen]


def _tricks(doc: dict[str, Any], loc: Any, game: Any, snapshots: dict[int, list[Any]], limit: int) -> list[Problem]:
    from trickkit.dsl.compiler import EVALUATION_BUDGET

    findings = []
    n = game.num_players
    cards = _representatives(game)
    texts = game.rules.deck.face_texts
    for i, states in sorted(snapshots.items()):
        step = game.rules.steps[i]
        path = ("round", i, "tricks", "winner")
        space = list(itertools.permutations(range(len(cards)), n)) if _count(len(cards), n) <= limit else None
        rng = random.Random(f"trickkit-lint-tricks:{i}")
        tried = 0
        problems: dict[str, str] = {}
        while tried < limit and len(problems) < 3:
            if space is not None:
                if tried >= len(space) * n:
                    break
                combo, leader = space[tried // n], tried % n
            else:
                combo, leader = tuple(rng.sample(range(len(cards)), n)), rng.randrange(n)
            tried += 1
            plays = [cards[k] for k in combo]
            if len({c for c, _ in plays}) < n:
                continue
            s = states[tried % len(states)]  # lint's own copies: only their trick is set
            s.trick = _trick_of(s, leader, plays)
            shown = " ".join(f"{texts[p[2]]}" for p in s.trick) + f" (seat {s.trick[0][0]} leads)"
            s.budget, s.memo = EVALUATION_BUDGET, None
            try:
                w = step.winner(s)
            except TrickkitError as e:
                problems.setdefault("fails", f"the winner rule fails on the trick {shown}: {e}")
                continue
            except Exception as e:  # a raw failure of generated code: report it, never crash lint
                problems.setdefault("fails", f"the winner rule fails on the trick {shown}: {type(e).__name__}: {e}")
                continue
            if w is None and step.no_winner_to is None:
                problems.setdefault("none", f"no winner for the trick {shown} (and the step has no 'no_winner_to')")
            elif w is not None and tuple(w) not in [tuple(p) for p in s.trick]:
                named = f"seat {w[0]}'s {texts[w[2]]}" if len(w) > 2 and 0 <= w[2] < len(texts) else repr(w)
                problems.setdefault("stray", f"the winner rule names a play that is not in the trick {shown}: {named}")
        for message in problems.values():
            findings.append(loc.problem(path, message + f" ({tried} tricks tried)"))
    return findings


def _trick_of(s: Any, leader: int, plays: list[Any]) -> list[Any]:
    """A complete trick of ``plays`` led by ``leader`` (or, if it sits out, the next playing seat):
    every seat in turn, or only the seats that play it when the step has ``sits_out``."""
    seating = s.seating
    if seating is None:
        n = len(plays)
        return [((leader + k) % n, c, f, k) for k, (c, f) in enumerate(plays)]
    following, size = seating
    seat = leader if leader in set(following) else following[leader]
    trick = []
    for k, (c, f) in enumerate(plays[:size]):
        trick.append((seat, c, f, k))
        seat = following[seat]
    return trick


def _count(k: int, n: int) -> int:
    out = 1
    for j in range(n):
        out *= max(k - j, 0)
    return out
