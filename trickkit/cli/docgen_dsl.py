"""The DSL reference page: every built-in of the registry, with its signature, meaning and a checked example."""

from __future__ import annotations

__all__ = ["dsl_examples", "dsl_reference"]

from trickkit.cli.docgen_common import GENERATED_NOTE as _GENERATED
from trickkit.cli.docgen_common import code_span as _code

# ------------------------------------------------------------------ DSL

#: Grammar constructs: (section, construct, meaning, example, start rule).
_CONSTRUCTS: list[tuple[str, str, str, str, str]] = [
    ("Literals", "integer", "a whole number (no floats in the DSL)", "42", "expr"),
    ("Literals", "string", "text in quotes; `\\'` `\\\"` `\\\\` write a quote, a backslash", "'it\\'s'", "expr"),
    ("Literals", "`true`, `false`", "booleans", "true", "expr"),
    ("Literals", "`null`", "no value (e.g. an aggregate over nothing)", "null", "expr"),
    ("Literals", "list", "a list of expressions", "[1, 2, 3]", "expr"),
    ("Names and access", "name", "a parameter, variable, zone, definition or built-in name", "hand_size", "expr"),
    ("Names and access", "`x.attr`", "an attribute of a card or play", "card.rank", "expr"),
    ("Names and access", "`x[i]`", "list item, or a seat's value of a seat variable or zone", "heads[seat]", "expr"),
    (
        "Names and access",
        "`f(a, b)`",
        "a call of a built-in function, an engine function or a definition with parameters (below)",
        "max(0, score[seat])",
        "expr",
    ),
    (
        "Names and access",
        "`x[-1]`",
        "a negative index counts from the end of a list or zone: `row[0]` is the first "
        "card (left end of a row, bottom of a pile), `row[-1]` the last (right end of a row, top of a pile); "
        "null when out of range",
        "rows[0][-1].rank",
        "expr",
    ),
    ("Operators", "`-x`", "negation", "-bid[seat]", "expr"),
    ("Operators", "`*` `//` `%`", "multiply, floor divide, remainder", "round * 10 // 2 % 7", "expr"),
    ("Operators", "`+` `-`", "add, subtract; `+` also joins strings, and lists", "'a' + str(round)", "expr"),
    ("Operators", "list `+`", "two lists joined: `[1, 2] + [3]` is `[1, 2, 3]`", "hand[0] + hand[1]", "expr"),
    ("Operators", "`==` `!=` `<` `<=` `>` `>=`", "comparison", "trick[1].rank < trick[0].rank", "expr"),
    ("Operators", "`in`, `not in`", "membership in a list", "card.kind not in ['escape', 'joker']", "expr"),
    ("Operators", "`not`", "logical not", "not (len(trick) == 0)", "expr"),
    ("Operators", "`and`", "logical and (short-circuit)", "len(trick) > 0 and card.suit == trick[0].suit", "expr"),
    ("Operators", "`or`", "logical or (short-circuit)", "len(trick) == 0 or card.heads != 5", "expr"),
    (
        "Operators",
        "`a ?? b`",
        "`a`, or `b` when `a` is null",
        "first(p.suit for p in trick if p.kind == 'suit') ?? 'none'",
        "expr",
    ),
    (
        "Operators",
        "`if c then a else b`",
        "conditional expression (lowest precedence; the else is required)",
        "if bid[seat] == 0 then 10 * round else 20 * bid[seat]",
        "expr",
    ),
    (
        "Aggregates",
        "`name(E for x in C if P by K)`",
        "iterate `x` over the list `C`, keep items where `P` holds (optional), compute `E`; "
        "`by K` is the key of `highest`/`lowest`",
        "sum(p.heads for p in trick if p.order >= 2)",
        "expr",
    ),
    ("Statements", "`name = E`", "assign a table variable", "leader = winner.seat", "block"),
    ("Statements", "`name[s] = E`", "assign one seat's value of a seat variable", "bid[seat] = 0", "block"),
    (
        "Statements",
        "`xs[i] = E`, `xs[s][i] = E`",
        "assign one item of a list held by a table variable (or by a seat's or team's value); "
        "`+=`, `-=` too; an index outside the list is a located error",
        "tally[2] = 0; counts[seat][1] += 1",
        "block",
    ),
    ("Statements", "`+=`, `-=`", "add to / subtract from a variable", "tricks[winner.seat] += 1", "block"),
    (
        "Statements",
        "`let name = E`",
        "a local name for the rest of the block it is written in (and the blocks "
        "inside it), typed by `E`; assign it with `name = E`, `+=`, `-=` (see Local names below)",
        "let total = sum(c.points for c in hand[seat]); score[seat] += total",
        "block",
    ),
    (
        "Statements",
        "`for x in C { ... }`",
        "run the statements once per item of `C`",
        "for s in seats { score[s] += tricks[s] }",
        "block",
    ),
    (
        "Statements",
        "`if c { } elif c { } else { }`",
        "run the first branch whose condition holds",
        "if bid[s] == tricks[s] { score[s] += 20 } elif bid[s] == 0 { score[s] -= 10 } else { score[s] -= 10 }",
        "block",
    ),
    (
        "Statements",
        "`effect(args)`",
        "an effect statement: move cards, end the turn or the game (see Effects below)",
        "if len(hand[current_player]) == 0 { end_turn() }",
        "block",
    ),
    (
        "Statements",
        "`effect(args, key=E)`",
        "an effect with a named argument (only those listed under Effects)",
        "end_turn(next=right_of(turn_player))",
        "block",
    ),
]

#: Zone families and ordered zones: (construct, meaning, example, start rule).
_ZONE_CONSTRUCTS: list[tuple[str, str, str, str]] = [
    (
        "`piles[i]`",
        "member `i` of a zone family (a table zone declared with `count:`), counted from 0; "
        "null when `i` is out of range",
        "len(piles[0]) > 0",
        "expr",
    ),
    (
        "`for p in piles`",
        "a zone family is a list of zones: iterate over it or aggregate over it",
        "all(len(p) == 0 for p in piles)",
        "expr",
    ),
    (
        "`len(piles)`",
        "the number of zones in the family (fixed at load, e.g. `count: num_players + 2`)",
        "range(1, len(piles) + 1)",
        "expr",
    ),
    ("`row[0]`", "the first card of a zone: the left end of a row, the bottom of a pile", "rows[0][0].rank", "expr"),
    (
        "`row[-1]`",
        "the last card of a zone: the right end of a row, the top of a pile (`move` puts cards there)",
        "piles[1][-1].rank",
        "expr",
    ),
    (
        "`card.copy`",
        "which copy of an identical card this is, from 0 (tells identical sets apart)",
        "count(c for c in piles[0] if c.copy == 0)",
        "expr",
    ),
    (
        "`card.text`",
        "the card's canonical text, as actions name it (`C10`, `escape`); `str(card)` and "
        "`'...' + card` give the same text. Cards may share a text only as identical copies: two different "
        "cards with one text are a load error, since `play C10` would be ambiguous",
        "card.text == 'C10'",
        "expr",
    ),
    (
        "`card_named('C2')`",
        "the one card with that text, checked at load: an unknown text is an error with a "
        "suggestion, and a text several copies share is refused (test `card.text` instead)",
        "seat_holding(hand, card_named('C2'))",
        "expr",
    ),
]

#: Definitions with parameters: (construct, meaning, example, start rule).
_DEFINITION_CONSTRUCTS: list[tuple[str, str, str, str]] = [
    ("`name: E`", "a named expression, compiled inline wherever `name` is used", "lead.rank", "expr"),
    (
        "`name(a, b): E`",
        "a named expression with parameters; a call `name(x, y)` compiles `E` with `a` and `b` bound to the arguments",
        "placeable(3) and placeable(4)",
        "expr",
    ),
]


def dsl_examples() -> list[tuple[str, str]]:
    """Every example shown by `dsl_reference`, as ``(text, start rule)`` (``expr`` or ``block``)."""
    from trickkit.dsl.builtins import AGGREGATES, EFFECTS, ENGINE_FUNCTIONS, FUNCTIONS, SEAT_FUNCTIONS, STATE_NAMES

    out = [(example, start) for _, _, _, example, start in _CONSTRUCTS]
    out += [(example, start) for _, _, example, start in _ZONE_CONSTRUCTS]
    out += [(example, start) for _, _, example, start in _DEFINITION_CONSTRUCTS]
    out += [(e.example, "expr") for e in STATE_NAMES.values()]
    out += [(b.example, "expr") for b in FUNCTIONS.values()]
    out += [(example, "expr") for _, _, example in SEAT_FUNCTIONS.values()]
    out += [(a.example, "expr") for a in AGGREGATES.values()]
    out += [(e.example, "block") for e in EFFECTS.values()]
    out += [(example, "expr") for _, _, example in ENGINE_FUNCTIONS.values()]
    return out


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def dsl_reference() -> str:
    """Markdown reference of the rules DSL: grammar constructs and every built-in, with examples."""
    from trickkit.dsl.builtins import (
        AGGREGATES,
        EFFECTS,
        ENGINE_FUNCTIONS,
        FUNCTIONS,
        KEYWORDS,
        SEAT_FUNCTIONS,
        STATE_NAMES,
    )
    from trickkit.dsl.compiler import PLAY_FIELDS

    lines = [
        "# DSL reference",
        "",
        _GENERATED.strip(),
        "",
        "Rulesets write card tests, trick winners, scores and effects in a small language. "
        "An **expression** (e.g. `winner`, `must_play_if_able`, `score`, `game_over`) computes a value; "
        "a **block** (`after_trick`, an `effect` step, an action kind's `effect`) is a list of statements. "
        "There are no loops other "
        "than aggregates and `for` over finite lists, so evaluation always ends. "
        "This page is generated from the grammar constructs and the built-in registry "
        "(`trickkit/dsl/builtins.py`); every example on it is parsed by the test suite.",
        "",
        "## Types",
        "",
        "Every expression has a type, checked when the ruleset loads: `int`, `bool`, `str` (text), `card`, "
        "`play` (a card in a trick), `zone`, a list of one of these, or `any` (known only at play time); "
        "any value may be `null`. A rule must give the type its place needs: a bool for `allowed`, `until`, "
        "`must_play_if_able`, `always_allowed`, `game_over`, `lookahead` and `public_when`; an int (a seat) "
        "for `leader`, `first` and `next_leader`; a play for `winner`; an int for `score` and `count`; "
        "a list of different numbers for bid `options`. A variable keeps the type of its `initial` value, "
        "or of its declared `type:` (`int`, `bool`, `str`, `card`, `play`, `seat`, `list`); it can be set to "
        "null only when its initial value is null. A text compared with a card attribute "
        "(`card.suit == 'hearts'`) must be a value some card has. Each of these mistakes is a located load "
        "error; `trickkit compile GAME` shows the Python the checked rules become.",
        "",
    ]
    section = None
    for sect, construct, meaning, example, _start in _CONSTRUCTS:
        if sect != section:
            section = sect
            lines += ["", f"## {sect}", ""]
            if sect == "Operators":
                lines += ["From tightest to loosest binding; parentheses group.", ""]
            if sect == "Statements":
                lines += [
                    "Statements appear in blocks (`after_trick`, `effect` steps, the `effect` of an "
                    "action kind), one per line (a trailing `;` is allowed).",
                    "",
                ]
            lines += ["| construct | meaning | example |", "| --- | --- | --- |"]
        shown = construct
        lines.append(f"| {_cell(shown)} | {_cell(meaning)} | {_cell(_code(example))} |")
    lines += [
        "",
        "## Local names",
        "",
        "`let name = E` in a block names a value for the statements after it, up to the end of the "
        "block that declares it (an effect, or the `{ }` of a `for` or an `if` branch); the blocks inside "
        "it see it too. Each run of the rule, and each pass of a `for`, starts afresh. Rules:",
        "",
        "- its type is the type of `E` (`let best = null` takes any value later); an assignment must "
        "keep that type, and `+=`/`-=` need a number;",
        "- it may not reuse a name that is visible where it is declared: a parameter, variable, zone, "
        "definition, built-in name or function, the rule's context (`card`, a choice), a loop variable "
        "or another local; a `for` or aggregate variable may not reuse a local's name either. One name "
        "has one meaning in a block, so nothing is shadowed;",
        "- sibling blocks (the two branches of an `if`) may each declare the same name; after its block "
        "ends a local is unknown, and the error says where it was declared;",
        "- the rule's context and loop variables cannot be assigned; definitions never see locals.",
        "",
        "Each misuse is a located load error. In generated code a local is a name the generator makes "
        "(`v3`), never the name written in the ruleset.",
        "",
    ]
    lines += [
        "",
        "## Zone families and ordered zones",
        "",
        "A zone is an ordered list of cards. In a pile the **last** card is the top; in a row the first "
        "card is the left end and the last the right end. A table zone declared with `count:` "
        "(e.g. `piles: {owner: table, count: num_players + 2}`) is a **zone family**: a fixed number "
        "of numbered zones that rules index like a list.",
        "",
        "| construct | meaning | example |",
        "| --- | --- | --- |",
    ]
    for construct, meaning, example, _start in _ZONE_CONSTRUCTS:
        lines.append(f"| {_cell(construct)} | {_cell(meaning)} | {_cell(_code(example))} |")
    lines += [
        "",
        "## Definitions",
        "",
        "`definitions:` in a ruleset names expressions. A key may declare parameters, e.g. "
        "`placeable(v)`; the parameters are names inside the expression, and may not be named like "
        "another definition (that one would be hidden inside it: a load error). A definition may not refer to "
        "itself (directly or through others) or reuse a built-in name, so every call can be compiled "
        "inline and evaluation stays bounded.",
        "",
        "| construct | meaning | example |",
        "| --- | --- | --- |",
    ]
    for construct, meaning, example, _start in _DEFINITION_CONSTRUCTS:
        lines.append(f"| {_cell(construct)} | {_cell(meaning)} | {_cell(_code(example))} |")
    lines += [
        "",
        "## Built-in aggregates",
        "",
        "Written `name(E for x in C if P by K)`; `if P` filters the items, `by K` is only for `highest` and `lowest`.",
        "",
        "| aggregate | result | meaning | example |",
        "| --- | --- | --- | --- |",
    ]
    for a in AGGREGATES.values():
        by = " (needs `by K`)" if a.uses_by else ""
        lines.append(f"| `{a.name}` | {a.result} | {_cell(a.doc)}{by} | {_cell(_code(a.example))} |")
    lines += [
        "",
        "## Functions",
        "",
        "| function | parameters → result | meaning | example |",
        "| --- | --- | --- | --- |",
    ]
    for b in FUNCTIONS.values():
        result = {"arg0": "the argument's type", "concat": "list"}.get(b.result, b.result)
        sig = f"({', '.join(b.params)}) → {result}"
        lines.append(f"| `{b.name}` | {_cell(sig)} | {_cell(b.doc)} | {_cell(_code(b.example))} |")
    lines += [
        "",
        "## Seat functions",
        "",
        "Seats are numbered 0..n-1 clockwise, so the left neighbour of `s` is `(s + 1) % n`.",
        "",
        "| function | parameters | meaning | example |",
        "| --- | --- | --- | --- |",
    ]
    for name, (params, doc, example) in SEAT_FUNCTIONS.items():
        lines.append(f"| `{name}` | ({', '.join(params)}) | {_cell(doc)} | {_cell(_code(example))} |")
    lines += [
        "",
        "## Effects",
        "",
        "Effect statements change the game beyond variables. They appear in blocks, mostly in the "
        "`effect` of an action kind of a `turns` step. Cards move only through them, so every card "
        "is always in exactly one zone. A `zone` argument is a zone name, a seat's zone "
        "(`hand[current_player]`) or a member of a zone family (`piles[0]`).",
        "",
        "| effect | parameters | meaning | example |",
        "| --- | --- | --- | --- |",
    ]
    for e in EFFECTS.values():
        signature = ", ".join([*e.params, *(f"{k}={t} (optional)" for k, t in e.keywords)])
        lines.append(f"| `{e.name}` | ({signature}) | {_cell(e.doc)} | {_cell(_code(e.example))} |")
    lines += [
        "",
        "## Engine functions",
        "",
        "These ask the engine about the current decision. The argument names an action kind of the "
        "running `turns` step.",
        "",
        "| function | parameters → result | meaning | example |",
        "| --- | --- | --- | --- |",
    ]
    for name, (params, doc, example) in ENGINE_FUNCTIONS.items():
        lines.append(f"| `{name}` | ({', '.join(params)}) → bool | {_cell(doc)} | {_cell(_code(example))} |")
    lines += [
        "",
        "## Names every ruleset can use",
        "",
        "Besides its own parameters, zones, variables and definitions, a ruleset can name:",
        "",
        "| name | type | meaning | example |",
        "| --- | --- | --- | --- |",
    ]
    for sn in STATE_NAMES.values():
        lines.append(f"| `{sn.name}` | {_cell(sn.type)} | {_cell(sn.doc)} | {_cell(_code(sn.example))} |")
    lines += [
        "",
        "Context names exist only inside certain rules: `card` (the card being tested, in "
        "`must_play_if_able`, `always_allowed`, `reason`), `winner` (the winning play, in `after_trick` "
        "and `next_leader`), `seat` (in `score` and in a `teams` rule), `team` (in `team_score`) and "
        "`value` (the refused number, in a bid step's `reason`). In an action kind of a `turns` step, each choice "
        "(e.g. `pile`, `artifact`, `row`, `end`) is a context name in its `allowed`, `reason` and `effect`.",
    ]
    lines += [
        "",
        "## Teams",
        "",
        "A ruleset with `teams:` (e.g. `teams: [[0, 2], [1, 3]]`, or a rule such as `seat % 2`) plays in "
        "fixed partnerships. `team_of(seat)` is a seat's team (from 0), `partner(seat)` the next seat of "
        "its team clockwise, `team_members(team)` a team's seats and `num_teams` the number of teams. "
        "Team variables (`team_variables:`) keep one value per team and are indexed by team: "
        "`points[team_of(winner.seat)] += 1`. Partners share a result: `state.team_scores()` gives each "
        "team's score (the `team_score` rule, else the score of its first seat), and the winners are "
        "every seat of the best team or teams. Without `teams:` each seat is a team of its own, so "
        "`team_of(s)` is `s` and `partner(s)` is `s`.",
    ]
    lines += [
        "",
        "## Bids",
        "",
        "A `bid` step asks every seat once, in turn from `first`, for one of its `options`, and stores "
        "the number in a seat variable. The options are computed for each bidder as its turn comes, so "
        "they may read `current_player` (the bidder), `dealer`, the bidder's hand and the bids made so "
        "far. Seats that have not bid yet still hold the variable's initial value: declare it "
        "`{initial: null, type: int, reset: round}` so that an unmade bid is null, not 0 "
        "(`sum(bid[s] for s in seats if bid[s] != null)` adds up the bids made). With "
        "`simultaneous: true` (the default) no seat sees another's bid until all have bid, and the "
        "options must not depend on other seats' bids; with `simultaneous: false` bids are public "
        "as they are made (Oh Hell, Spades). A `reason` (context `value`, the refused number) says why "
        "a number is refused, or gives null to keep the engine's message:",
        "",
        "```yaml",
        "- bid:",
        "    variable: bid",
        "    simultaneous: false",
        "    options: list(b for b in range(0, cards + 1) if not (current_player == dealer and made + b == cards))",
        "    reason: \"if current_player == dealer and made + value == cards then 'the dealer may not make "
        "the total ' + str(cards) else null\"",
        "```",
    ]
    lines += [
        "",
        "## Plays",
        "",
        "The items of `trick` are plays: a play has the card's attributes (`p.rank`, `p.suit`, "
        "`p.kind`, `p.heads`...) plus these fields:",
        "",
    ]
    lines += [f"- `{name}`: {type_}" for name, type_ in PLAY_FIELDS.items()]
    lines += [
        "",
        "## Keywords",
        "",
        "Reserved words: " + ", ".join(f"`{k}`" for k in KEYWORDS) + ".",
        "Comments start with `#` and run to the end of the line.",
        "",
    ]
    return "\n".join(lines).rstrip() + "\n"
