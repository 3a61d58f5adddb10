"""Hostile input, round two (issue 18): one table or property test per class of problem.

Each class below would have found the red-team findings of its kind: sizes (decks, zone
families, templates, surrogates), files (FIFOs, devices, directories, size caps, what
``extends`` may reach, quoting), merges (``$remove`` is linear), node counts, integers,
lookups (mixed key types), deep JSON, scenario parameters, orphaned workers and private
action choices. Guards against runaway work are counted, not timed; the alarm of
`no_hang` only turns a hang into a failure.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import trickkit
import trickkit.lab.simulation  # used as trickkit.lab.simulation below: imported here, not by luck of test order
from trickkit import RulesetError, ScenarioError, TrickkitError
from trickkit.engine.loader import ruleset_text
from trickkit.engine.privacy import mask_text, privacy_table, seen_text
from trickkit.engine.records import replay_record, replay_records
from trickkit.jsonsafe import MAX_JSON_DEPTH, JSONLimitError
from trickkit.jsonsafe import loads as safe_loads
from trickkit.lab.scenarios import load_scenario_file, run_scenario
from trickkit.rules import source as source_module
from trickkit.rules.cards import MAX_CARD_TEXT, MAX_DECK_CARDS
from trickkit.rules.inherit import _Merger, _Src
from trickkit.rules.ruleset import MAX_ZONE_FAMILY
from trickkit.rules.source import MAX_SOURCE_NODES, Locator, load_yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import backstop  # (the hang backstop shared with the other fuzz suite)

HANG_SECONDS = 300  # a backstop against a real hang, never a speed assertion (the limits are counted)
PROPERTY = settings(
    max_examples=int(os.environ.get("TRICKKIT_HOSTILE_EXAMPLES", "25")),
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)
_TMP = tempfile.mkdtemp(prefix="trickkit-hostile-")
TRIED: dict[str, int] = {}
"""Hostile inputs tried per class in this run (printed with ``-s``)."""


def tried(kind: str, n: int = 1) -> None:
    TRIED[kind] = TRIED.get(kind, 0) + n


@pytest.fixture(scope="module", autouse=True)
def _report():
    yield
    if TRIED:
        print("\nhostile inputs tried per class:")
        for kind, n in sorted(TRIED.items()):
            print(f"  {kind:24s} {n}")


def no_hang(what: str):
    return backstop.no_hang(what, HANG_SECONDS)


TINY = {
    "name": "tiny",
    "title": "Tiny",
    "players": {"min": 2, "max": 4, "default": 2},
    "deck": [{"suit": {"R": "red", "B": "blue"}, "rank": {"from": 1, "to": 5}, "text": "{suit}{rank}"}],
    "zones": {"stock": {"owner": "table", "visibility": "hidden"}, "hand": {"owner": "seat", "visibility": "owner"}},
    "round": [{"deal": {"count": 2}}, {"tricks": {"count": 2, "winner": "highest(p for p in trick by p.card.rank)"}}],
    "game_over": "round >= 1",
    "score": "0",
}


def write(name: str, data: str | bytes) -> str:
    path = os.path.join(_TMP, name)
    with open(path, "wb") as fh:
        fh.write(data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data)
    return path


def dump(doc) -> str:
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=10**6)


def load_error(path: str, **kwargs) -> RulesetError:
    """The RulesetError loading ``path`` raises; fails on anything else (a hang included)."""
    with no_hang(f"loading {path}"), pytest.raises(RulesetError) as info:
        trickkit.load_game(path, **kwargs)
    return info.value


def located(err: RulesetError, path: str) -> str:
    """The message of the problem at YAML path ``path`` (which must have a line)."""
    for p in err.problems:
        if p.path == path:
            assert p.line > 0, p
            return p.message
    raise AssertionError(f"no problem at {path}: {err}")


# ====================================================================== sizes

SIZE_CASES = [
    # (what, change to the first card group or the document, YAML path, words of the message)
    ("copies 10^9", {"copies": 10**9}, "$.deck[0].copies", "deck too large"),
    ("rank.to 10^9", {"rank": {"from": 1, "to": 10**9}}, "$.deck[0].rank", "deck too large"),
    ("rank.to 2^70", {"rank": {"from": 1, "to": 2**70}}, "$.deck[0].rank", "deck too large"),
    ("rank.from -2^70", {"rank": {"from": -(2**70), "to": 5}}, "$.deck[0].rank", "deck too large"),
    (
        "modes x copies",
        {"copies": 1000, "modes": {f"m{i}": {"rank": i} for i in range(30)}},
        "$.deck[0].copies",
        "card faces",
    ),
    ("long card text", {"text": "{suit}" + "x" * 200}, "$.deck[0].text", f"longer than {MAX_CARD_TEXT}"),
]


@pytest.mark.parametrize("what, change, path, words", SIZE_CASES, ids=[c[0] for c in SIZE_CASES])
def test_deck_sizes_are_capped(what, change, path, words):
    tried("sizes", 1)
    doc = copy.deepcopy(TINY)
    doc["deck"][0].update(change)
    err = load_error(write("size.yaml", dump(doc)))
    assert words in located(err, path)


@pytest.mark.parametrize("count", ["1000000000", str(2**70), "num_players * 100000", str(MAX_ZONE_FAMILY + 1)])
def test_zone_family_count_is_capped(count):
    tried("sizes", 1)
    doc = copy.deepcopy(TINY)
    doc["zones"]["piles"] = {"owner": "table", "count": count}
    err = load_error(write("family.yaml", dump(doc)))
    assert f"at most {MAX_ZONE_FAMILY:,} zones" in located(err, "$.zones.piles.count")


@PROPERTY
@given(st.integers(1, 4), st.integers(0, 12), st.integers(0, 12))
def test_deck_size_property(suits, rank_power, copies_power):
    """Any suits x ranks x copies: the deck is built exactly when it is within the caps,
    and refused (located, before anything is built) when it is not."""
    tried("sizes")
    ranks = random.Random(rank_power).randint(10**rank_power, 10 ** (rank_power + 1))
    copies = random.Random(copies_power).randint(10**copies_power // 2 or 1, 10**copies_power)
    doc = copy.deepcopy(TINY)
    doc["deck"][0].update(
        {"suit": {f"S{i}": f"s{i}" for i in range(suits)}, "rank": {"from": 1, "to": ranks}, "copies": copies}
    )
    path = write("deckprop.yaml", dump(doc))
    total = suits * ranks * copies
    if total <= MAX_DECK_CARDS:
        with no_hang("a deck within the cap"):
            assert len(trickkit.load_game(path).cards) == total
    else:
        assert "deck too large" in str(load_error(path))


# -- templates: only plain {name} fields ----------------------------------------------------------

HOSTILE_FIELDS = [
    "{rank:>100000000}",
    "{rank:d}",
    "{suit!r}",
    "{rank!s:>5}",
    "{rank.real}",
    "{suit[0]}",
    "{suit.__class__.__mro__[1].__subclasses__}",
    "{}",
    "{0}",
    "{colour}",
    "{rank.nope}",
]
PLAIN_PIECES = ["{suit}", "{rank}", "x", "-", "T", "_"]


@st.composite
def card_templates(draw):
    pieces = draw(
        st.lists(st.sampled_from(PLAIN_PIECES + HOSTILE_FIELDS + ["{", "}", "{{", "}}"]), min_size=1, max_size=5)
    )
    return pieces


@PROPERTY
@given(card_templates())
def test_card_text_templates(pieces):
    """A card text template loads only with plain {suit}/{rank} fields, and then renders exactly them."""
    tried("templates")
    template = "".join(pieces)
    doc = copy.deepcopy(TINY)
    doc["deck"][0]["text"] = template
    path = write("template.yaml", dump(doc))
    braces = any(p in ("{", "}", "{{", "}}") for p in pieces)
    hostile = any(p in HOSTILE_FIELDS for p in pieces)
    expected = [template.replace("{suit}", s).replace("{rank}", str(r)) for s in "RB" for r in range(1, 6)]
    ambiguous = len(set(expected)) < len(expected)  # two different cards, one text: refused (issue 13)
    with no_hang(f"template {template!r}"):
        try:
            game = trickkit.load_game(path)
        except RulesetError as e:
            assert hostile or braces or ambiguous, e
            if ambiguous and not (hostile or braces):
                assert "would be ambiguous" in str(e), e
            assert any(p.path == "$.deck[0].text" and p.line > 0 for p in e.problems), e
            assert " at 0x" not in str(e)  # no Python object leaks into the message
            return
    assert not hostile, f"{template!r} loaded"
    if not braces:
        assert not ambiguous, f"{template!r} loaded with repeated texts"
        assert list(game.cards) == expected


@PROPERTY
@given(
    st.lists(
        st.sampled_from(
            ["x", "-", "{pile}"] + [f.replace("rank", "pile").replace("suit", "pile") for f in HOSTILE_FIELDS]
        ),
        max_size=4,
    )
)
def test_action_text_templates(pieces):
    """A turns action's text template: plain {choice} fields only, refused at load (located) otherwise."""
    tried("templates")
    template = "take {pile} " + "".join(pieces)
    doc = copy.deepcopy(yaml.safe_load(ruleset_text("saqqara")))
    step = next(s["turns"] for s in doc["round"] if "turns" in s and "take" in s["turns"]["actions"])
    step["actions"]["take"]["text"] = template
    index = next(i for i, s in enumerate(doc["round"]) if "turns" in s and s["turns"] is step)
    path = write("action_template.yaml", dump(doc))
    hostile = any(p not in ("x", "-", "{pile}") for p in pieces)
    with no_hang(f"action template {template!r}"):
        try:
            game = trickkit.load_game(path)
        except RulesetError as e:
            assert hostile, e
            located(e, f"$.round[{index}].turns.actions.take.text")
            return
    assert not hostile, f"{template!r} loaded"
    state = game.new_initial_state(seed=1)
    for _ in range(40):
        legal = [a.text for a in state.legal_actions() if a.verb == "take"]
        if legal:
            assert all(t.startswith("take ") and "{" not in t for t in legal)
            return
        state.apply_action(state.legal_actions()[0])


# -- lone surrogates ------------------------------------------------------------------------------


def string_paths(doc, path=()):
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from string_paths(v, path + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from string_paths(v, path + (i,))
    elif isinstance(doc, str):
        yield path


@PROPERTY
@given(st.sampled_from(trickkit.list_games()), st.integers(0, 10**6), st.integers(0xD800, 0xDFFF))
def test_lone_surrogates_are_refused_anywhere(name, pick, code):
    """A lone surrogate (``"\\ud800"`` in YAML) in any text of a ruleset is a located load error."""
    tried("surrogates")
    doc = yaml.safe_load(ruleset_text(name))
    paths = list(string_paths(doc))
    where = paths[pick % len(paths)]
    node = doc
    for k in where[:-1]:
        node = node[k]
    node[where[-1]] = "SURROGATE_MARK"
    text = dump(doc).replace("SURROGATE_MARK", f'"x\\u{code:04x}y"', 1)
    err = load_error(write("surrogate.yaml", text))
    assert any("lone surrogate" in p.message and p.line > 0 for p in err.problems), err
    str(err).encode("utf-8")  # the message itself can be printed


def test_surrogate_parameter_value_is_refused():
    """A parameter value from outside (``--param`` reads argv, which may hold surrogate escapes)."""
    tried("surrogates")
    doc = {**TINY, "parameters": {"label": {"type": "str", "default": "a"}}}
    err = load_error(write("param_surrogate.yaml", dump(doc)), label="x\udcff")
    assert "lone surrogate" in str(err)
    str(err).encode("utf-8")


# ====================================================================== files


def _fifo(name: str) -> str:
    path = os.path.join(_TMP, name)
    if not os.path.exists(path):
        os.mkfifo(path)
    return path


def _hostile_file(kind: str, name: str) -> str:
    """A file named ``name`` in the temp folder that must not be read: FIFO, device, directory, huge."""
    path = os.path.join(_TMP, name)
    if os.path.lexists(path):
        if os.path.isdir(path) and not os.path.islink(path):
            os.rmdir(path)
        else:
            os.remove(path)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev_zero":
        os.symlink("/dev/zero", path)
    elif kind == "directory":
        os.mkdir(path)
    else:  # huge: a valid start, then more than the cap
        with open(path, "w") as fh:
            fh.write("name: huge\n" + "# " + "x" * (source_module.MAX_TEXT_SIZE + 10) + "\n")
    return path


HOSTILE_KINDS = ["fifo", "dev_zero", "directory", "huge"]
_REFUSAL = {
    "fifo": "not a regular file (a named pipe)",
    "dev_zero": "not a regular file (a device)",
    "directory": "not a regular file (a directory)",
    "huge": "too large",
}


_OUTSIDE = {("extends", "dev_zero"), ("scenario game", "dev_zero"), ("record ruleset", "dev_zero")}


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs (POSIX)")
@pytest.mark.parametrize("kind", HOSTILE_KINDS)
@pytest.mark.parametrize("entry", ["load_game", "extends", "scenario game", "scenario file", "record ruleset"])
def test_files_that_must_not_be_read(entry, kind):
    """Every way a file reaches trickkit refuses FIFOs, devices, directories and files over 5 MB, without blocking."""
    tried("files")
    target = _hostile_file(kind, f"bad_{kind}.yaml")
    with no_hang(f"{entry} of a {kind}"):
        if entry == "load_game":
            message = str(load_error(target))
        elif entry == "extends":
            child = write("child_of_bad.yaml", f"name: child\nextends: bad_{kind}.yaml\n")
            err = load_error(child)
            message = str(err)
            if kind != "huge":
                assert err.problems[0].path == "$.extends" and err.problems[0].line == 2
        elif entry == "scenario game":
            scenario = write("bad_game.scenario.yaml", f"game: bad_{kind}.yaml\nactions: []\n")
            try:
                result = run_scenario(load_scenario_file(scenario)[0])
            except ScenarioError as e:  # a link out of the folder: refused as the file is read
                message = str(e)
            else:
                assert not result.passed
                message = result.message
        elif entry == "scenario file":
            with pytest.raises(ScenarioError) as info:
                load_scenario_file(target)
            message = str(info.value)
        else:
            record = {
                "game": "x",
                "ruleset": f"bad_{kind}.yaml",  # relative to the records file's folder
                "params": {},
                "players": 2,
                "seed": 1,
                "actions": [],
                "scores": [0, 0],
                "winners": [0],
                "ruleset_sha256": "0" * 64,
            }
            result = replay_record(record, base=os.path.dirname(target))
            assert result.status == "refused"
            message = result.message
    # a link to /dev/zero is refused by extends (and a scenario's game, a record's ruleset) before
    # that: it leads out of the folder
    expected = "outside the folder" if (entry, kind) in _OUTSIDE else _REFUSAL[kind]
    assert expected in message, message
    assert len(message) < 2000


def _reach_case(kind: str) -> tuple[str, str | None]:
    """A child ruleset whose ``extends`` tries a way out of its folder; returns (child path, None)."""
    root = os.path.join(_TMP, f"reach_{kind}")
    os.makedirs(os.path.join(root, "sub"), exist_ok=True)
    outside = os.path.join(_TMP, "outside_parent.yaml")
    with open(outside, "w") as fh:
        fh.write(ruleset_text("sarkophag"))
    inside = os.path.join(root, "parent.yaml")
    with open(inside, "w") as fh:
        fh.write(ruleset_text("sarkophag"))
    link = os.path.join(root, "link.yaml")
    if not os.path.lexists(link):
        os.symlink(outside, link)
    ref = {
        "absolute": outside,
        "dotdot": "../outside_parent.yaml",
        "symlink": "link.yaml",
        "not_yaml": "./parent.txt",
        "inside_dotdot": "sub/../parent.yaml",
        "inside": "parent.yaml",
        "etc_passwd": "../../../../../../../etc/passwd.yaml",
    }[kind]
    child = os.path.join(root, "child.yaml")
    with open(child, "w") as fh:
        fh.write(f"name: child\nextends: {json.dumps(ref)}\n")
    return child, ref


@pytest.mark.parametrize(
    "kind, outcome",
    [
        ("absolute", "not the absolute path"),
        ("dotdot", "outside the folder"),
        ("symlink", "outside the folder"),
        ("etc_passwd", "outside the folder"),
        ("not_yaml", "ends in .yaml or .yml"),
        ("inside_dotdot", None),
        ("inside", None),
    ],
)
def test_what_extends_may_reach(kind, outcome):
    """docs/robustness.md: shipped names, or relative .yaml paths that stay in the loaded ruleset's folder."""
    tried("files")
    child, _ = _reach_case(kind)
    if outcome is None:
        assert trickkit.load_game(child).name == "child"
        return
    err = load_error(child)
    assert outcome in located(err, "$.extends")


@PROPERTY
@given(
    st.sampled_from(trickkit.list_games()),
    st.integers(0, 10**6),
    st.sampled_from(["long_text", "long_list", "big_map", "long_key", "huge_int"]),
)
def test_schema_messages_do_not_quote_huge_content(name, pick, kind):
    """A huge value (or key) in a wrong place is reported in a short message (never the value itself)."""
    tried("files")
    from trickkit.rules.schema_check import check_schema, load_schema

    doc = yaml.safe_load(ruleset_text(name))
    keys = [k for k in doc if k not in ("extends",)]
    key = keys[pick % len(keys)]
    if kind == "long_key":
        doc["k" * 1_000_000] = 1
    else:
        doc[key] = {
            "long_text": "z" * 1_000_000,
            "long_list": ["z" * 100] * 10_000,
            "big_map": {f"k{i}": "z" * 100 for i in range(5000)},
            "huge_int": 10**4299,
        }[kind]  # YAML allows no more
    problems = check_schema(doc, Locator(f"{name}.yaml"), load_schema("ruleset"))
    for p in problems:
        assert len(p.message) < 1000, (key, kind, p.message[:300])


# ====================================================================== merges


class CountingText(str):
    """A selector that counts how often it is compared (the parent scan was one comparison per item)."""

    compared = 0

    def __eq__(self, other):
        CountingText.compared += 1
        return str.__eq__(self, other)

    __hash__ = str.__hash__


@pytest.mark.parametrize("n", [2_000, 20_000])
def test_remove_is_linear_in_the_parent(n):
    """``$remove`` of n parent items costs O(n) comparisons, not n * n (20,000 items took 25 s)."""
    tried("merges")
    parent = {"deck": [{"text": f"c{i}", "rank": i} for i in range(n)]}
    child = {"deck": {"$remove": [CountingText(f"c{i}") for i in range(0, n, 2)]}}
    CountingText.compared = 0
    merger = _Merger(_Src({}, {}, "parent.yaml"), _Src({}, {}, "child.yaml"))
    merged = merger.merge(parent, (), child, (), ())
    assert not merger.problems
    assert [c["text"] for c in merged["deck"]] == [f"c{i}" for i in range(1, n, 2)]
    assert CountingText.compared <= 2 * n


def test_remove_of_many_items_loads(tmp_path):
    """End to end through files (the counting test above shows the cost is linear)."""
    tried("merges")
    n = 2_000  # the pure-Python YAML reader, not the merge, is what costs here
    parent = copy.deepcopy(TINY)
    parent["deck"] = [{"text": f"c{i}"} for i in range(n)]
    (tmp_path / "p.yaml").write_text(dump(parent))
    (tmp_path / "c.yaml").write_text(
        dump({"name": "child", "extends": "p.yaml", "deck": {"$remove": [f"c{i}" for i in range(n - 5)]}})
    )
    with no_hang(f"$remove of {n} items"):
        game = trickkit.load_game(str(tmp_path / "c.yaml"))
    assert game.cards == tuple(f"c{i}" for i in range(n - 5, n))
    bad = [f"nope{i}" for i in range(n)]  # every selector fails: no did-you-mean over thousands of names each
    (tmp_path / "d.yaml").write_text(dump({"name": "child", "extends": "p.yaml", "deck": {"$remove": bad}}))
    err = load_error(str(tmp_path / "d.yaml"))
    assert len(err.problems) == n and all(len(p.message) < 400 for p in err.problems)


# ====================================================================== node counts


def test_node_count_is_checked_while_composing(monkeypatch):
    """The composer stops at MAX_SOURCE_NODES + 1 nodes, not after the whole document."""
    tried("node counts")
    monkeypatch.setattr(source_module, "MAX_SOURCE_NODES", 1000)
    monkeypatch.setattr(source_module, "_precount_nodes", lambda text: None)  # the composer's own count
    calls = []
    original = source_module._Loader.compose_node

    def counting(self, parent, index):
        calls.append(1)
        return original(self, parent, index)

    monkeypatch.setattr(source_module._Loader, "compose_node", counting)
    with pytest.raises(RulesetError, match="more than 1,000 nodes as written"):
        load_yaml("x: [" + ", ".join(["1"] * 50_000) + "]\n")
    assert len(calls) <= 1001


def test_node_precount_refuses_before_composing(monkeypatch):
    tried("node counts")
    if getattr(yaml, "CBaseLoader", None) is None:  # pragma: no cover - PyYAML without libyaml
        pytest.skip("PyYAML has no libyaml: only the composer counts")
    calls = []
    monkeypatch.setattr(source_module._Loader, "compose_node", lambda *a: calls.append(1))
    with pytest.raises(RulesetError, match="nodes as written"):
        load_yaml("x: [" + ", ".join(["1"] * (MAX_SOURCE_NODES + 5)) + "]\n")
    assert calls == []


def test_a_million_item_flow_list_is_refused():
    tried("node counts")
    text = "name: big\nx: [" + ",".join(["1"] * 1_100_000) + "]\n"
    assert len(text) < source_module.MAX_TEXT_SIZE
    err = load_error(write("million.yaml", text))
    assert f"more than {MAX_SOURCE_NODES:,} nodes as written" in str(err)
    assert err.problems[0].line == 2


# ====================================================================== integers


@PROPERTY
@given(
    st.integers(4301, 20_000),
    st.sampled_from(["dec", "hex", "oct", "neg"]),
    st.sampled_from(["max_actions", "rank", "default_players", "param"]),
)
def test_huge_integer_literals(digits, base, where):
    """Integers of thousands of digits, in any base, are a located 'too large' load error."""
    tried("integers")
    literal = {"dec": "9" * digits, "neg": "-" + "9" * digits, "hex": "0x" + "f" * digits, "oct": "0o" + "7" * digits}[
        base
    ]
    doc = copy.deepcopy(TINY)
    doc["parameters"] = {"rounds": {"type": "int", "default": 1}}
    mark = "HUGE_MARK"
    if where == "max_actions":
        doc["max_actions"] = mark
    elif where == "rank":
        doc["deck"][0]["rank"] = {"from": 1, "to": mark}
    elif where == "default_players":
        doc["players"]["default"] = mark
    else:
        doc["parameters"]["rounds"]["default"] = mark
    err = load_error(write("huge_int.yaml", dump(doc).replace(mark, literal)))
    assert any("too large" in p.message and p.line > 0 for p in err.problems), str(err)[:500]
    assert len(str(err)) < 2000


@pytest.mark.parametrize(
    "kwargs",
    [{"players": 10**5000}, {"rounds": 10**5000}, {"rounds": -(10**5000)}, {"rounds": [10**5000]}],
    ids=["players", "param", "negative", "in_list"],
)
def test_huge_python_values_given_to_load_game(kwargs):
    tried("integers")
    err = load_error("skull_king", **kwargs)
    assert len(str(err)) < 1000 and "Exceeds the limit" not in str(err)


@pytest.mark.parametrize("field", ["players", "seed", "params", "scores"])
def test_huge_integers_in_records(field, tmp_path):
    """A record field of 5000 digits: a refused record, never a ValueError from json or a message."""
    tried("integers")
    huge = "9" * 5000
    record = {
        "game": "sarkophag",
        "params": {},
        "players": 4,
        "seed": 1,
        "actions": [],
        "scores": [0, 0, 0, 0],
        "winners": [0],
        "ruleset_sha256": "0",
    }
    line = json.dumps(record)
    line = line.replace(
        {"players": '"players": 4', "seed": '"seed": 1', "params": '"params": {}', "scores": '"scores": [0, 0, 0, 0]'}[
            field
        ],
        {
            "players": f'"players": {huge}',
            "seed": f'"seed": {huge}',
            "params": f'"params": {{"rounds": {huge}}}',
            "scores": f'"scores": [{huge}]',
        }[field],
    )
    path = tmp_path / "records.jsonl"
    path.write_text(line + "\n")
    results = replay_records(path)
    assert [r.status for r in results] == ["refused"] and "too large" in results[0].message
    # the same values given as Python objects (the API): a result, never an exception
    record[field] = {"players": 10**5000, "seed": 10**5000, "params": {"rounds": 10**5000}, "scores": [10**5000]}[field]
    result = replay_record(record)
    assert result.status in ("refused", "diverged") and len(result.message) < 2000


def test_huge_integers_in_scenarios():
    tried("integers", 2)
    for key in ("name", "players", "seed"):
        path = write("huge.scenario.yaml", f"{key}: {'9' * 5000}\ngame: sarkophag\nactions: []\n")
        with pytest.raises(ScenarioError, match="too large"):
            load_scenario_file(path)


# ====================================================================== lookups


@PROPERTY
@given(
    st.lists(
        st.one_of(st.integers(-5, 30), st.sampled_from(["high", "low", "7", "x_1"])),
        min_size=1,
        max_size=5,
        unique_by=str,
    )
)
def test_attribute_group_keys_of_mixed_types(keys):
    """Group keys mixing ints and texts are a located load error; one kind of key loads."""
    tried("lookups")
    doc = copy.deepcopy(TINY)
    doc["deck"][0]["attributes"] = {
        "level": {"by": "rank", "default": 0, "groups": {k: [i + 1] for i, k in enumerate(keys)}}
    }
    path = write("groups.yaml", dump(doc))
    mixed = any(isinstance(k, int) for k in keys) and any(isinstance(k, str) for k in keys)
    with no_hang("group keys"):
        try:
            game = trickkit.load_game(path)
        except RulesetError as e:
            assert mixed, e
            assert "mixes integer keys" in str(e) and e.problems[0].line > 0
            return
    assert not mixed
    assert len(game.content_hash) == 64


# ====================================================================== deep JSON


@pytest.mark.parametrize(
    "text",
    [
        "[" * 100_000 + "]" * 100_000,
        '{"a":' * 5000 + "1" + "}" * 5000,
        "[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1),
        "9" * 5000,
        '{"seed": ' + "1" * 101 + "}",
    ],
)
def test_jsonsafe_refuses_deep_nesting_and_huge_integers(text):
    tried("deep json")
    with pytest.raises(JSONLimitError):
        safe_loads(text)


def test_jsonsafe_accepts_what_states_need():
    assert safe_loads("[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH) is not None
    assert safe_loads('{"seed": 18446744073709551615}') == {"seed": 2**64 - 1}


def test_replay_of_deeply_nested_records(tmp_path):
    """``trickkit replay`` on records nested 100,000 deep: refused lines, the others still replayed."""
    tried("deep json", 2)
    good = json.dumps(trickkit.lab.simulation.play_game(trickkit.load_game("sarkophag"), 1, 0))
    path = tmp_path / "deep.jsonl"
    path.write_text("[" * 100_000 + "]" * 100_000 + "\n" + good + "\n" + '{"a": ' * 3000 + "1" + "}" * 3000 + "\n")
    results = replay_records(path)
    assert [r.status for r in results] == ["refused", "confirmed", "refused"]
    assert "nested deeper" in results[0].message
    from trickkit.cli.main import main

    assert main(["replay", str(path)]) in (1, 2)


def test_state_from_json_of_deeply_nested_json():
    tried("deep json")
    with pytest.raises(TrickkitError):
        trickkit.load_game("sarkophag").state_from_json("[" * 100_000 + "]" * 100_000)


# ====================================================================== scenarios


@pytest.mark.parametrize("params", ["{name_or_path: x}", "{name_or_path: sarkophag, players: 4}"])
def test_scenario_params_that_are_load_game_arguments(params):
    tried("scenarios")
    path = write("params.scenario.yaml", f"game: sarkophag\nparams: {params}\nactions: []\n")
    with pytest.raises(ScenarioError, match=r"\$\.params\.name_or_path: 'name_or_path' is not a game parameter"):
        load_scenario_file(path)


# ====================================================================== orphaned workers


def _children(pid: int) -> list[int]:
    out = []
    for task in os.listdir(f"/proc/{pid}/task"):
        with contextlib.suppress(OSError), open(f"/proc/{pid}/task/{task}/children") as fh:
            out += [int(x) for x in fh.read().split()]
    return out


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/status") as fh:
            return "\nState:\tZ" not in fh.read()  # a zombie has exited (nobody may reap it in a container)
    except OSError:
        return False


@pytest.mark.skipif(
    not os.path.exists(f"/proc/{os.getpid()}/task/{os.getpid()}/children"),
    reason="needs Linux /proc to find the workers",
)
@pytest.mark.parametrize("sig", ["SIGTERM", "SIGKILL"])
def test_simulate_workers_end_with_their_parent(sig):
    """SIGTERM (or even SIGKILL) to ``simulate --jobs 2`` leaves no worker behind."""
    tried("workers")
    proc = subprocess.Popen(
        [sys.executable, "-m", "trickkit.cli.main", "simulate", "sarkophag", "--games", "1000000", "--jobs", "2"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        workers: list[int] = []
        for _ in range(600):  # bounded poll: the pool starts
            workers = [p for p in _children(proc.pid) if _alive(p)]
            if len(workers) >= 2:
                break
            time.sleep(0.05)
        assert len(workers) >= 2, "the workers never started"
        proc.send_signal(getattr(signal, sig))
        proc.wait(timeout=60)
        for _ in range(200):  # bounded poll: the workers go
            if not any(_alive(p) for p in workers):
                break
            time.sleep(0.05)
        left = [p for p in workers if _alive(p)]
        for p in left:  # do not leave them to the next test
            os.kill(p, signal.SIGKILL)
        assert not left, f"workers {left} outlived their parent"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


# ====================================================================== private action choices

MASK_CASES = [
    ("priestess {card} {seat}", ["card"], "priestess W2 2", "priestess ? 2"),
    ("priestess {card} {seat}", ["card", "seat"], "priestess W2 2", "priestess ? ?"),
    ("trade {mine} for {theirs}", ["theirs"], "trade T3 for S14", "trade T3 for ?"),
    ("swap {a} {a} {b}", ["a"], "swap x x y", "swap ? ? y"),
    ("give {card} {seat}", ["card"], "give not-this-form", "give ?"),
    ("say {word}", ["word"], "say two words", "say ?"),
    ("open {card}", [], "open W2", "open W2"),
]


@pytest.mark.parametrize("template, private, text, shown", MASK_CASES)
def test_mask_text(template, private, text, shown):
    assert mask_text(template, private, text) == shown


def test_priestess_is_private_in_trumps():
    tried("privacy")
    game = trickkit.load_game("trumps")
    table = privacy_table(game.rules)
    assert seen_text(table, "priestess W2 2", 0, 1) == "priestess ? 2"
    assert seen_text(table, "priestess W2 2", 0, 2) == "priestess ? 2"
    assert seen_text(table, "priestess W2 2", 0, 0) == "priestess W2 2"
    assert seen_text(table, "priestess W2 2", 0, None) == "priestess W2 2"
    assert seen_text(table, "play W2", 0, 1) == "play W2"


def test_action_seen_by_hides_the_priestess_card():
    state = trickkit.load_game("trumps").new_initial_state(seed=1)
    other = (state.current_player() + 1) % state.game.num_players
    assert state.action_seen_by("priestess W2 2", other) == "priestess ? 2"


@pytest.mark.parametrize(
    "private, message",
    [
        ("[nope]", "'nope' is not a choice of this action"),
        ("[seat]", "choice 'seat' is not in the action text"),
        ("[card, card]", "non-unique elements"),
        ("'card'", "expected boolean or array"),
    ],
)
def test_private_declarations_are_checked(private, message):
    tried("privacy")
    text = ruleset_text("trumps").replace("private: [card]", f"private: {private}")
    if private == "[seat]":  # a choice that the text does not show
        text = text.replace('text: "priestess {card} {seat}"', 'text: "priestess {card}"')
    err = load_error(write("private.yaml", text))
    assert message in str(err), str(err)
