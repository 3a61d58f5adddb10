"""The rulebook's reference sections: what each seat sees, the parameters, the action notation and the version hash."""

from __future__ import annotations

from typing import Any

from trickkit.engine.game import Game
from trickkit.lab.rulebook.blocks import Block, Bullets, Heading, Para, Table
from trickkit.lab.rulebook.probe import show

_SEES = {
    "public": "every seat",
    "owner": "its owner only (others see how many cards)",
    "hidden": "nobody (seats see how many cards)",
    "top": "every seat sees the top card only",
}

_VARIABLE_SEES = {
    "public": "every seat",
    "owner": "its owner only (a team variable: the team's seats)",
    "hidden": "nobody",
}

MAX_ACTION_EXAMPLES = 12


def _flat(text: object) -> str:
    """A rule's text on one line (for a table cell)."""
    return " ".join(str(text).split())


def seats_section(game: Game, doc: dict[str, Any]) -> list[Block]:
    rows = []
    for name, spec in (doc.get("zones") or {}).items():
        vis = spec.get("visibility", "public")
        sees = _SEES.get(vis, vis)
        if "public_when" in spec:
            sees += f"; every seat while `{_flat(spec['public_when'])}`"
        if "seen_by" in spec:
            sees += f"; also each `seat` for which `{_flat(spec['seen_by'])}`"
        owner = spec.get("owner", "table")
        if "count" in spec:
            owner += f" (a family of `{spec['count']}` zones)"
        rows.append((f"`{name}`", "zone", owner, sees, " ".join(str(spec.get("description", "")).split())))
    for key, owner in (("seat_variables", "seat"), ("team_variables", "team"), ("table_variables", "table")):
        for name, spec in (doc.get(key) or {}).items():
            spec = spec if isinstance(spec, dict) else {"initial": spec}
            sees = _VARIABLE_SEES.get(str(spec.get("visibility", "public")), "every seat")
            if "seen_by" in spec:
                sees += f"; also each `seat` for which `{_flat(spec['seen_by'])}`"
            if spec.get("internal"):
                sees += " (internal: in observations, not shown in play)"
            reset = spec.get("reset", "game")
            what = f"variable, initial {show(spec.get('initial'))}" + (
                f", reset each {reset}" if reset != "game" else ""
            )
            rows.append((f"`{name}`", what, owner, sees, " ".join(str(spec.get("description", "")).split())))
    private = []
    for step in game.rules.steps:
        if step.kind == "bid" and step.simultaneous:
            private.append(
                f"bids on `{step.variable.name}` are made at once: no seat sees another's bid until all have bid"
            )
        if step.kind == "choose" and step.simultaneous:
            private.append(
                f"`{step.verb}` choices are secret until every seat has chosen (shown as `{step.verb} ?`)"
                + ("" if step.to.visibility == "public" else f"; the cards stay hidden in `{step.to.name}`")
            )
        for kind in list(getattr(step, "kinds", ())) + [k for w in getattr(step, "windows", ()) for k in w.kinds]:
            if kind.private_kind:
                private.append(f"`{kind.name}` actions are private: other seats see only `{kind.verb or kind.name}`")
            elif kind.private:
                hidden = ", ".join(f"`{p}`" for p in kind.private)
                private.append(f"`{kind.template}`: other seats see {hidden} as `?`")
    blocks: list[Block] = [
        Heading(2, "What each seat sees"),
        Table("seats", ("name", "what", "owner", "who sees it", "description"), tuple(rows)),
    ]
    if private:
        blocks += [Para("Private choices:"), Bullets(tuple(dict.fromkeys(private)))]
    return blocks


def parameters_section(doc: dict[str, Any]) -> list[Block]:
    rows = []
    pl = doc["players"]
    rows.append(("players", "int", show(pl.get("default", pl["min"])), f"{pl['min']}-{pl['max']}", "Number of seats."))
    for name, spec in (doc.get("parameters") or {}).items():
        if "choices" in spec:
            allowed = ", ".join(f"`{show(c)}`" for c in spec["choices"])
        elif "min" in spec or "max" in spec:
            allowed = f"{show(spec.get('min', ''))}-{show(spec.get('max', ''))}".strip("-")
            allowed = (
                allowed
                if "min" in spec and "max" in spec
                else (f">= {spec['min']}" if "min" in spec else f"<= {spec['max']}")
            )
        else:
            allowed = "true, false" if spec.get("type") == "bool" else "any"
        rows.append(
            (
                f"`{name}`",
                str(spec.get("type", "")),
                f"`{show(spec.get('default'))}`",
                allowed,
                " ".join(str(spec.get("description", "")).split()),
            )
        )
    return [
        Heading(2, "Parameters"),
        Para("Set with `--param NAME=VALUE` (command line) or `load_game(..., NAME=VALUE)`."),
        Table("parameters", ("parameter", "type", "default", "allowed", "description"), tuple(rows)),
    ]


def notation_section(game: Game) -> list[Block]:
    """Actions as they are typed, with examples from the game's action space."""
    try:
        space = game.action_space
        texts = [space.to_string(i) for i in range(len(space))]
    except Exception as e:  # a game without a fixed action space still has its notation
        texts, size = [], f"no fixed action space ({type(e).__name__})"
    else:
        size = f"{len(texts)} distinct actions"
    by_verb: dict[str, list[str]] = {}
    for t in texts:
        by_verb.setdefault(t.split(" ", 1)[0], []).append(t)
    rows = []
    for verb, items in by_verb.items():
        shown = items if len(items) <= 4 else [items[0], items[1], items[len(items) // 2], items[-1]]
        rows.append((f"`{verb}`", str(len(items)), ", ".join(f"`{x}`" for x in shown)))
    templates = []
    auctions = []
    for step in game.rules.steps:
        if step.kind == "auction":
            from trickkit.engine.spaces import all_auction_calls

            calls = ", ".join(f"`{step.template.replace('{call}', str(c))}`" for c in all_auction_calls(game, step))
            extra = ", `double`, `redouble`" if step.double else ""
            auctions.append(f"calls, lowest first: {calls}; or `{step.pass_text}`{extra}")
        for kind in getattr(step, "kinds", ()):
            line = f"`{kind.template}`"
            if kind.description:
                line += f": {' '.join(kind.description.split())}"
            templates.append(line)
    blocks: list[Block] = [
        Heading(2, "Action notation"),
        Para(
            f"Every decision is one action, typed as text; the action space has {size} (ids 0 and up, in this order)."
        ),
    ]
    if rows:
        blocks.append(Table("actions", ("verb", "actions", "examples"), tuple(rows)))
    if templates:
        blocks += [Para("Actions of the turns steps:"), Bullets(tuple(dict.fromkeys(templates)))]
    if auctions:
        blocks += [
            Para("Auctions (every call is public; a call must outrank the last call):"),
            Bullets(tuple(dict.fromkeys(auctions))),
        ]
    return blocks


def version_section(game: Game) -> list[Block]:
    return [
        Heading(2, "Version"),
        Para(f"Ruleset content hash (`Game.content_hash`): `{game.content_hash}`."),
    ]
