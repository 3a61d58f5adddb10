"""What other seats see of an action: the choices an action kind declares ``private`` show as ``?``.

An action's text is public by default: ``take 3`` tells everyone which pile was taken.
Some actions move a card from one hidden place to another (the High Priestess trades a card
of your hand for a random card of another hand): their text would tell every seat which
card went where. A ``turns`` action kind declares such choices::

    priestess:
      text: "priestess {card} {seat}"
      choices: {card: "hand[me]", seat: others}
      private: [card]       # or `true`: every choice of the text is hidden

and every seat but the one acting sees ``priestess ? 2``. ``private: true`` makes the whole
action kind private: the others see only its verb, ``pass ?`` for Hearts' ``pass {card}``
(whatever else the text says). The functions here are pure:
they take the compiled `trickkit.rules.ruleset.Rules` (or its action kinds) and action texts,
so the engine's views (``State.action_seen_by``, a per-seat history, the ``play`` screen)
call them with the seat that acted and the seat looking.
"""

from __future__ import annotations

import functools
import re
import string
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from trickkit.rules.ruleset import Rules

__all__ = ["HIDDEN", "PrivacyTable", "history_seen_by", "mask_text", "privacy_table", "seen_text"]

HIDDEN = "?"
"""What a hidden choice shows as."""


@functools.lru_cache(maxsize=256)
def _template_regex(template: str) -> tuple[re.Pattern[str], tuple[str, ...]]:
    """A regex matching the texts a (checked, plain ``{name}``) template renders, and its field names."""
    pattern: list[str] = ["^"]
    names: list[str] = []
    for literal, field, _, _ in string.Formatter().parse(template):
        pattern.append(re.escape(literal))
        if field is None:
            continue
        if field in names:  # the same choice twice shows the same value twice
            pattern.append(f"(?P={_group(names.index(field))})")
        else:
            pattern.append(f"(?P<{_group(len(names))}>.+?)")
            names.append(field)
    pattern.append("$")
    return re.compile("".join(pattern), re.S), tuple(names)


def _group(i: int) -> str:
    return f"f{i}"


def mask_text(template: str, private: Iterable[str], text: str) -> str:
    """``text`` (rendered from ``template``) with the fields named in ``private`` shown as ``?``.

    Args:
        template: the action kind's text template, e.g. ``'priestess {card} {seat}'``.
        private: the choices to hide, e.g. ``('card',)``.
        text: an action text of that kind, e.g. ``'priestess W2 2'``.

    Returns:
        ``'priestess ? 2'``. A text that does not fit the template (it cannot happen for an
        action of that kind) shows as its first word and ``?``: hiding too much is safe.
    """
    private = set(private)
    if not private:
        return text
    regex, names = _template_regex(template)
    match = regex.match(text)
    if match is None:
        return f"{text.split(' ')[0]} {HIDDEN}"
    shown = {name: HIDDEN if name in private else match.group(_group(i)) for i, name in enumerate(names)}
    return template.format(**shown)


class PrivacyTable:
    """The private action kinds of a ruleset, by verb: ``verb -> ((template, private), ...)``,
    where ``private`` is the hidden choices, or None when the whole kind is private.

    Several kinds may share a verb (``verb:``, or one kind per ``turns`` step or reaction
    window); a verb with a private kind keeps every kind of that verb, the public ones with
    ``private == ()``, so that only the texts of the private kinds are masked. An action text
    is masked as the first of them whose template it fits with as many words (kinds of one
    step that share a verb differ in their numbers of words), else the first it fits at all.
    """

    def __init__(self, kinds: Iterable[Any]) -> None:
        table: dict[str, list[tuple[str, tuple[str, ...] | None]]] = {}
        public: dict[str, list[str]] = {}
        for kind in kinds:
            verb = getattr(kind, "verb", None) or kind.name
            if getattr(kind, "private_kind", False):
                table.setdefault(verb, []).append((kind.template, None))
            elif getattr(kind, "private", ()):
                table.setdefault(verb, []).append((kind.template, tuple(kind.private)))
            elif getattr(kind, "template", None):
                public.setdefault(verb, []).append(kind.template)
        for verb, templates in public.items():
            if verb in table:  # a public kind sharing its verb with a private one shows as it is
                table[verb] += [(template, ()) for template in templates]
        self.by_verb = {verb: tuple(entries) for verb, entries in table.items()}

    def __bool__(self) -> bool:
        return bool(self.by_verb)

    def mask(self, text: str) -> str:
        """``text`` as a seat other than the actor sees it."""
        entries = self.by_verb.get(text.split(" ")[0])
        if not entries or " " not in text:  # a bare verb (a responder's `pass`) hides nothing
            return text
        words = text.count(" ")
        fits = [(t, p) for t, p in entries if _template_regex(t)[0].match(text)]
        best = next(iter([e for e in fits if e[0].count(" ") == words] + fits), None)
        if best is None or best[1] is None:  # a whole private kind, or a text that fits none: hide it all
            return f"{text.split(' ')[0]} {HIDDEN}"
        return mask_text(best[0], best[1], text)


def privacy_table(rules: Rules) -> PrivacyTable:
    """Build the `PrivacyTable` of compiled rules: every action kind of every turns step and window."""
    kinds: list[Any] = []
    for step in rules.steps:
        kinds += list(getattr(step, "kinds", ()))
        for window in getattr(step, "windows", ()):
            kinds += list(window.kinds)
        if step.kind == "choose" and step.to.visibility != "public":
            # cards chosen into a zone others never see (passed face down): the text never names them
            kinds.append(_ChosenCard(step.verb, f"{step.verb} {{card}}", ("card",)))
    return PrivacyTable(kinds)


class _ChosenCard:
    """The private action kind of a choose step whose cards stay hidden after the reveal."""

    def __init__(self, name: str, template: str, private: tuple[str, ...]):
        self.name, self.template, self.private = name, template, private
        self.verb = name  # the verb its texts start with (as `verb:` of a turns action kind)


def seen_text(table: PrivacyTable, text: str, actor: int, viewer: int | None) -> str:
    """How the action ``text`` taken by seat ``actor`` appears to ``viewer``.

    Args:
        table: the ruleset's `privacy_table`.
        text: the action's canonical text.
        actor: the seat that took it.
        viewer: the seat looking, or None for everything (debugging, saved states).

    Returns:
        ``text`` itself for the actor and for None, else ``text`` with the private choices as ``?``.
    """
    if viewer is None or viewer == actor or not table:
        return text
    return table.mask(text)


def history_seen_by(table: PrivacyTable, history: Sequence[tuple[int, str]], viewer: int | None) -> list[str]:
    """Every action so far, as ``viewer`` sees it (``history`` holds ``(actor seat, text)`` pairs)."""
    return [seen_text(table, text, actor, viewer) for actor, text in history]
