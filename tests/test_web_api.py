"""The web table's server (trickkit.web) through Starlette's TestClient: seat tokens, nothing
hidden sent to the wrong seat, bad messages refused without changing the game, resume after a
restart from the store, download of a finished game and its replay."""

from __future__ import annotations

import importlib.util
import json
import re

import pytest

pytest.importorskip("starlette")
if importlib.util.find_spec("httpx2") is None:  # Starlette's TestClient runs on httpx2 (new) or httpx (old)
    pytest.importorskip("httpx")

from starlette.testclient import TestClient

from trickkit.engine.records import replay_record
from trickkit.web.app import MAX_MESSAGE, create_app
from trickkit.web.store import Store
from trickkit.web.tables import Catalogue, Registry
from trickkit.web.views import seat_view

CATALOGUE = Catalogue.from_sources()
HEARTS_SEATS = [
    {"kind": "human", "name": "ann"},
    {"kind": "bot", "agent": "first"},
    {"kind": "human", "name": "bob"},
    {"kind": "bot", "agent": "random"},
]


_OPEN: list[TestClient] = []


def make_client(tmp_path):
    """A client of a new server on ``tmp_path``'s table folder; entered, so that all its requests
    and websockets share one event loop (as under uvicorn), and closed after the test."""
    registry = Registry(CATALOGUE, Store(tmp_path / "tables"))
    client = TestClient(create_app(registry))
    client.__enter__()
    _OPEN.append(client)
    return client, registry


@pytest.fixture(autouse=True)
def _close_clients():
    yield
    while _OPEN:
        _OPEN.pop().__exit__(None, None, None)


def open_hearts(client, seats=HEARTS_SEATS, params=None):
    r = client.post("/api/tables", json={"game": "hearts", "players": 4, "params": params or {}, "seats": seats})
    assert r.status_code == 200, r.text
    data = r.json()
    tokens = {s["seat"]: s["link"].split("#", 1)[1] for s in data["seats"] if "link" in s}
    return data["table"], tokens


def auth(token):
    return {"Authorization": f"Bearer {token}"}


def words(payload) -> set[str]:
    """Every word of every text in a JSON payload (card texts are words)."""
    return set(re.findall(r"[A-Za-z0-9:_]+", json.dumps(payload)))


def test_games_and_lobby(tmp_path):
    client, _ = make_client(tmp_path)
    games = client.get("/api/games").json()
    keys = {g["key"] for g in games}
    assert {"hearts", "six_nimmt", "saqqara"} <= keys
    hearts = next(g for g in games if g["key"] == "hearts")
    assert hearts["parameters"][0]["name"] == "limit"
    assert "source" not in hearts  # a file's path is never sent
    assert "<title>trickkit: lobby</title>" in client.get("/").text
    assert client.get("/games/hearts/rules").text.startswith("# yaml-language-server")
    assert client.get("/static/table.js").status_code == 200


def test_tokens_are_checked(tmp_path):
    client, registry = make_client(tmp_path)
    table, tokens = open_hearts(client)
    assert set(tokens) == {0, 2}
    assert client.get(f"/api/tables/{table}/seats/0", headers=auth(tokens[0])).status_code == 200
    assert client.get(f"/api/tables/{table}/seats/0").status_code == 403
    assert client.get(f"/api/tables/{table}/seats/0", headers=auth(tokens[2])).status_code == 403  # another seat's
    assert client.get(f"/api/tables/{table}/seats/1", headers=auth(tokens[0])).status_code == 403  # a bot's seat
    assert client.get(f"/api/tables/{table}/seats/9", headers=auth(tokens[0])).status_code == 404
    assert client.get("/api/tables/nope/seats/0", headers=auth(tokens[0])).status_code == 404
    # the tables list and the lobby answer carry no tokens
    listing = client.get("/api/tables").text
    assert tokens[0] not in listing and tokens[2] not in listing
    # acting for another seat with one's own token is refused, and nothing changes
    move = registry.get(table).move
    r = client.post(f"/api/tables/{table}/seats/2/act", headers=auth(tokens[0]), json={"move": move, "action": "x"})
    assert r.status_code == 403
    assert registry.get(table).move == move


def test_no_hidden_card_in_a_seats_payloads(tmp_path):
    client, registry = make_client(tmp_path)
    table_id, tokens = open_hearts(client)
    table = registry.get(table_id)
    for seat, token in tokens.items():
        payload = client.get(f"/api/tables/{table_id}/seats/{seat}", headers=auth(token)).json()
        everything = table.state.observation_all() if hasattr(table.state, "observation_all") else None
        assert everything is not None
        mine = set(table.state.observation(seat)["zones"]["hand"][seat]["cards"])
        others = {c for s, z in enumerate(everything["zones"]["hand"]) if s != seat for c in z["cards"]}
        assert others and not others & mine
        assert not words(payload) & others, f"seat {seat} was sent another seat's card"
        assert payload["observation"] == table.state.observation(seat)
        assert tokens[2 - seat] not in json.dumps(payload) and "seed" not in payload


def test_views_do_not_depend_on_hidden_cards():
    """Two deals equal in seat 0's hand but with seats 1 and 2 swapping cards: seat 0 is sent the same."""
    game = CATALOGUE.load("hearts", 4, {})
    state = game.new_initial_state(seed=5)
    hands = [z["cards"] for z in state.observation_all()["zones"]["hand"]]
    swapped = [list(h) for h in hands]
    swapped[1][0], swapped[2][0] = hands[2][0], hands[1][0]
    a = game.new_initial_state(seed=5, deals=[hands])
    b = game.new_initial_state(seed=5, deals=[swapped])
    assert seat_view(game, a, 0, []) == seat_view(game, b, 0, [])
    assert seat_view(game, a, 1, []) != seat_view(game, b, 1, [])
    # seat 1 passes a card: the others see 'pass ?', and seat 0's view still does not tell the deals apart
    actor = a.current_player()
    action = next(x.text for x in a.legal_actions() if x.text in {y.text for y in b.legal_actions()})
    a.apply_action(action)
    b.apply_action(action)
    assert seat_view(game, a, 0, [actor]) == seat_view(game, b, 0, [actor])
    assert seat_view(game, a, 3, [actor])["history"] == [{"seat": actor, "text": "pass ?"}]


def test_bad_messages_leave_the_game_as_it_was(tmp_path):
    client, registry = make_client(tmp_path)
    table_id, tokens = open_hearts(client, [{"kind": "human"}] + [{"kind": "bot", "agent": "first"}] * 3)
    table = registry.get(table_id)
    # the bots (seats 1..3) pass first; then it is seat 0's turn
    assert table.state.current_player() == 0
    before = table.state.history()
    url = f"/api/tables/{table_id}/seats/0/act"
    cases = [
        (b"{not json", 400),
        (json.dumps({"move": table.move, "action": "pass ZZ"}).encode(), 400),  # illegal
        (json.dumps({"move": table.move - 1, "action": table.state.legal_actions()[0].text}).encode(), 409),  # stale
        (json.dumps({"move": "x", "action": "pass"}).encode(), 400),
        (json.dumps([1, 2]).encode(), 400),
        (b"{" + b" " * (MAX_MESSAGE + 10) + b"}", 413),
    ]
    for body, status in cases:
        r = client.post(url, headers={**auth(tokens[0]), "Content-Type": "application/json"}, content=body)
        assert r.status_code == status, (body[:40], r.text)
        assert "error" in r.json()
        assert table.state.history() == before
    r = client.post(url, headers=auth(tokens[0]), json={"move": table.move, "action": "pass ZZ"})
    assert "not allowed" in r.json()["error"]  # the engine's reason
    ok = client.post(
        url, headers=auth(tokens[0]), json={"move": table.move, "action": table.state.legal_actions()[0].text}
    )
    assert ok.status_code == 200 and ok.json()["move"] == len(before) + 1


def test_websocket_play_and_errors(tmp_path):
    client, registry = make_client(tmp_path)
    table_id, tokens = open_hearts(client)
    table = registry.get(table_id)
    with (
        client.websocket_connect(f"/ws/tables/{table_id}/seats/2") as other,
        client.websocket_connect(f"/ws/tables/{table_id}/seats/0") as ws,
    ):
        other.send_json({"type": "hello", "token": tokens[2]})
        assert other.receive_json()["view"]["seat"] == 2
        ws.send_text("{bad")
        assert "malformed" in ws.receive_json()["error"]  # before hello: the token is still checked first
    with client.websocket_connect(f"/ws/tables/{table_id}/seats/0") as ws:
        ws.send_json({"type": "hello", "token": tokens[2]})  # seat 2's token for seat 0
        assert ws.receive_json()["status"] == 403
    with (
        client.websocket_connect(f"/ws/tables/{table_id}/seats/0") as ws,
        client.websocket_connect(f"/ws/tables/{table_id}/seats/2") as other,
    ):
        ws.send_json({"type": "hello", "token": tokens[0]})
        view = ws.receive_json()["view"]
        other.send_json({"type": "hello", "token": tokens[2]})
        other.receive_json()
        ws.send_text("x" * (MAX_MESSAGE + 1))
        assert ws.receive_json()["status"] == 413
        ws.send_json({"type": "act", "token": "wrong", "move": view["move"], "action": "pass C2"})
        assert ws.receive_json()["status"] == 403
        ws.send_json({"type": "act", "token": tokens[0], "move": view["move"] + 5, "action": "pass C2"})
        assert ws.receive_json()["status"] == 409
        seat_to_act = table.state.current_player()
        assert table.move == view["move"]
        if seat_to_act in (0, 2):
            actor, sock = (ws, tokens[0]) if seat_to_act == 0 else (other, tokens[2])
            action = table.state.legal_actions()[0].text
            actor.send_json({"type": "act", "token": sock, "move": table.move, "action": action})
            got0, got2 = ws.receive_json(), other.receive_json()
            assert got0["view"]["seat"] == 0 and got2["view"]["seat"] == 2
            assert got0["view"]["move"] == got2["view"]["move"] == table.move > view["move"]


def play_out(client, registry, table_id, tokens, limit=5000):
    table = registry.get(table_id)
    for _ in range(limit):
        if table.finished:
            return
        seat = table.state.current_player()
        view = client.get(f"/api/tables/{table_id}/seats/{seat}", headers=auth(tokens[seat])).json()
        action = view["actions"][-1]["text"]
        r = client.post(
            f"/api/tables/{table_id}/seats/{seat}/act",
            headers=auth(tokens[seat]),
            json={"move": view["move"], "action": action},
        )
        assert r.status_code == 200, r.text
    raise AssertionError("the game did not end")


def test_resume_after_restart_and_download(tmp_path):
    client, registry = make_client(tmp_path)
    table_id, tokens = open_hearts(client, params={"limit": 1})  # one hand
    table = registry.get(table_id)
    for _ in range(5):  # a few moves of the humans
        seat = table.state.current_player()
        client.post(
            f"/api/tables/{table_id}/seats/{seat}/act",
            headers=auth(tokens[seat]),
            json={"move": table.move, "action": table.state.legal_actions()[0].text},
        )
    history = table.state.history()
    assert client.get(f"/api/tables/{table_id}/record", headers=auth(tokens[0])).status_code == 409  # not over
    # a new server on the same folder: the table is back where it was, with the same tokens
    client2, registry2 = make_client(tmp_path)
    assert registry2.resume() == []
    again = registry2.get(table_id)
    assert again.state.history() == history and again.actors == table.actors
    view = client2.get(f"/api/tables/{table_id}/seats/0", headers=auth(tokens[0])).json()
    assert view["observation"] == table.state.observation(0)
    play_out(client2, registry2, table_id, tokens)
    r = client2.get(f"/api/tables/{table_id}/record", headers=auth(tokens[2]))
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    assert client2.get(f"/api/tables/{table_id}/record").status_code == 403
    record = json.loads(r.text)
    assert replay_record(record).status == "confirmed"
    out = tmp_path / "game.jsonl"
    out.write_text(r.text)
    from trickkit.cli.main import main

    assert main(["replay", str(out)]) == 0


def test_opening_bad_tables(tmp_path):
    client, _ = make_client(tmp_path)
    bad = [
        {"game": "nope", "seats": []},
        {"game": "hearts", "players": 3, "seats": [{"kind": "human"}] * 3},
        {"game": "hearts", "players": 4, "seats": [{"kind": "human"}]},
        {"game": "hearts", "players": 4, "seats": [{"kind": "alien"}] * 4},
        {"game": "hearts", "players": 4, "seats": [{"kind": "bot", "agent": "ismcts:iterations=999999"}] * 4},
        {"game": "hearts", "players": 4, "params": {"limit": 0}, "seats": [{"kind": "human"}] * 4},
        {"game": "hearts", "players": 4, "params": {"nope": 1}, "seats": [{"kind": "human"}] * 4},
        {"game": "../../etc/passwd", "seats": []},
    ]
    for body in bad:
        r = client.post("/api/tables", json=body)
        assert r.status_code in (400, 404) and r.json()["error"], body


@pytest.mark.parametrize("game", list(CATALOGUE.entries))
def test_every_shipped_game_plays_with_bots_and_a_human(tmp_path, game):
    client, registry = make_client(tmp_path)
    n = CATALOGUE.entries[game].players_default
    seats = [{"kind": "human"}] + [{"kind": "bot", "agent": "random"}] * (n - 1)
    r = client.post("/api/tables", json={"game": game, "players": n, "seats": seats})
    assert r.status_code == 200, r.text
    data = r.json()
    play_out(client, registry, data["table"], {0: data["seats"][0]["link"].split("#")[1]})
    table = registry.get(data["table"])
    assert replay_record(table.record()).status == "confirmed"


def test_a_ruleset_file_from_the_command_line(tmp_path):
    """The tutorial's variant, given as a file: offered in the lobby, played, downloaded with its path."""
    import pathlib

    variant = pathlib.Path(__file__).resolve().parent.parent / "docs" / "tutorial" / "sarkophag_open_leads.yaml"
    catalogue = Catalogue.from_sources([str(variant)])
    entry = next(e for e in catalogue.entries.values() if not e.shipped)
    registry = Registry(catalogue, Store(tmp_path / "tables"))
    client = TestClient(create_app(registry))
    with client:
        games = client.get("/api/games").json()
        assert any(g["key"] == entry.key and not g["shipped"] for g in games)
        assert str(variant) not in json.dumps(games)  # the server's paths stay on the server
        n = entry.players_default
        r = client.post(
            "/api/tables", json={"game": entry.key, "seats": [{"kind": "human"}] + [{"kind": "bot"}] * (n - 1)}
        )
        assert r.status_code == 200, r.text
        data = r.json()
        play_out(client, registry, data["table"], {0: data["seats"][0]["link"].split("#")[1]})
        record = registry.get(data["table"]).record()
        assert record["ruleset"] == variant.name  # the server's folders stay on the server
        assert replay_record(record, base=str(variant.parent)).status == "confirmed"  # beside the ruleset
