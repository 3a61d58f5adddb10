"""Rule coverage: which parts of a ruleset fired over many games (``simulate --coverage``).

Counted over all games played:

* **action kinds**: at how many decisions each kind (``play``, ``bid``, ``pass``, or a
  turns step's own kinds) was legal, and how often it was chosen;
* **branches**: each branch of each ``if`` in the rules (statements: then / elif / else;
  expressions ``if c then a else b``: then / else), with the YAML location;
* **cards**: how often each card was played (a ``play`` action, or a card chosen in an
  action of a turns step), by its text as played (a card played in a mode shows it: ``card:mode``);
* **effects**: each rule block that ran (an ``effect`` step, ``after_trick``, an action's
  ``effect`` ...) and each effect statement in it (``move(...)``, ``score[seat] += 3``).

What never fired is listed: a dead rule, or one that random play does not reach. The
branch and effect counters are compiled into the generated code only for this
(``load_game(..., coverage=True)``, see `trickkit.dsl.coverage`); a game loaded normally
runs exactly the code it always did.

What a count means: the times the generated code passed there. A value the engine
memoises while a state holds still (a definition read by every card test) counts once per
decision; branches run only in the engine's look-ahead (a move tried and thrown away to
see whether it leads anywhere) are counted apart (``trial``) and do not count as fired; a
branch a parameter decides when the game is loaded is marked *decided at load*.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import attrs

from trickkit.dsl.coverage import Site
from trickkit.errors import TrickkitError
from trickkit.lab.files import atomic_writer
from trickkit.lab.simulation import RandomAgent, SimulationSummary, simulate

__all__ = ["CoverageReport", "SiteCount", "simulate_with_coverage", "site_location"]


@attrs.frozen
class SiteCount:
    """A coverage site and its counts.

    Attributes:
        site: the `trickkit.dsl.coverage.Site`.
        location: ``file:line:column: $.path`` of the branch or statement itself (as close
            as the file allows).
        count: times it ran in games as played.
        trial: times it ran only in look-ahead trials.
    """

    site: Site
    location: str
    count: int
    trial: int

    @property
    def fired(self) -> bool:
        """True if it ran in a game as played (or a parameter fixes it as always taken)."""
        return self.count > 0 or self.site.decided == "always"

    def describe(self) -> str:
        """One line: where, what, and the condition or statement as written."""
        s = self.site
        what = {
            "if": f"if ({s.label})",
            "if-expression": f"if-expression ({s.label})",
            "effect": f"effect {s.label}",
            "rule": "rule",
        }.get(s.kind, s.kind)
        text = f": {s.text}" if s.text else ""
        return f"{self.location}: {what}{text}"


@attrs.frozen
class CoverageReport:
    """Coverage counts over a run (see the module's description).

    Attributes:
        game: the ruleset's name.
        games: games played.
        decisions: decisions made (actions applied).
        action_kinds: ``(kind, decisions where it was legal, times chosen)`` for every declared kind.
        cards: ``(card text as played, times played)`` for every face of the deck; empty when
            the game plays no cards by action.
        sites: every branch, effect and rule site with its counts.
    """

    game: str
    games: int
    decisions: int
    action_kinds: tuple[Any, ...]
    cards: tuple[Any, ...]
    sites: tuple[Any, ...]

    def never_fired(self) -> list[str]:
        """What never fired, one line each: action kinds never legal or never chosen,
        cards never played, branches never taken and effects never run."""
        out = []
        for kind, legal, chosen in self.action_kinds:
            if not legal:
                out.append(f"action kind {kind!r}: never legal")
            elif not chosen:
                out.append(f"action kind {kind!r}: legal at {legal} decisions, never chosen")
        for s in self.sites:
            if not s.fired:
                note = {"never": " (decided when the game is loaded: its parameters rule it out)"}.get(
                    s.site.decided, ""
                )
                if not note and s.trial:
                    note = f" (only in look-ahead trials: {s.trial})"
                if not note and s.site.where.endswith((".reason", ".why")):
                    note = " (an explanation: it runs for refusal messages and transcripts, not in play)"
                out.append(f"{s.describe()}{note}")
        unplayed = [card for card, n in self.cards if not n]
        if unplayed:
            out.append(f"cards never played ({len(unplayed)}): {', '.join(unplayed)}")
        return out

    def to_tables(self) -> list[Any]:
        """The report as ``rich`` tables: action kinds, branches and effects, cards."""
        from rich.table import Table
        from rich.text import Text

        kinds = Table(title=Text(f"{self.game}: action kinds over {self.games} games ({self.decisions} decisions)"))
        kinds.add_column("action kind")
        kinds.add_column("legal at", justify="right")
        kinds.add_column("chosen", justify="right")
        for kind, legal, chosen in self.action_kinds:
            kinds.add_row(Text(kind), str(legal), str(chosen))
        sites = Table(title=Text(f"{self.game}: branches and effects"))
        sites.add_column("where")
        sites.add_column("what")
        sites.add_column("count", justify="right")
        for s in self.sites:
            what = s.site.label if s.site.kind != "if-expression" else f"if-expr {s.site.label}"
            if s.site.kind == "if":
                what = f"if {s.site.label}"
            if s.site.text:
                what += f": {s.site.text}"
            count = str(s.count) + (f" (+{s.trial} trial)" if s.trial else "")
            if s.site.decided:
                count += f" [load: {s.site.decided}]"
            sites.add_row(Text(s.location), Text(what), count)
        tables = [kinds, sites]
        if self.cards:
            per_row = 4  # card and count pairs side by side: a deck is long
            cards = Table(title=Text(f"{self.game}: cards played"))
            for _ in range(per_row):
                cards.add_column("card")
                cards.add_column("played", justify="right")
            items = list(self.cards)
            for start in range(0, len(items), per_row):
                row: list[Any] = []
                for card, n in items[start : start + per_row]:
                    row += [Text(card), str(n)]
                cards.add_row(*row, *[""] * (2 * per_row - len(row)))
            tables.append(cards)
        return tables

    def to_text(self) -> str:
        """The tables and the never-fired list as plain text."""
        import io

        from rich.console import Console

        console = Console(width=140, record=True, color_system=None, file=io.StringIO())
        for table in self.to_tables():
            console.print(table)
        never = self.never_fired()
        console.print(f"never fired ({len(never)}):" if never else "everything fired at least once", markup=False)
        for line in never:
            console.print(f"  {line}", markup=False, highlight=False)
        return console.export_text()


# ------------------------------------------------------------------ locations


def _rule_file(file: str) -> str | None:
    if os.path.isfile(file):
        return file
    from trickkit.engine.loader import rulesets_folder  # a shipped ruleset is named by its file name only

    shipped = rulesets_folder().joinpath(os.path.basename(file))
    return os.fspath(shipped) if isinstance(shipped, os.PathLike) and os.path.isfile(shipped) else None


def site_location(site: Site, rule_text: str = "") -> str:
    """``file:line:column: $.path`` of a site inside its rule: the rule's own position moved
    to the site's line and column where the file allows (a block scalar, or a rule on one
    line), else the rule's position with the place inside it said in words."""
    from trickkit.rules.textpos import block_position

    at, _, path = site.where.partition(": ")
    file, _, rest = at.rpartition(":")
    file, _, line = file.rpartition(":")
    try:
        line_no, col_no = int(line), int(rest)
    except ValueError:
        return site.where
    if not site.line:
        return site.where
    real = _rule_file(file)
    if real is not None and rule_text:
        pos = block_position(real, line_no, col_no, rule_text, site.line, site.column)
        if pos is not None:
            return f"{file}:{pos[0]}:{pos[1]}: {path}"
        if site.line == 1 and "\n" not in rule_text:  # a rule on its key's line: plain or quoted
            try:
                with open(real, encoding="utf-8") as f:
                    source = f.read().splitlines()[line_no - 1]
            except (OSError, UnicodeDecodeError, IndexError):
                source = ""
            quote = 1 if source[col_no - 1 : col_no] in ("'", '"') else 0
            return f"{file}:{line_no}:{col_no + quote + site.column - 1}: {path}"
    if site.line == 1 and site.column == 1:
        return site.where
    return f"{site.where} (line {site.line}, column {site.column} of the rule)"


# ------------------------------------------------------------------ counting a run


def _declared_kinds(game: Any) -> list[str]:
    """Every action kind the rules can offer, in the order of the steps."""
    kinds: list[str] = []
    for step in getattr(getattr(game, "rules", None), "steps", ()):
        names: list[str] = []
        if step.kind == "tricks":
            names = ["play"]
        elif step.kind == "bid":
            names = ["bid"]
        elif step.kind == "auction":  # the verbs of its actions (a call of `{call}` is its own verb)
            names = [step.template.split(" ", 1)[0], step.pass_text.split(" ", 1)[0]]
            names += ["double", "redouble"] if step.double else []
            names = [n for n in names if "{" not in n]
        elif step.kind == "turns":
            names = [k.name for k in step.kinds]
            for window in step.windows:
                names += [k.name for k in window.kinds] + ["pass"]
        kinds += [n for n in names if n not in kinds]
    return kinds


class _Tally:
    """Action kinds legal and chosen, and cards played, counted by the agents as they decide."""

    def __init__(self, game: Any) -> None:
        self.game = game
        self.legal: dict[str, int] = dict.fromkeys(_declared_kinds(game), 0)
        self.chosen: dict[str, int] = dict.fromkeys(self.legal, 0)
        self.cards: dict[str, int] = {}
        self.decisions = 0
        rules = getattr(game, "rules", None)
        deck = getattr(rules, "deck", None)
        self.face_texts: Any = getattr(deck, "face_texts", None)  # None: a game without a deck (a test double)
        self.card_texts = getattr(deck, "texts", None)
        self.card_choices: dict[str, tuple[Any, ...]] = {}  # kind -> indices of its card choices
        for step in getattr(rules, "steps", ()):
            for kind in getattr(step, "kinds", ()) + tuple(k for w in getattr(step, "windows", ()) for k in w.kinds):
                self.card_choices[kind.name] = tuple(i for i, t in enumerate(kind.choice_types) if t == "card")
        plays_cards = any(getattr(s, "kind", "") == "tricks" for s in getattr(rules, "steps", ())) or any(
            self.card_choices.values()
        )
        if plays_cards and self.face_texts is not None:
            self.cards = dict.fromkeys(self.face_texts, 0)

    def add(self, legal: dict[str, Any], chosen: dict[str, Any], cards: dict[str, Any], decisions: int) -> None:
        """Add the counts of another tally (a worker process's)."""
        for mine, theirs in ((self.legal, legal), (self.chosen, chosen), (self.cards, cards)):
            for key, n in theirs.items():
                mine[key] = mine.get(key, 0) + n
        self.decisions += decisions

    def record(self, legal: Sequence[Any], chosen: Any) -> None:
        self.decisions += 1
        for verb in {getattr(a, "verb", str(a).split(" ", 1)[0]) for a in legal}:
            self.legal[verb] = self.legal.get(verb, 0) + 1
        action = next((a for a in legal if a == chosen), chosen)
        verb = getattr(action, "verb", str(action).split(" ", 1)[0])
        self.chosen[verb] = self.chosen.get(verb, 0) + 1
        if not self.cards:
            return
        if verb == "play" and getattr(action, "face", -1) >= 0:
            text = self.face_texts[action.face]
            self.cards[text] = self.cards.get(text, 0) + 1
        for i in self.card_choices.get(verb, ()):
            card = action.choices[i] if i < len(getattr(action, "choices", ())) else None
            if isinstance(card, int) and self.card_texts is not None:
                text = self.card_texts[card]
                self.cards[text] = self.cards.get(text, 0) + 1


class _CountingAgent:
    """Wraps a seat's agent: records what was legal and what it chose, and changes nothing
    (the legal actions are the state's cached list, so the agent draws exactly as alone)."""

    def __init__(self, inner: Any, tally: _Tally) -> None:
        self.inner, self.tally = inner, tally

    def step(self, state: Any) -> Any:
        legal = state.legal_actions() if not state.is_terminal() else []
        chosen = self.inner.step(state)
        self.tally.record(legal, chosen)
        return chosen


def _counting_factories(agents: Sequence[Any] | None, players: int, tally: _Tally) -> list[Callable[..., Any]]:
    def wrap(spec: Any) -> Callable[..., Any]:
        def factory(rng: Any) -> Any:
            if spec is None:
                inner = RandomAgent(rng)
            elif isinstance(spec, type) or not hasattr(spec, "step"):
                inner = spec(rng)
            else:
                inner = spec
            return _CountingAgent(inner, tally)

        return factory

    specs = [None] * players if agents is None else list(agents)
    return [wrap(s) for s in specs]


def _document_texts(game: Any) -> dict[str, str]:
    """``$.path`` -> text of every text in the game's (merged) ruleset document: the texts of
    definitions, which the code generator sees only as parsed trees."""
    from trickkit.engine.loader import read_document
    from trickkit.rules.source import format_path

    try:
        doc, _ = read_document(game.path)
    except Exception:  # a game not loaded from a ruleset (a test double): no texts
        return {}
    texts: dict[str, str] = {}
    stack: list[tuple[tuple[str | int, ...], Any]] = [((), doc)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, str):
            texts[format_path(path)] = node
        elif isinstance(node, dict):
            stack.extend((path + (k,), v) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((path + (i,), v) for i, v in enumerate(node))
    return texts


def _snippet(text: str, site: Site) -> str:
    """The condition a branch site tests, cut from its rule's text: from the site's position
    to the ``then`` (an expression) or ``{`` (a statement) that ends it."""
    lines = text.splitlines()
    if not 1 <= site.line <= len(lines):
        return ""
    rest = " ".join((lines[site.line - 1][site.column - 1 :] + " " + " ".join(lines[site.line :])).split())
    for end in (" then ",) if site.kind == "if-expression" else (" {", "{"):
        if end in rest:
            return rest[: rest.index(end)].strip()[:120]
    return ""


def report_from(game: Any, tally: _Tally, games: int) -> CoverageReport:
    """The `CoverageReport` of the counts in ``game.coverage`` and ``tally``."""
    sites = game.coverage
    counted = []
    texts = None
    for k, site in enumerate(sites.sites if sites is not None else ()):
        rule = sites.rule_texts.get(site.where, "")
        if not rule:  # a definition: its text is in the document
            texts = _document_texts(game) if texts is None else texts
            rule = texts.get(site.where.partition(": ")[2], "")
            if rule and not site.text and site.kind in ("if", "if-expression"):
                site = attrs.evolve(site, text=_snippet(rule, site))
        counted.append(SiteCount(site, site_location(site, rule), sites.counts[k], sites.trial_counts[k]))
    counted.sort(key=lambda s: _order(s.site))
    return CoverageReport(
        game=game.name,
        games=games,
        decisions=tally.decisions,
        action_kinds=tuple((k, tally.legal[k], tally.chosen.get(k, 0)) for k in tally.legal),
        cards=tuple(tally.cards.items()),
        sites=tuple(counted),
    )


def _order(site: Site) -> tuple[Any, ...]:
    at = site.where.split(": ", 1)[0]
    parts = at.rsplit(":", 2)
    label = site.label
    arm = 0 if label == "then" else int(label[5:]) if label.startswith("elif ") else 10**6 if label == "else" else 0
    try:
        return parts[0], int(parts[1]), int(parts[2]), site.line, site.column, site.kind != "rule", arm, label
    except (IndexError, ValueError):
        return at, 0, 0, site.line, site.column, site.kind != "rule", arm, label


def simulate_with_coverage(
    game: Any,
    games: int,
    seed: int = 0,
    agents: Sequence[Any] | None = None,
    out: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    on_record: Callable[[dict[str, Any]], None] | None = None,
    jobs: int = 1,
) -> tuple[SimulationSummary, CoverageReport]:
    """`trickkit.simulate` with rule coverage counted: the same games as without.

    Args:
        game: a Game loaded with ``coverage=True`` (its counters are reset first).
        games: number of games.
        seed: master seed, as for `trickkit.simulate` (the same games as without coverage).
        out: a JSONL file of the games, as for `trickkit.simulate`.
        progress: called as ``progress(done, total)``, as for `trickkit.simulate`.
        agents: per-seat agents or factories, as for `trickkit.simulate`; None = random.
        on_record: passed to `trickkit.simulate` (each game's record, as it ends).
        jobs: worker processes; each loads the game again with its own counters, and their
            counts are added up here: the same summary and counts as ``jobs=1``. Agents must
            then be picklable.

    Returns:
        ``(summary, report)``.

    Raises:
        TrickkitError: ``game`` was not loaded with ``coverage=True``; or as `trickkit.simulate`.
    """
    if getattr(game, "coverage", None) is None:
        raise TrickkitError("coverage needs a game loaded with load_game(..., coverage=True)")
    if jobs < 1:
        raise TrickkitError(f"jobs must be >= 1, got {jobs}")
    if games < 0:
        raise TrickkitError(f"games must be >= 0, got {games}")
    game.coverage.reset()
    tally = _Tally(game)
    if jobs > 1 and games > 1:
        summary = _parallel(game, games, seed, agents, jobs, out, progress, on_record, tally)
    else:
        factories = _counting_factories(agents, game.num_players, tally)
        summary = simulate(
            game, games, seed=seed, agents=factories, jobs=1, out=out, progress=progress, on_record=on_record
        )
    return summary, report_from(game, tally, summary.games)


# ------------------------------------------------------------------ in worker processes

_WORKER: dict[str, Any] = {}


def _worker_init(spec: tuple[Any, ...], agents: Sequence[Any] | None, parent: int) -> None:
    from trickkit.engine.loader import load_game
    from trickkit.lab.workers import _exit_with_parent

    _exit_with_parent(parent)
    _WORKER["game"] = load_game(spec[1], coverage=True, **spec[2])
    _WORKER["agents"] = agents


def _worker_chunk(seed: int, start: int, stop: int, keep_actions: bool) -> tuple[Any, ...]:
    """Games ``start..stop-1`` with their counts: ``(records, sites, counts, trials, legal,
    chosen, cards, decisions)``."""
    from trickkit.lab.simulation import _compact, play_game

    game = _WORKER["game"]
    game.coverage.reset()
    tally = _Tally(game)
    factories = _counting_factories(_WORKER["agents"], game.num_players, tally)
    records = [_compact(play_game(game, seed, i, factories), keep_actions) for i in range(start, stop)]
    sites = game.coverage
    return (
        records,
        len(sites.sites),
        list(sites.counts),
        list(sites.trial_counts),
        tally.legal,
        tally.chosen,
        tally.cards,
        tally.decisions,
    )


def _parallel(
    game: Any, games: int, seed: int, agents: Any, jobs: int, out: Any, progress: Any, on_record: Any, tally: _Tally
) -> SimulationSummary:
    """`simulate_with_coverage` in ``jobs`` worker processes: each loads the game with its own
    counters; their counts are added up here, in game order (the same totals as one process)."""

    from trickkit.lab.simulation import _folder, _Totals, fold_records, summarise
    from trickkit.lab.workers import pooled_chunks

    kwargs = dict(game.params)
    kwargs["players"] = game.num_players
    spec = ("load", game.path, kwargs)
    keep_actions = out is not None
    totals = _Totals(game.num_players, getattr(game, "teams", ()))

    def records() -> Iterator[Any]:  # each chunk's counts are added here, its records handed on in game order
        for chunk in pooled_chunks(
            games,
            jobs,
            _worker_init,
            (spec, agents, os.getpid()),
            lambda start, stop: (_worker_chunk, seed, start, stop, keep_actions),
        ):
            chunk_records, n_sites, counts, trials, legal, chosen, cards, decisions = chunk
            if n_sites != len(game.coverage.sites):  # cannot happen: the same rules compile alike
                raise TrickkitError("a worker compiled other coverage sites than this process")
            game.coverage.add(counts, trials)
            tally.add(legal, chosen, cards, decisions)
            yield from chunk_records

    # the records go to a temporary file that replaces ``out`` once every game is written: an
    # error half-way leaves an earlier file there untouched
    with atomic_writer(out) if out is not None else contextlib.nullcontext(None) as sink:
        started = time.perf_counter()
        fold_records(records(), totals, games, on_record, sink, progress, _folder(out))
    return summarise(game, totals, time.perf_counter() - started)
