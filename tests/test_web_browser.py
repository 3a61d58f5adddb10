"""The web table in a real browser: Playwright drives the machine's headless Chromium through
the lobby and a whole game of Hearts and of Love Letter, two human seats in two browser contexts plus two bots,
and checks that each page shows only its own hand.

Skipped when the ``web`` extra, Playwright or Chromium (``/usr/bin/chromium``) is missing;
``playwright install`` (a browser download) is never needed. The server binds 127.0.0.1 on a
free port, every loop is bounded and the server stops by itself at the end.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import threading
import time

import pytest

pytest.importorskip("starlette")
uvicorn = pytest.importorskip("uvicorn")
sync_api = pytest.importorskip("playwright.sync_api")

from trickkit.engine.records import replay_record  # noqa: E402
from trickkit.web.app import create_app  # noqa: E402
from trickkit.web.store import Store  # noqa: E402
from trickkit.web.tables import Catalogue, Registry  # noqa: E402
from trickkit.web.views import visible_cards  # noqa: E402

CHROMIUM = os.environ.get("TRICKKIT_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="no Chromium at /usr/bin/chromium")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def server(tmp_path):
    registry = Registry(Catalogue.from_sources(), Store(tmp_path / "tables"))
    port = free_port()
    config = uvicorn.Config(create_app(registry), host="127.0.0.1", port=port, log_level="warning")
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not srv.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}", registry
    srv.should_exit = True
    thread.join(timeout=20)


@pytest.fixture
def browser():
    with sync_api.sync_playwright() as pw:
        try:
            b = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        except Exception as e:  # a Chromium that cannot start here
            pytest.skip(f"Chromium does not start: {e}")
        yield b
        b.close()


def words(text: str) -> set[str]:
    return set(re.findall(r"[A-Za-z0-9:_]+", text))


def check_only_own_hand(page, table, seat: int) -> None:
    """The page shows its seat's hand and none of the cards hidden from that seat."""
    obs = table.state.observation(seat)
    mine = [el.get_attribute("data-card") for el in page.query_selector_all("#mine [data-card]")]
    shown = {el.get_attribute("data-card") for el in page.query_selector_all("[data-card]")}
    assert shown <= visible_cards(obs), (seat, shown - visible_cards(obs))
    assert set(mine) == {c for name in obs["seat_zones"] for c in obs["zones"][name][seat].get("cards", [])}
    everything = table.state.observation_all()
    # the seat's transcript may name cards it has seen go (a King's trade: "your Prince went to seat 2");
    # the engine's own no-leak tests check that transcript
    known = (
        visible_cards(obs) | words(" ".join(table.state.history_seen_by(seat))) | words(table.state.transcript(seat))
    )
    if table.state.current_player() == seat:  # its choices may name cards (a guess names any card)
        known |= words(" ".join(a.text for a in table.state.legal_actions()))
    hidden = {c for s, z in enumerate(everything["zones"]["hand"]) if s != seat for c in z["cards"]} - known
    assert not words(page.inner_text("body")) & hidden, f"seat {seat}'s page shows a hidden card"


@pytest.mark.parametrize(
    ("name", "param", "value"),
    [("hearts", "limit", "1"), ("love_letter", "tokens", "1")],  # one hand, one round: the whole game
)
def test_a_whole_game_by_clicking(server, browser, tmp_path, name, param, value):
    base, registry = server
    lobby = browser.new_page()
    lobby.goto(base + "/")
    lobby.select_option("#game", name)
    lobby.fill(f"#param-{param}", value)
    lobby.select_option("#seat-0-kind", "human")
    lobby.select_option("#seat-1-kind", "random")
    lobby.select_option("#seat-2-kind", "human")
    lobby.select_option("#seat-3-kind", "first")
    lobby.fill("#seat-0-name", "ann")
    lobby.fill("#seat-2-name", "bob")
    lobby.click("#open")
    lobby.wait_for_selector(".seat-link")
    links = [a.get_attribute("href") for a in lobby.query_selector_all(".seat-link")]
    assert len(links) == 2 and all("#" in link for link in links)
    table = next(iter(registry.tables.values()))
    pages = {}
    for seat, link in zip((0, 2), links, strict=True):
        context = browser.new_context()  # each human its own browser: no shared storage
        page = context.new_page()
        page.goto(link)
        page.wait_for_selector("body[data-move]")
        pages[seat] = page
    for _ in range(400):  # about 32 clicks per human seat in one hand of Hearts
        if table.finished:
            break
        deadline = time.monotonic() + 20
        while not table.finished and table.state.current_player() not in pages:  # the bots are moving
            assert time.monotonic() < deadline, "a bot did not move"
            time.sleep(0.02)
        if table.finished:
            break
        seat = table.state.current_player()
        page = pages[seat]
        move = table.move
        page.wait_for_selector(f'body[data-move="{move}"][data-turn="mine"]')
        check_only_own_hand(page, table, seat)
        buttons = page.query_selector_all("button.act")
        playable = page.query_selector_all("#mine .card.playable")
        (buttons[0] if buttons else playable[0]).click()
        deadline = time.monotonic() + 20
        while table.move == move:
            assert time.monotonic() < deadline, page.inner_text("#error")
            time.sleep(0.02)
    assert table.finished
    for seat, page in pages.items():
        page.wait_for_selector("#winners")
        check_only_own_hand(page, table, seat)
        assert "game over" in page.inner_text("#status")
    pages[0].screenshot(path=str(tmp_path / "table.png"))
    with pages[0].expect_download() as download:
        pages[0].click("#download")
    with open(download.value.path(), encoding="utf-8") as fh:
        record = json.loads(fh.read())
    assert replay_record(record).status == "confirmed"
