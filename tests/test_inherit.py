"""Variant inheritance (`extends`): merge semantics, chains, cycles, located errors, and
a child that overrides nothing playing exactly like its parent."""

from __future__ import annotations

import random
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import trickkit
from trickkit.engine.game import content_hash
from trickkit.engine.loader import read_document, ruleset_text
from trickkit.errors import RulesetError
from trickkit.rules.inherit import MergedLocator


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text).lstrip("\n"), "utf-8")
    return path


def problems(path) -> list[str]:
    with pytest.raises(RulesetError) as info:
        trickkit.load_game(path)
    return [str(p).splitlines()[0] for p in info.value.problems]


def line_of(path: Path, needle: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), start=1) if needle in line)


@pytest.fixture
def base(tmp_path) -> Path:
    """A copy of the shipped Skull King as a file, so tests can point inside it by line."""
    return write(tmp_path, "base.yaml", ruleset_text("skull_king"))


# ------------------------------------------------------------------ mappings, scalars, lists


def test_mapping_merges_recursively_and_child_keys_override(tmp_path):
    child = write(
        tmp_path,
        "c.yaml",
        """
        extends: skull_king
        name: sk_child
        parameters:
          rounds: {default: 5}
          extra: {type: bool, default: false}
        zones:
          won: {visibility: hidden}
    """,
    )
    doc, loc = read_document(child)
    parent, _ = read_document("skull_king")
    assert doc["parameters"]["rounds"] == {**parent["parameters"]["rounds"], "default": 5}
    assert list(doc["parameters"]) == ["rounds", "pirate_bonus", "skull_king_capture_bonus", "extra"]
    assert doc["zones"]["won"] == {"owner": "seat", "visibility": "hidden", "description": "Tricks won this round."}
    assert doc["title"] == "Skull King"  # inherited
    assert "extends" not in doc
    assert isinstance(loc, MergedLocator)
    assert trickkit.load_game(child).params == {
        "rounds": 5,
        "pirate_bonus": 30,
        "skull_king_capture_bonus": 50,
        "extra": False,
    }


def test_scalars_and_dsl_texts_are_replaced_whole(tmp_path):
    child = write(
        tmp_path,
        "c.yaml",
        """
        extends: skull_king
        name: sk_child
        max_actions: 50
        game_over: round == 2
        definitions:
          has_skull_king: "false"
    """,
    )
    doc, _ = read_document(child)
    assert doc["max_actions"] == 50
    assert doc["game_over"] == "round == 2"
    assert doc["definitions"] == {
        "led_suit": "first(p.suit for p in trick if p.kind == 'suit')",
        "has_skull_king": "false",
    }


def test_a_list_replaces_the_parents_list_whole(tmp_path):
    child = write(
        tmp_path,
        "c.yaml",
        """
        extends: skull_king
        name: sk_child
        deck:
          - {suit: {B: black}, rank: {from: 1, to: 3}, text: "{suit}{rank}", kind: suit}
          - {text: escape, kind: escape, copies: 2}
          - {text: pirate, kind: pirate}
          - {text: mermaid, kind: mermaid}
          - {text: skull_king, kind: skull_king}
          - {text: tigress, kind: tigress}
    """,
    )
    # (the parent's rules name every kind above: a deck without one of them would not load)
    assert trickkit.load_game(child).cards == (
        "B1",
        "B2",
        "B3",
        "escape",
        "escape",
        "pirate",
        "mermaid",
        "skull_king",
        "tigress",
    )


def test_null_is_a_value_not_a_deletion(tmp_path):
    child = write(
        tmp_path,
        "c.yaml",
        """
        extends: skull_king
        name: sk_child
        table_variables:
          note: null
        seat_variables:
          bonus: null
    """,
    )
    doc, _ = read_document(child)
    assert doc["seat_variables"]["bonus"] is None
    assert doc["table_variables"] == {"note": None}


def test_remove_deletes_mapping_keys(tmp_path):
    child = write(
        tmp_path,
        "c.yaml",
        """
        extends: skull_king
        name: sk_child
        $remove: [source]
        zones:
          stock: {$remove: [description]}
    """,
    )
    doc, _ = read_document(child)
    assert "source" not in doc
    assert doc["zones"]["stock"] == {"owner": "table", "visibility": "hidden"}


def test_replace_replaces_a_mapping_instead_of_merging(tmp_path):
    child = write(
        tmp_path,
        "c.yaml",
        """
        extends: skull_king
        name: sk_child
        zones:
          won: {$replace: {owner: seat}}
    """,
    )
    doc, _ = read_document(child)
    assert doc["zones"]["won"] == {"owner": "seat"}


# ------------------------------------------------------------------ list operations


def test_deck_list_operations_apply_in_place(tmp_path):
    child = write(
        tmp_path,
        "c.yaml",
        """
        extends: skull_king
        name: sk_child
        deck:
          $remove: [1]
          $change:
            "{suit}{rank}": {rank: {to: 14}}
            mermaid: {copies: 1}
          $insert_before:
            skull_king: [{text: kraken, kind: kraken}]
          $insert_after:
            skull_king: [{text: whale, kind: whale}]
          $prepend: [{text: first, kind: x}]
          $append: [{text: loot, kind: escape}]
    """,
    )
    game = trickkit.load_game(child)
    suits = [f"{s}{r}" for s in "GYPB" for r in range(1, 15)]
    assert game.cards == (
        "first",
        *suits,
        "pirate",
        "pirate",
        "pirate",
        "pirate",
        "pirate",
        "mermaid",
        "kraken",
        "skull_king",
        "whale",
        "tigress",
        "loot",
    )


def test_changing_a_step_merges_into_its_settings(tmp_path):
    child = write(
        tmp_path,
        "c.yaml",
        """
        extends: skull_king
        name: sk_child
        round:
          $change:
            tricks: {after_trick: "tricks[winner.seat] += 1"}
            effect: "for s in seats { score[s] += tricks[s] }"
            0: {count: 1}
          $insert_after:
            bid: [{effect: "bonus[0] += 0"}]
    """,
    )
    doc, loc = read_document(child)
    parent, _ = read_document("skull_king")
    assert [next(iter(s)) for s in doc["round"]] == ["deal", "bid", "effect", "tricks", "effect"]
    assert doc["round"][0] == {"deal": {"count": 1, "to": "hand", "rest": "stock"}}
    assert doc["round"][3]["tricks"] == {**parent["round"][2]["tricks"], "after_trick": "tricks[winner.seat] += 1"}
    assert doc["round"][4] == {"effect": "for s in seats { score[s] += tricks[s] }"}
    # positions follow the items: the kept winner is the parent's, the new text the child's
    assert loc.problem(("round", 3, "tricks", "winner"), "x").file == "skull_king.yaml"
    assert (
        str(loc.problem(("round", 3, "tricks", "after_trick"), "x"))
        == f"{child}:5:27: $.round[3].tricks.after_trick: x"
    )
    assert str(loc.problem(("round", 2, "effect"), "x")) == f"{child}:9:20: $.round[2].effect: x"


def test_choices_are_selected_by_value(tmp_path):
    parent = write(
        tmp_path,
        "p.yaml",
        ruleset_text("skull_king").replace(
            "parameters:\n", "parameters:\n  mode: {type: choice, default: a, choices: [a, b, c]}\n"
        ),
    )
    child = write(
        tmp_path,
        "c.yaml",
        """
        extends: p.yaml
        name: sk_child
        parameters:
          mode: {choices: {$remove: [b], $append: [d]}}
    """,
    )
    assert read_document(parent)[0]["parameters"]["mode"]["choices"] == ["a", "b", "c"]
    assert read_document(child)[0]["parameters"]["mode"]["choices"] == ["a", "c", "d"]


def test_list_operation_errors_are_located_in_the_child(tmp_path):
    child = write(
        tmp_path,
        "c.yaml",
        """
        extends: skull_king
        name: sk_child
        deck:
          $remove: [tigres, 99]
          $change: {escape: {copies: 1}}
          $apend: []
        round:
          $change: {effect: "x"}
          $remove: [effect]
        zones:
          $append: [x]
          $frob: 1
    """,
    )
    assert problems(child) == [
        f"{child}:4:13: $.deck[\"$remove\"][0]: no item 'tigres' in $.deck (did you mean 'tigress'?) (items: "
        "'{suit}{rank}', 'escape', 'pirate', 'mermaid', 'skull_king', 'tigress')",
        f'{child}:4:21: $.deck["$remove"][1]: no item 99 in $.deck (the parent\'s list has 6 items)',
        f'{child}:6:3: $.deck["$apend"]: $.deck is a list in the parent: write a list to replace it, or a mapping '
        "of list operations ($remove, $change, $insert_before, $insert_after, $prepend, $append); got key "
        "'$apend' (did you mean '$append'?)",
        f"{child}:8:13: $.round[\"$change\"].effect: item 'effect' is both removed and changed",
        f"{child}:11:3: $.zones[\"$append\"]: list operation '$append' needs a list in the parent, but $.zones is "
        "a mapping there (use '$remove: [keys]' or set keys)",
        f"{child}:12:3: $.zones[\"$frob\"]: unknown merge directive '$frob'",
    ]


def test_ambiguous_selector_asks_for_an_index(tmp_path):
    write(
        tmp_path,
        "p.yaml",
        ruleset_text("skull_king").replace("\ngame_over:", "  - effect: score[0] += 0\n\ngame_over:"),
    )
    child = write(
        tmp_path,
        "c.yaml",
        """
        extends: p.yaml
        name: sk_child
        round: {$remove: [effect]}
    """,
    )
    assert problems(child) == [
        f"{child}:3:19: $.round[\"$remove\"][0]: 'effect' matches 2 items "
        "($.round[3], $.round[4]); select one by its index"
    ]


def test_remove_errors(tmp_path):
    child = write(
        tmp_path,
        "c.yaml",
        """
        extends: skull_king
        name: sk_child
        parameters:
          $remove: [round, rounds]
          rounds: {default: 3}
    """,
    )
    assert problems(child) == [
        f"{child}:4:13: $.parameters[\"$remove\"][0]: cannot remove 'round': the parent has no such key "
        "(did you mean 'rounds'?)",
        f"{child}:4:20: $.parameters[\"$remove\"][1]: 'rounds' is both removed and set; remove it or set it, not both",
    ]


def test_directive_without_a_parent_value_is_an_error(tmp_path):
    child = write(
        tmp_path,
        "c.yaml",
        """
        extends: skull_king
        name: sk_child
        table_variables:
          pot: {$replace: 0, initial: 1}
          other: {$remove: [x]}
    """,
    )
    assert problems(child) == [
        f"{child}:4:9: $.table_variables.pot[\"$replace\"]: '$replace' has nothing to apply to: the parent has no "
        "list or mapping at $.table_variables.pot",
        f"{child}:5:11: $.table_variables.other[\"$remove\"]: '$remove' has nothing to apply to: the parent has no "
        "list or mapping at $.table_variables.other",
    ]


# ------------------------------------------------------------------ names, parents, chains, cycles


def test_child_must_declare_a_name_of_its_own(tmp_path):
    unnamed = write(tmp_path, "u.yaml", "title: x\nextends: skull_king\n")
    same = write(tmp_path, "s.yaml", "extends: skull_king\nname: skull_king\n")
    assert problems(unnamed) == [
        f"{unnamed}:2:1: $.extends: a ruleset that extends another must declare its own 'name'"
    ]
    assert problems(same) == [
        f"{same}:2:7: $.name: a variant needs a name of its own; 'skull_king' is the name of the ruleset it extends"
    ]


def test_unknown_parent_is_reported_at_extends(tmp_path):
    shipped = write(tmp_path, "a.yaml", "name: a\nextends: skull_kong\n")
    missing = write(tmp_path, "b.yaml", "name: b\nextends: ./nowhere.yaml\n")
    assert problems(shipped)[0].startswith(
        f"{shipped}:2:10: $.extends: unknown game 'skull_kong' (did you mean 'skull_king'?)"
    )
    assert problems(missing) == [
        f"{missing}:2:10: $.extends: cannot read the parent ruleset './nowhere.yaml': No such file or directory"
    ]


def test_chain_of_three(tmp_path, base):
    (tmp_path / "sub").mkdir()
    parent = write(
        tmp_path / "sub",
        "parent.yaml",
        """
        extends: ../base.yaml
        name: sk_parent
        parameters:
          rounds: {default: 4}
    """,
    )
    child = write(
        tmp_path,
        "child.yaml",
        """
        extends: sub/parent.yaml
        name: sk_child
        title: Grandchild
        parameters:
          pirate_bonus: {default: 10}
    """,
    )
    doc, loc = read_document(child)
    assert (doc["name"], doc["title"]) == ("sk_child", "Grandchild")
    assert doc["parameters"]["rounds"]["default"] == 4
    assert doc["parameters"]["pirate_bonus"]["default"] == 10
    assert doc["parameters"]["skull_king_capture_bonus"]["default"] == 50
    assert loc.filename_at(("parameters", "rounds", "default")) == str(parent)
    assert loc.filename_at(("parameters", "pirate_bonus", "default")) == str(child)
    assert loc.filename_at(("score",)) == str(base)
    assert loc.position(("score",)) == (line_of(base, "score: score[seat]"), 8)
    game = trickkit.load_game(child)
    assert game.params == {"rounds": 4, "pirate_bonus": 10, "skull_king_capture_bonus": 50}


def test_cycle_is_reported_in_the_file_that_closes_it(tmp_path):
    a = write(tmp_path, "a.yaml", "name: a\nextends: b.yaml\n")
    b = write(tmp_path, "b.yaml", "name: b\n# comment\nextends: ./a.yaml\n")
    assert problems(a) == [f"{b}:3:10: $.extends: 'extends' makes a cycle: {a} -> {b} -> {a}"]
    self_ref = write(tmp_path, "s.yaml", "name: s\nextends: s.yaml\n")
    assert problems(self_ref) == [f"{self_ref}:2:10: $.extends: 'extends' makes a cycle: {self_ref} -> {self_ref}"]


def test_error_in_a_key_written_in_the_parent_is_reported_in_the_parent(tmp_path, base):
    text = base.read_text().replace("won: {owner: seat, visibility: public", "won: {owner: seat, visibility: secret")
    base.write_text(text)
    child = write(tmp_path, "c.yaml", "extends: base.yaml\nname: sk_child\ntitle: Child\n")
    line = line_of(base, "visibility: secret")
    column = base.read_text().splitlines()[line - 1].index("secret") + 1
    assert problems(child) == [
        f"{base}:{line}:{column}: $.zones.won.visibility: expected one of 'public', "
        "'owner', 'hidden', 'top', got 'secret'"
    ]


def test_inherited_dsl_that_breaks_is_reported_at_the_parents_line(tmp_path, base):
    child = write(
        tmp_path,
        "c.yaml",
        """
        extends: base.yaml
        name: sk_child
        parameters: {$remove: [pirate_bonus]}
    """,
    )
    line = line_of(base, "after_trick: |")  # the engine places DSL errors at the text's start
    found = problems(child)
    assert found == [f"{base}:{line}:20: $.round[2].tricks.after_trick: unknown name 'pirate_bonus'"]


def test_error_in_the_child_is_reported_in_the_child(tmp_path, base):
    child = write(
        tmp_path,
        "c.yaml",
        """
        extends: base.yaml
        name: sk_child
        zones:
          won: {visibility: secret}
    """,
    )
    assert problems(child) == [
        f"{child}:4:21: $.zones.won.visibility: expected one of 'public', 'owner', 'hidden', 'top', got 'secret'"
    ]


# ------------------------------------------------------------------ content hash and identical play


def test_merged_document_is_what_is_hashed(tmp_path):
    child = write(tmp_path, "c.yaml", "extends: skull_king\nname: sk_child\n")
    parent, _ = read_document("skull_king")
    game = trickkit.load_game(child)
    assert game.content_hash == content_hash({**parent, "name": "sk_child"})
    assert game.content_hash != trickkit.load_game("skull_king").content_hash


def _play(game, seed: int) -> tuple:
    state = game.new_initial_state(seed=seed)
    rng = random.Random(seed)
    seen = []
    while not state.is_terminal():
        action = rng.choice(state.legal_actions())
        seen.append((state.current_player(), str(action)))
        state.apply_action(action)
    observation = state.observation_all()
    observation.pop("game")
    return seen, state.scores(), state.winners(), observation


@pytest.mark.parametrize("name", trickkit.list_games())
def test_child_overriding_nothing_plays_like_its_parent(name, tmp_path_factory):
    try:
        parent = trickkit.load_game(name)
    except RulesetError as e:  # a shipped ruleset that does not load is another test's failure
        pytest.skip(f"{name} does not load: {e.problems[0]}")
    folder = tmp_path_factory.mktemp("same")
    child = trickkit.load_game(write(folder, "c.yaml", f"extends: {name}\nname: {name}_same\n"))
    assert child.cards == parent.cards and child.params == parent.params

    @settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(seed=st.integers(min_value=0, max_value=2**63 - 1))
    def same_game(seed):
        assert _play(child, seed) == _play(parent, seed)

    same_game()


# ------------------------------------------------------------------ one card of a deck template


def _cards(game) -> list[tuple]:
    """Every card in deck order with all its attributes."""
    names = sorted(game.rules.deck.attrs)
    return [tuple((n, game.rules.deck.attrs[n][i]) for n in names) for i in range(len(game.cards))]


def test_change_selects_one_card_of_a_template_by_its_text(tmp_path):
    # issue 30: `$change` on `{suit}J` matched four cards; the Omnibus jack is one of them
    child = write(
        tmp_path,
        "omnibus.yaml",
        """
        extends: hearts
        name: hearts_omnibus
        deck:
          $change:
            DJ: {attributes: {points: -10}}
            H7: {attributes: {points: 2}}
    """,
    )
    parent, game = trickkit.load_game("hearts"), trickkit.load_game(child)
    assert game.cards == parent.cards  # the same deck, card for card
    changed = [(t, a, b) for t, a, b in zip(parent.cards, _cards(parent), _cards(game)) if a != b]
    assert [t for t, _, _ in changed] == ["DJ", "H7"]
    points = dict(zip(game.cards, game.rules.deck.attrs["points"]))
    assert (points["DJ"], points["H7"], points["CJ"], points["HJ"], points["H6"], points["H8"]) == (-10, 2, 0, 1, 1, 1)
    # the parent's own document, and so its content hash, is untouched
    assert content_hash(read_document("hearts")[0]) == parent.content_hash


NUMBERS = """
        format: 1
        name: numbers
        title: Numbers
        players: {min: 2, max: 2, default: 2}
        deck:
          - suit: {R: red, B: blue, G: green}
            rank: {from: 1, to: 5}
            text: "{suit}{rank}"
            rank_texts: {1: A, 5: K}
            copies: {1: 1, 2: 2, 3: 1, 4: 1, 5: 3}
            attributes: {points: 1}
        zones:
          stock: {owner: table, visibility: hidden}
          hand: {owner: seat, visibility: owner}
        round:
          - deal: {count: 2, to: hand}
        game_over: "true"
        score: "0"
"""


def test_remove_and_insert_select_one_card_keeping_the_order_and_per_rank_tables(tmp_path):
    write(tmp_path, "base.yaml", NUMBERS)
    child = write(
        tmp_path,
        "child.yaml",
        """
        extends: base.yaml
        name: numbers_variant
        deck:
          $remove: [B3]
          $change: {BK: {attributes: {points: 7}}, R2: {copies: {2: 1}}}
          $insert_after: {G2: [{text: joker}]}
    """,
    )
    parent, game = trickkit.load_game(tmp_path / "base.yaml"), trickkit.load_game(child)
    expected = list(parent.cards)
    expected.remove("B3")
    expected.remove("R2")  # one copy of R2 less
    at = max(i for i, t in enumerate(expected) if t == "G2") + 1
    expected.insert(at, "joker")
    assert list(game.cards) == expected
    points = dict(zip(game.cards, game.rules.deck.attrs["points"]))
    assert points["BK"] == 7 and points["RK"] == points["GK"] == points["B4"] == 1


def test_a_split_group_is_not_selected_by_its_index_and_unknown_cards_are_still_errors(tmp_path):
    write(tmp_path, "base.yaml", NUMBERS)
    child = write(
        tmp_path,
        "c.yaml",
        """
        extends: base.yaml
        name: numbers_child
        deck:
          $change:
            B3: {attributes: {points: -10}}
            0: {attributes: {points: 5}}
            BZ: {attributes: {points: 5}}
    """,
    )
    found = problems(child)
    assert found[0] == (
        f'{child}:6:8: $.deck["$change"][0]: item 0 of $.deck is split to select one of its cards by its text: '
        "select that card by its text, the others by theirs"
    )
    assert found[1].startswith(
        f"{child}:7:9: $.deck[\"$change\"].BZ: no item 'BZ' in $.deck (items: '{{suit}}{{rank}}')"
    )
    assert len(found) == 2
    # the hearts deck writes one group per suit and face: DJ alone in its group is selected as it is
    child = write(tmp_path, "h.yaml", "extends: hearts\nname: h2\ndeck:\n  $change:\n    DJ: {copies: 1}\n")
    assert trickkit.load_game(child).cards == trickkit.load_game("hearts").cards
