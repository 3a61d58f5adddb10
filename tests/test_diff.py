"""`trickkit diff`: the differences between two resolved rulesets, in plain words."""

from __future__ import annotations

import textwrap

from trickkit.cli.main import main
from trickkit.lab.diff import diff_rulesets

VARIANT = """
extends: skull_king
name: sk_variant
title: Skull King variant
players: {max: 8}
parameters:
  rounds: {default: 5}
  $remove: [skull_king_capture_bonus]
  loot: {type: bool, default: false}
deck:
  $remove: [tigress]
  $change:
    "{suit}{rank}": {rank: {to: 14}}
    escape: {copies: 3}
  $append:
    - {text: kraken, kind: kraken}
zones:
  won: {visibility: hidden}
  discard: {owner: table}
seat_variables:
  $remove: [bonus]
definitions:
  led_suit: |
    first(p.suit
          for p in trick if p.kind == 'suit')
  kraken_played: any(p.kind == 'kraken' for p in trick)
round:
  $change:
    tricks:
      after_trick: "tricks[winner.seat] += 1"
      next_leader: winner.seat
    effect: "for s in seats { score[s] += tricks[s] }"
  $insert_after:
    bid: [{effect: "score[0] += 0"}]
game_over: round == rounds or round == 8
"""


def test_diff_lists_every_kind_of_change(tmp_path):
    path = tmp_path / "v.yaml"
    path.write_text(textwrap.dedent(VARIANT), "utf-8")
    assert diff_rulesets("skull_king", path) == [
        "metadata name: 'skull_king' -> 'sk_variant'",
        "metadata title: 'Skull King' -> 'Skull King variant'",
        "players: 2-6 (default 4) -> 2-8 (default 4)",
        "cards added (5): G14, Y14, P14, B14, kraken",
        "cards removed (3): escape ×2, tigress",  # noqa: RUF001 (the diff writes a multiplication sign)
        "parameter added: loot (bool, default false)",
        "parameter removed: skull_king_capture_bonus (was int, default 50)",
        "parameter rounds: default 10 -> 5",
        "zone added: discard (owner 'table', visibility 'public')",
        "zone won: visibility 'public' -> 'hidden'",
        "seat variable removed: bonus",
        "definition added: kraken_played = any(p.kind == 'kraken' for p in trick)",
        "step added: round[2] effect: score[0] += 0",
        "round[2] tricks (now round[3]) after_trick changed: tricks[winner.seat] += 1 if winner.kind == "
        "'skull_king' { bonus[winner.seat] += pirate_bonus * count(p for p in trick if p.card.kind in "
        "['pirate', 'tigress']) } if winner.kind == 'mermaid' and has_skull_king { bonus[winner.seat] += "
        "skull_king_capture_bonus } -> tricks[winner.seat] += 1",
        "round[2] tricks (now round[3]) next_leader added: winner.seat",
        "round[3] effect (now round[4]) changed: for s in seats { if bid[s] == 0 { score[s] += if tricks[s] == 0 "
        "then 10 * round else -10 * round } elif tricks[s] == bid[s] { score[s] += 20 * bid[s] + bonus[s] } else "
        "{ score[s] -= 10 * abs(tricks[s] - bid[s]) } } -> for s in seats { score[s] += tricks[s] }",
        "game_over changed: round == rounds -> round == rounds or round == 8",
    ]


def test_whitespace_only_dsl_changes_are_not_differences(tmp_path):
    path = tmp_path / "same.yaml"
    path.write_text(
        "extends: skull_king\nname: sk_same\ndefinitions:\n"
        "  has_skull_king: |\n    any(p.kind == 'skull_king'\n        for p in trick)\n",
        "utf-8",
    )
    assert diff_rulesets("skull_king", path) == ["metadata name: 'skull_king' -> 'sk_same'"]
    assert diff_rulesets("skull_king", "skull_king") == []


def test_card_attribute_changes_are_reported(tmp_path):
    path = tmp_path / "modes.yaml"
    path.write_text(
        "extends: skull_king\nname: sk_modes\ndeck:\n  $change:\n"
        "    tigress: {modes: {pirate: {kind: mermaid}}}\n    mermaid: {kind: siren}\n",
        "utf-8",
    )
    assert diff_rulesets("skull_king", path)[1:] == [
        "card mermaid: kind 'mermaid' -> 'siren'",
        "card tigress: as tigress:pirate: kind 'pirate' -> 'mermaid'",
    ]


def test_cli_diff(tmp_path, capsys):
    assert main(["diff", "skull_king", "skull_king"]) == 0
    assert capsys.readouterr().out == "no differences between skull_king and skull_king\n"
    path = tmp_path / "v.yaml"
    path.write_text("extends: skull_king\nname: sk_v\nparameters: {rounds: {default: 3}}\n", "utf-8")
    assert main(["diff", "skull_king", str(path)]) == 0
    assert capsys.readouterr().out == "metadata name: 'skull_king' -> 'sk_v'\nparameter rounds: default 10 -> 3\n"
