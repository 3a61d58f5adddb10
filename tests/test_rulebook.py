"""Rulebooks computed from the rules (trickkit.lab.rulebook, `trickkit rulebook`) and the freshness of the
generated docs files (trickkit.cli.docsync)."""

from __future__ import annotations

import base64
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import trickkit
from trickkit.cli import docsync
from trickkit.cli.main import main
from trickkit.engine.loader import read_document
from trickkit.lab.rulebook import build, flow_diagram, rulebook, tables
from trickkit.lab.rulebook.blocks import Table
from trickkit.lab.rulebook.flowsvg import flow_svg
from trickkit.lab.rulebook.rdiff import diff_rulebooks, diff_tables

ROOT = Path(__file__).resolve().parents[1]
TUTORIAL = ROOT / "docs" / "tutorial" / "sarkophag_open_leads.yaml"
GAMES = trickkit.list_games()


@pytest.mark.parametrize("game", [*GAMES, str(TUTORIAL)])
@pytest.mark.parametrize("fmt", ["md", "html"])
def test_rulebook_renders_every_game(game, fmt):
    text = rulebook(game, fmt)
    loaded = trickkit.load_game(game)
    assert loaded.content_hash in text
    for section in ("The deck", "The flow of a game", "Who wins a trick", "What each seat sees", "Parameters"):
        assert section in text
    if fmt == "html":
        assert text.startswith("<!DOCTYPE html>") and "<table>" in text and "http" not in text
        assert '<figure class="flow"><svg ' in text and "<?xml" not in text  # the diagram inline
    else:
        assert "![Flow of a round](data:image/svg+xml;base64," in text  # the page carries its diagram


def test_public_api_and_game_objects():
    game = trickkit.load_game("sarkophag", players=3, hand_size=5)
    text = trickkit.rulebook(game)
    assert "for 3 players" in text and "hand_size=5" in text
    with pytest.raises(ValueError):
        trickkit.rulebook("sarkophag", "pdf")


def test_deck_values_are_evaluated_per_card():
    deck = tables(build("sarkophag"))["deck"]
    heads = deck.header.index("heads")
    by_card = {row[0]: row[heads] for row in deck.rows}
    assert by_card["`15`"] == "5" and by_card["`1`"] == "0" and by_card["`4`"] == "2" and by_card["`3`"] == "1"
    hearts = tables(build("hearts"))["deck"]
    points = hearts.header.index("points")
    assert {row[0]: row[points] for row in hearts.rows}["`SQ`"] == "13"


def _cell(table, led, other):
    col = table.header.index(other)
    return next(row[col] for row in table.rows if row[0] == led)


def test_trick_ranking_matches_the_rules():
    """Pairs computed by hand from the rulebooks of the games."""
    sk = tables(build("skull_king"))["winner"]
    assert _cell(sk, "green", "black") == "other card"  # black is trump
    assert _cell(sk, "black", "green") == "led card"
    assert _cell(sk, "green", "yellow") == "led card"  # off-suit never wins
    assert _cell(sk, "green", "green") == "higher rank"
    assert _cell(sk, "pirate", "skull_king") == "other card"
    assert _cell(sk, "skull_king", "mermaid") == "other card"  # the mermaid catches the Skull King
    assert _cell(sk, "escape", "green") == "other card"
    assert _cell(sk, "pirate", "pirate") == "led card"  # the first pirate wins
    oh = tables(build("oh_hell"))
    assert _cell(oh["winner `turnup` empty"], "clubs", "hearts") == "led card"  # no trump
    assert _cell(oh["winner `turnup` holds `H2` (hearts)"], "clubs", "hearts") == "other card"
    spades = tables(build("spades"))["winner"]
    assert _cell(spades, "hearts", "spades") == "other card"
    assert _cell(spades, "spades", "hearts") == "led card"


def test_follow_duties_and_bids_are_computed():
    books = tables(build("spades"))
    follow = books["follow"]
    assert any("`H" in row[1] and "led" in row[0] for row in follow.rows)
    bids = books["bids"]
    assert all(row[2] == "0-13" for row in bids.rows[:4])
    sark = tables(build("sarkophag"))["follow"]
    lower = next(row for row in sark.rows if row[0].startswith("`31` led, then `16`"))
    assert lower[1] == "`1`, `8`, `14`, `21`, `27`" and lower[2] == "must play lower than 31"


def test_cli_rulebook(tmp_path, capsys):
    assert main(["rulebook", "sarkophag"]) == 0
    assert "# Sarkophag: the rulebook" in capsys.readouterr().out
    out = tmp_path / "sk.html"
    assert main(["rulebook", "skull_king", "--format", "html", "--out", str(out), "--param", "rounds=3"]) == 0
    assert "rounds=3" in out.read_text("utf-8")


# ------------------------------------------------------------------ the flow diagram

SVG = "{http://www.w3.org/2000/svg}"


def _steps(items):
    """Every step of a round (the steps inside repeats too, the repeats themselves not)."""
    for item in items:
        if "repeat" in item:
            yield from _steps(item["repeat"]["steps"])
        else:
            yield item


def _repeats(items):
    for item in items:
        if "repeat" in item:
            yield item
            yield from _repeats(item["repeat"]["steps"])


def _texts(element):
    return [" ".join(t.itertext()) for t in element.iter(f"{SVG}text")]


@pytest.mark.parametrize("game", [*GAMES, str(TUTORIAL)])
def test_the_flow_diagram_has_a_box_per_step(game):
    doc, _ = read_document(game)
    svg = flow_diagram(game)
    root = ET.fromstring(svg.encode("utf-8"))  # well-formed XML
    assert root.tag == f"{SVG}svg" and float(root.get("width")) > 0 and float(root.get("height")) > 0
    groups = list(root.iter(f"{SVG}g"))
    boxes = [g for g in groups if g.get("class") == "step"]
    steps = list(_steps(doc["round"]))
    assert [g.get("data-kind") for g in boxes] == [next(iter(k for k in s if k != "when")) for s in steps]
    assert all(g.find(f"{SVG}rect") is not None for g in boxes)
    frames = [g for g in groups if g.get("class") == "repeat"]
    assert len(frames) == len(list(_repeats(doc["round"])))
    ends = [g for g in groups if g.get("class") == "round-end"]
    end = " ".join(_texts(ends[0]))
    assert len(ends) == 1 and ("game over when" in end or "the game is over (one round)" in end)
    assert flow_diagram(game) == svg  # the same bytes every time


def test_the_flow_diagram_labels_repeats_and_conditions():
    six = ET.fromstring(flow_diagram("six_nimmt").encode("utf-8"))
    assert "repeat hand_size times" in _texts(six)
    euchre = ET.fromstring(flow_diagram("euchre").encode("utf-8"))
    notes = " ".join(_texts(euchre))
    assert "when ordered == null" in notes and "when maker != null" in notes
    whens = [g for g in euchre.iter(f"{SVG}g") if g.get("class") == "when"]
    assert [g.findtext(f"{SVG}title") for g in whens] == [
        "when: ordered == null",
        "when: ordered != null and not sits(dealer)",
        "when: maker != null",
    ]


def test_the_flow_diagram_escapes_text_and_nests_repeats():
    doc = {
        "title": "A <b>&amp; game",
        "round": [
            {"deal": {"count": 3}},
            {
                "when": "a < b and c > d",
                "repeat": {
                    "until": "x & y",
                    "steps": [
                        {"repeat": {"count": 2, "steps": [{"effect": "say('<\"&'>')"}]}},
                        {"tricks": {"count": 3}},
                    ],
                },
            },
        ],
        "game_over": "round == 3",
    }
    svg = flow_svg(doc, "A <b>&amp; game")
    root = ET.fromstring(svg.encode("utf-8"))
    assert root.findtext(f"{SVG}title") == "A <b>&amp; game"
    texts = " ".join(_texts(root))
    assert "say('<\"&'>')" in texts and "when a < b and c > d" in texts
    assert "repeat until x & y" in texts and "repeat 2 times" in texts
    frames = [g.find(f"{SVG}rect") for g in root.iter(f"{SVG}g") if g.get("class") == "repeat"]
    outer, inner = (float(f.get("width")) for f in frames)
    assert outer > inner  # the inner repeat's frame inside the outer one
    assert [g.get("data-kind") for g in root.iter(f"{SVG}g") if g.get("class") == "step"] == [
        "deal",
        "effect",
        "tricks",
    ]


def test_the_markdown_shows_the_diagram_and_lists_the_steps():
    text = rulebook("six_nimmt", flow_image="img/six_nimmt-flow.svg")
    assert "![Flow of a round](img/six_nimmt-flow.svg)" in text
    assert "- repeat hand_size times:" in text and "- (in the repeat) turns from left_of(dealer)" in text
    carried = rulebook("six_nimmt").split("](data:image/svg+xml;base64,", 1)[1].split(")", 1)[0]
    assert base64.b64decode(carried).decode("utf-8") == flow_diagram("six_nimmt")
    page = (ROOT / "docs" / "games" / "six_nimmt.md").read_text("utf-8")
    assert "![Flow of a round](img/six_nimmt-flow.svg)" in page
    assert (ROOT / "docs" / "games" / "img" / "six_nimmt-flow.svg").read_text("utf-8") == flow_diagram("six_nimmt")


# ------------------------------------------------------------------ freshness


def test_generated_docs_are_fresh():
    assert docsync.stale(ROOT) == [], "run: python -m trickkit.cli.docsync --write"


def test_every_game_page_embeds_its_rulebook():
    for game in GAMES:
        page = (ROOT / "docs" / "games" / f"{game}.md").read_text("utf-8")
        assert "<!-- rulebook:begin -->" in page and trickkit.load_game(game).content_hash in page
    for path in ("README.md", "docs/getting-started.md"):
        text = (ROOT / path).read_text("utf-8")
        assert all(f"`{game}`" in text.split("<!-- games:begin -->")[1] for game in GAMES)


def test_a_changed_card_value_makes_the_page_stale(tmp_path, monkeypatch):
    """A copy of the checkout's docs and rulesets with Sarkophag's card 15 worth 4 heads, not 5."""
    for part in ("docs", "README.md"):
        src = ROOT / part
        (shutil.copytree if src.is_dir() else shutil.copy)(src, tmp_path / part)
    folder = tmp_path / "rulesets"
    shutil.copytree(ROOT / "rulesets", folder)
    path = folder / "sarkophag.yaml"
    text = path.read_text("utf-8")
    assert "5: [15, 25, 35, 45]" in text
    path.write_text(text.replace("5: [15, 25, 35, 45]", "5: [25, 35, 45]\n          4: [15]"), "utf-8")
    page = "docs/games/sarkophag.md"
    monkeypatch.setattr(
        docsync, "rulebook_section", lambda game: rulebook(str(folder / f"{game}.yaml"), "md", base_level=2)
    )
    assert page in docsync.stale(tmp_path)
    assert docsync.expected(tmp_path, only=[page])[page] != (ROOT / page).read_text("utf-8")
    docsync.write(tmp_path)
    assert "| `15` | number | 15 | 1 | 4 |" in (tmp_path / page).read_text("utf-8")


def test_a_changed_round_makes_the_flow_diagram_stale(tmp_path, monkeypatch):
    """A copy of the checkout's docs with Sarkophag's round given a second, conditional deal."""
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    shutil.copy(ROOT / "README.md", tmp_path / "README.md")
    folder = tmp_path / "rulesets"
    shutil.copytree(ROOT / "rulesets", folder)
    path = folder / "sarkophag.yaml"
    text = path.read_text("utf-8")
    assert "round:\n  - deal:" in text
    path.write_text(text.replace("round:\n", "round:\n  - when: round > 1\n    deal: {count: 1}\n", 1), "utf-8")
    monkeypatch.setattr(docsync, "flow_diagram", lambda game: flow_diagram(str(folder / f"{game}.yaml")))
    image = "docs/games/img/sarkophag-flow.svg"
    assert docsync.stale(tmp_path) == [image]
    docsync.write(tmp_path)
    svg = (tmp_path / image).read_text("utf-8")
    assert "when round &gt; 1" in svg and svg.count('class="step"') == 3
    assert docsync.stale(tmp_path) == []


# ------------------------------------------------------------------ diff


def test_rulebook_diff_shows_changed_rows():
    lines = diff_rulebooks("skull_king", "skull_king_2021")
    assert any(line.startswith("rulebook deck: added") for line in lines)
    assert any(line.startswith("rulebook seats: added sunk") for line in lines)
    # spades has a trump suit, hearts none: the led heart now holds against a spade
    assert "rulebook winner: hearts: spades other card -> led card" in diff_rulebooks("spades", "hearts")
    assert diff_rulebooks("skull_king", "skull_king") == []


def test_rulebook_diff_ignores_a_column_empty_in_both():
    """A column only one deck table has (skull_king's "played as", gone with the tigress) that is
    empty in a row does not make that row a change: no "rulebook deck: G1: " line with nothing
    after it."""
    a = Table("deck", ("card", "rank", "played as"), (("`G1`", "1", ""), ("`T`", "", "pirate")))
    b = Table("deck", ("card", "rank"), (("`G1`", "1"),))
    assert diff_tables({"deck": a}, {"deck": b}) == ["rulebook deck: removed T"]


def test_cli_diff_shows_rulebook_rows(capsys):
    assert main(["diff", "skull_king", "skull_king_2021"]) == 0
    assert "rulebook deck: added" in capsys.readouterr().out


def test_what_each_seat_sees_states_seen_by_and_variable_visibility():
    """Zones with `seen_by` and variables that are not public say so (not "its owner only" or
    "every seat" alone)."""
    seats = tables(build("bridge"))["seats"]
    sees = {row[0]: row[3] for row in seats.rows}
    assert sees["`hand`"] == (
        "its owner only (others see how many cards); also each `seat` for which `owner == dummy and cards_played > 0`"
    )
    assert sees["`contract`"] == "every seat"
    counter = tables(build(str(ROOT / "tests" / "visibility_rulesets" / "private_counter.yaml")))["seats"]
    sees = {row[0]: row[3] for row in counter.rows}
    assert sees["`counted`"] == "its owner only (a team variable: the team's seats)"
    assert sees["`total`"] == "nobody; also each `seat` for which `seat == 0`"
    assert sees["`played`"] == "every seat"
