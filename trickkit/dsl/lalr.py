"""A lean LALR driver over the stored tables (``parser_tables.py``): the same trees as lark's.

lark's parser spends most of a parse in its general machinery (a lexer generator, a chain of
wrappers per reduction). This module runs the very tables lark serialised, with lark's
contextual lexing (terminal order, keywords, ignored terminals, line counting) and lark's
tree building (``?rule`` inlining, ``_rule`` splicing, filtered tokens, ``[x]`` placeholders,
propagated positions) written out once, and builds the same ``lark.Tree``/``lark.Token``
objects. It only parses texts that parse: at the first fault it gives up (`parse` returns
None) and lark parses the text again, so syntax errors are lark's, word for word.

tests/test_parser_tables.py checks it against lark on every DSL text of the shipped rulesets
and thousands of mutations of them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, TypeAlias

from lark import Token, Tree
from lark.tree import Meta

__all__ = ["Driver", "driver"]

_Match: TypeAlias = "Callable[[str, int], re.Match[str] | None]"
"""A compiled regexp's ``match``: ``(text, pos) -> match or None``."""

_Rule: TypeAlias = "tuple[int, str, Callable[[list[Any]], Any] | None]"
"""A grammar rule's reduction: (its size, the rule it reduces to, build(children) or None for
a unit rule that hands its one child up)."""


class _Fault(Exception):
    """Internal: the text does not parse here; lark parses it again and reports why."""


def _regexp(pattern: dict[str, Any]) -> str:
    value: str = pattern["value"]
    return re.escape(value) if pattern["__type__"] == "PatternStr" else value


def _max_width(pattern: dict[str, Any]) -> int:
    return len(pattern["value"]) if pattern["__type__"] == "PatternStr" else pattern["_width"][1]


def _has_newline(r: str) -> bool:
    # lark's test for terminals whose matches may hold line breaks (lexer._regexp_has_newline)
    return "\n" in r or "\\n" in r or "\\s" in r or "[^" in r or ("(?s" in r and "." in r)


class _Vocabulary:
    """All terminals, in lark's lexer order, and which string terminals each regexp one
    matches whole (keywords that NAME also matches); `root` lexes with all of them at once."""

    def __init__(self, terminals: dict[str, dict[str, Any]]) -> None:
        self.terminals = terminals
        order = sorted(
            terminals.values(),
            key=lambda t: (-t["priority"], -_max_width(t["pattern"]), -len(t["pattern"]["value"]), t["name"]),
        )
        self.rank = {t["name"]: i for i, t in enumerate(order)}
        strings = [t for t in order if t["pattern"]["__type__"] == "PatternStr"]
        # regexp terminal -> [(text, string terminal)] it matches whole
        self.whole: dict[str, list[tuple[str, str]]] = {}
        for ret in order:
            if ret["pattern"]["__type__"] != "PatternRE":
                continue
            regexp = re.compile(_regexp(ret["pattern"]))
            for st in strings:
                text = st["pattern"]["value"]
                m = regexp.match(text) if st["priority"] == ret["priority"] else None
                if m and m.group(0) == text:
                    self.whole.setdefault(ret["name"], []).append((text, st["name"]))
        self.matchers: dict[str, _Match] = {}
        self.root = _Lexer(self, frozenset(terminals))
        self.root_match = re.compile(
            "|".join(f"(?P<{n}>{_regexp(terminals[n]['pattern'])})" for n in self.root.kept)
        ).match

    def matcher(self, name: str) -> _Match:
        """The match function of one terminal's regexp, compiled on first use."""
        match = self.matchers.get(name)
        if match is None:
            match = self.matchers[name] = re.compile(_regexp(self.terminals[name]["pattern"])).match
        return match


class _Lexer:
    """lark's BasicLexer for one set of terminals (those a parser state accepts, and the
    ignored ones): the first of them in lark's order that matches, with keywords taken from
    NAME. The root lexer's one regexp finds the same terminal whenever it finds one of this
    set and no keyword is a terminal of its own here (`exact`); else the terminals are tried
    one by one, in order, as lark's alternation does."""

    __slots__ = ("exact", "kept", "kept_set", "keywords", "tries", "vocabulary")

    def __init__(self, vocabulary: _Vocabulary, names: frozenset[str]) -> None:
        self.vocabulary = vocabulary
        ordered = sorted(names, key=vocabulary.rank.__getitem__)
        embedded: set[str] = set()
        self.keywords: dict[str, dict[str, str]] = {}  # regexp terminal -> {its text: string terminal}
        for name in ordered:
            unless: dict[str, str] = {}
            for text, string in vocabulary.whole.get(name, ()):
                if string in names:
                    unless.setdefault(text, string)
                    embedded.add(string)
            if unless:
                self.keywords[name] = unless
        self.kept = [n for n in ordered if n not in embedded]
        self.kept_set = frozenset(self.kept)
        root = getattr(vocabulary, "root", None)
        self.exact = root is None or all(n in root.kept_set for n in self.kept)
        self.tries: list[tuple[str, _Match]] | None = None

    def next(self, text: str, pos: int) -> tuple[str, str] | None:
        """(terminal, text) of the token at ``pos``, or None."""
        m = self.vocabulary.root_match(text, pos)
        if m is not None and self.exact and m.lastgroup in self.kept_set:
            return m.lastgroup, m.group(0)
        tries = self.tries
        if tries is None:
            tries = self.tries = [(n, self.vocabulary.matcher(n)) for n in self.kept]
        for name, match in tries:
            m = match(text, pos)
            if m is not None:
                return name, m.group(0)
        return None


class Driver:
    """Parses with lark's stored LALR tables; `parse` returns lark's tree, or None on any fault."""

    def __init__(self, data: dict[str, Any], memo: dict[Any, Any]) -> None:
        terminals: dict[str, dict[str, Any]] = {}
        for item in memo.values():
            if item.get("__type__") == "TerminalDef":
                if item["pattern"]["flags"]:
                    raise ValueError("terminal flags are not supported")  # then lark parses
                terminals[item["name"]] = item
        self._terminals = terminals
        self._vocabulary = _Vocabulary(terminals)
        lexer_conf = data["parser"]["lexer_conf"]
        options = data["options"]
        if (
            lexer_conf["lexer_type"] != "contextual"
            or lexer_conf["g_regex_flags"]
            or options["postlex"]
            or not options["propagate_positions"]
            or not options["maybe_placeholders"]
            or options["keep_all_tokens"]
            or options["lexer_callbacks"]
            or options["tree_class"]
        ):
            raise ValueError("lark options the driver does not follow")
        self._ignore = frozenset(lexer_conf["ignore"])
        self._newline = frozenset(name for name, t in terminals.items() if _has_newline(_regexp(t["pattern"])))
        table = data["parser"]["parser"]
        names = table["tokens"]
        self._rules: dict[int, _Rule] = {}
        self._states: dict[int, dict[str, tuple[bool, Any]]] = {}
        for state, actions in table["states"].items():
            row: dict[str, tuple[bool, Any]] = {}
            for token, (action, arg) in actions.items():
                if action == 1:
                    key = arg["@"]
                    if key not in self._rules:
                        self._rules[key] = self._reducer(memo[key])
                    row[names[token]] = (False, self._rules[key])
                else:
                    row[names[token]] = (True, arg)
            self._states[state] = row
        self._start = table["start_states"]
        self._end = table["end_states"]
        self._lexers: dict[int, _Lexer] = {}
        self._unit_tops: dict[tuple[int, int, str], int] = {}  # (below, top, token type) -> top after unit reductions
        self._by_accepts: dict[frozenset[str], _Lexer] = {}

    def _lexer(self, state: int) -> _Lexer:
        accepts = frozenset(n for n in self._states[state] if n in self._terminals) | self._ignore
        lexer = self._by_accepts.get(accepts)
        if lexer is None:
            lexer = self._by_accepts[accepts] = _Lexer(self._vocabulary, accepts)
        self._lexers[state] = lexer
        return lexer

    @staticmethod
    def _reducer(rule: dict[str, Any]) -> _Rule:
        """The reduction of one rule: (size, origin, build), build(children) -> value."""
        expansion = rule["expansion"]
        opts = rule["options"]
        keep = opts["keep_all_tokens"]
        empty = opts["empty_indices"]
        if empty:
            ones = "".join(str(int(b)) for b in empty).split("0")
            nones = [len(x) for x in ones]
        else:
            nones = [0] * (len(expansion) + 1)
        include: list[tuple[int, bool, int]] = []  # (index, splice its children?, Nones before it)
        pending = 0
        for i, sym in enumerate(expansion):
            pending += nones[i]
            is_term = sym["__type__"] == "Terminal"
            if keep or not (is_term and sym["filter_out"]):
                include.append((i, not is_term and sym["name"].startswith("_"), pending))
                pending = 0
        trailing = pending + nones[len(expansion)]
        expand1 = opts["expand1"] and not rule["alias"]
        name = rule["alias"] or opts["template_source"] or rule["origin"]["name"]

        def build(children: list[Any]) -> Any:
            filtered: list[Any] = []
            for i, splice, add in include:
                if add:
                    filtered += [None] * add
                if splice:
                    filtered += children[i].children
                else:
                    filtered.append(children[i])
            if trailing:
                filtered += [None] * trailing
            if expand1 and len(filtered) == 1:
                res = filtered[0]
                if res.__class__ is not Tree:
                    return res
                meta = res._meta
            else:
                meta = Meta()  # type: ignore[no-untyped-call]  # lark's Meta() is not annotated
                res = Tree(name, filtered, meta)
            _propagate(meta, children)
            return res

        # a unit rule that hands its one child up (``?sum: term``) changes nothing: a tree's
        # positions were propagated when it was built, and a token has no meta
        unit = expand1 and len(expansion) == 1 and include == [(0, False, 0)] and not trailing
        return len(expansion), rule["origin"]["name"], None if unit else build

    def parse(self, text: str, start: str) -> Tree[Token] | None:
        """lark's tree of ``text`` from rule ``start``, or None when it does not parse."""
        try:
            tree: Tree[Token] = self._parse(text, start)
            return tree
        except (_Fault, KeyError, IndexError):
            return None

    def _parse(self, text: str, start: str) -> Any:
        states, lexers, ignore, newline = self._states, self._lexers, self._ignore, self._newline
        units = self._unit_tops
        state_stack = [self._start[start]]
        value_stack: list[Any] = []
        end_state = self._end[start]
        pos, line, line_start, size = 0, 1, 0, len(text)
        token: Token
        while True:
            # -- the next token, lexed for the current state (lark's contextual lexer)
            while pos < size:
                state = state_stack[-1]
                lexer = lexers.get(state) or self._lexer(state)
                found = lexer.next(text, pos)
                if found is None:
                    raise _Fault()
                kind, value = found
                start_pos, start_line, column = pos, line, pos - line_start + 1
                if kind in newline:
                    count = value.count("\n")
                    if count:
                        line += count
                        line_start = pos + value.rindex("\n") + 1
                pos += len(value)
                if kind in ignore:
                    continue
                token = Token(kind, value, start_pos, start_line, column, line, pos - line_start + 1, pos)
                keywords = lexer.keywords.get(kind)
                if keywords is not None:
                    keyword = keywords.get(value)
                    if keyword is not None:
                        token.type = keyword
                break
            else:
                break
            # -- feed it (reduce as often as needed, then shift)
            kind = token.type
            while True:
                shift, arg = states[state_stack[-1]][kind]
                if shift:
                    state_stack.append(arg)
                    value_stack.append(token)
                    break
                if arg[2] is None:  # unit rules: the value stays, only the top state changes
                    key = (state_stack[-2], state_stack[-1], kind)
                    top = units.get(key)
                    state_stack[-1] = top if top is not None else self._units(*key)
                    continue
                value_stack, state_stack = self._reduce(arg, state_stack, value_stack)
        # -- the end of the text ($END): reduce until the end state
        while True:
            shift, arg = states[state_stack[-1]]["$END"]
            if shift:
                raise _Fault()
            value_stack, state_stack = self._reduce(arg, state_stack, value_stack)
            if state_stack[-1] == end_state:
                return value_stack[-1]

    def _units(self, below: int, top: int, kind: str) -> int:
        """The top state after the unit reductions that ``kind`` makes on ``top`` (over ``below``,
        which they leave in place: each pops one state and pushes the goto of ``below``)."""
        start = top
        while True:
            action = self._states[top].get(kind)
            if action is None or action[0] or action[1][2] is not None:
                self._unit_tops[(below, start, kind)] = top
                return top
            shift, top = self._states[below][action[1][1]]
            if not shift:
                raise _Fault()

    def _reduce(self, rule: _Rule, state_stack: list[int], value_stack: list[Any]) -> tuple[list[Any], list[int]]:
        size, origin, build = rule
        if size:
            children = value_stack[-size:]
            del state_stack[-size:]
            del value_stack[-size:]
        else:
            children = []
        value = children[0] if build is None else build(children)
        shift, new_state = self._states[state_stack[-1]][origin]
        if not shift:
            raise _Fault()
        state_stack.append(new_state)
        value_stack.append(value)
        return value_stack, state_stack


def _propagate(meta: Any, children: list[Any]) -> None:
    """lark's PropagatePositions: a node spans from its first child's container to its last's.

    (A tree's meta is never empty once it has a position, and then has its container's too;
    a token is its own container. Its start and end are found together or not at all.)
    ``meta`` is a lark ``Meta``, typed ``Any``: lark sets its ``container_*`` fields dynamically."""
    for c in children:
        cls = c.__class__
        if cls is Tree:
            m = c._meta
            if m.empty:
                continue
            line, column, start = m.container_line, m.container_column, m.container_start_pos
        elif cls is Token:
            line, column, start = c.line, c.column, c.start_pos
        else:
            continue
        break
    else:
        return
    for c in reversed(children):
        cls = c.__class__
        if cls is Tree:
            m = c._meta
            if m.empty:
                continue
            end_line, end_column, end = m.container_end_line, m.container_end_column, m.container_end_pos
        elif cls is Token:
            end_line, end_column, end = c.end_line, c.end_column, c.end_pos
        else:
            continue
        break
    if meta.empty:
        meta.line, meta.column, meta.start_pos = line, column, start
        meta.end_line, meta.end_column, meta.end_pos = end_line, end_column, end
        meta.empty = False
    meta.container_line, meta.container_column, meta.container_start_pos = line, column, start
    meta.container_end_line, meta.container_end_column, meta.container_end_pos = end_line, end_column, end


def driver(tables: str, decoded: Callable[[dict[str, Any]], Any]) -> Driver | None:
    """A driver over lark's serialised tables (``parser_tables.TABLES``, decoded by ``decoded``,
    the JSON object hook); None when they hold anything the driver does not follow."""
    try:
        data, memo = json.loads(tables, object_hook=decoded)
        return Driver(data, memo)
    except (ValueError, KeyError, TypeError):
        return None
