"""The web table's Starlette application: the lobby page, the table page, a JSON API and a
websocket per seat for live updates.

Routes:

- ``GET /``: the lobby. ``GET /api/games``: the games offered and their parameters.
  ``GET /api/tables``: the tables (no tokens, no cards). ``POST /api/tables``: open a table;
  the answer holds one link per human seat, ``/t/<table>/<seat>#<token>`` (the token rides in
  the URL fragment, which browsers never send to a server or in a Referer).
- ``GET /t/<table>/<seat>``: the table page (static; it reads the token from the fragment).
- ``GET /api/tables/<table>/seats/<seat>``: the seat's view; ``POST .../act`` with
  ``{"move": n, "action": text}``; ``GET /api/tables/<table>/record``: a finished game's
  record for ``trickkit replay``. Each needs ``Authorization: Bearer <seat token>``.
- ``WS /ws/tables/<table>/seats/<seat>``: every message carries ``token``;
  ``{"type": "hello"}`` asks for the view, ``{"type": "act", "move", "action"}`` acts. The
  server sends ``{"type": "view", "view": ...}`` to each seat after every change and
  ``{"type": "error", "error": ...}`` for a refused message.
- ``GET /games/<game>/rules``: the ruleset's text (its rulebook, with the rules' descriptions).

Requests and messages over `MAX_MESSAGE` bytes, malformed JSON, stale move numbers and
illegal actions are answered with an error and change nothing.
"""

from __future__ import annotations

import json
import os
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from trickkit import jsonsafe
from trickkit.web.tables import Registry, Table, TableError
from trickkit.web.views import seat_view

__all__ = ["MAX_MESSAGE", "create_app"]

MAX_MESSAGE = 64 * 1024
"""Largest accepted request body or websocket message, in bytes."""
STATIC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")
_HEADERS = {
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:",
}


def _error(message: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=_HEADERS)


def _ok(data: Any) -> JSONResponse:
    return JSONResponse(data, headers=_HEADERS)


async def _body(request: Request) -> Any:
    """The request's JSON body, read up to `MAX_MESSAGE` bytes. Raises `TableError`."""
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > MAX_MESSAGE):
        raise TableError(f"request larger than {MAX_MESSAGE} bytes", 413)
    data = b""
    async for chunk in request.stream():
        data += chunk
        if len(data) > MAX_MESSAGE:
            raise TableError(f"request larger than {MAX_MESSAGE} bytes", 413)
    return _parse(data)


def _parse(data: bytes | str) -> Any:
    try:
        return jsonsafe.loads(data.decode("utf-8") if isinstance(data, bytes) else data)
    except (ValueError, UnicodeDecodeError) as e:
        raise TableError(f"malformed JSON: {e}") from None


def _token(request: Request) -> str | None:
    auth = request.headers.get("authorization", "")
    scheme, _, token = auth.partition(" ")
    return token.strip() if scheme.lower() == "bearer" else None


def _int(text: str) -> int | str:
    return int(text) if text.isdigit() and len(text) < 6 else text


class Hub:
    """The open websockets of each table, by seat: after a change each gets its own seat's view."""

    def __init__(self) -> None:
        self.sockets: dict[str, set[tuple[int, WebSocket]]] = {}

    def join(self, table: Table, seat: int, ws: WebSocket) -> None:
        self.sockets.setdefault(table.id, set()).add((seat, ws))

    def leave(self, table: Table, seat: int, ws: WebSocket) -> None:
        self.sockets.get(table.id, set()).discard((seat, ws))

    async def changed(self, table: Table) -> None:
        for seat, ws in list(self.sockets.get(table.id, ())):
            try:
                await ws.send_json({"type": "view", "view": await _view(table, seat)})
            except Exception:  # a socket that closed meanwhile
                self.sockets.get(table.id, set()).discard((seat, ws))


def _view_now(table: Table, seat: int) -> dict[str, Any]:
    with table.lock:
        view = seat_view(table.game, table.state, seat, table.actors)
    view["table"] = {**table.summary(), "unit": table.game.score_unit, "rules": f"/games/{table.entry.key}/rules"}
    view["best"] = "highest" if table.game.rules.winners_highest else "lowest"
    return view


async def _view(table: Table, seat: int) -> dict[str, Any]:
    return await anyio.to_thread.run_sync(_view_now, table, seat)


def create_app(registry: Registry) -> Starlette:
    """The Starlette application serving ``registry``'s tables."""
    hub = Hub()

    def guarded(fn: Callable[[Request], Awaitable[Response]]) -> Callable[[Request], Awaitable[Response]]:
        async def handler(request: Request) -> Response:
            try:
                return await fn(request)
            except TableError as e:
                return _error(str(e), e.status)

        return handler

    async def lobby(request: Request) -> Response:
        return FileResponse(os.path.join(STATIC, "lobby.html"), headers=_HEADERS)

    async def table_page(request: Request) -> Response:
        registry.get(request.path_params["table"])
        return FileResponse(os.path.join(STATIC, "table.html"), headers=_HEADERS)

    async def games(request: Request) -> Response:
        return _ok([e.public() for e in registry.catalogue.entries.values()])

    async def rules(request: Request) -> Response:
        entry = registry.catalogue.entry(request.path_params["game"])
        from trickkit.engine.loader import ruleset_text

        if entry.shipped:
            text = ruleset_text(entry.source)
        else:
            with open(entry.source, encoding="utf-8", errors="replace") as fh:
                text = fh.read(2_000_000)
        return PlainTextResponse(text, headers=_HEADERS)

    async def tables(request: Request) -> Response:
        listed = sorted(registry.tables.values(), key=lambda t: -t.created)
        return _ok([t.summary() for t in listed[:200]])

    async def open_table(request: Request) -> Response:
        data = await _body(request)
        if not isinstance(data, dict):
            raise TableError("expected an object with 'game', 'players', 'params' and 'seats'")
        table = await anyio.to_thread.run_sync(
            registry.open, data.get("game"), data.get("players"), data.get("params"), data.get("seats")
        )
        links = [
            {"seat": i, **s.public(), **({"link": f"/t/{table.id}/{i}#{s.token}"} if s.token else {})}
            for i, s in enumerate(table.seats)
        ]
        return _ok({"table": table.id, "seats": links})

    def seat_of(request: Request) -> tuple[Table, int]:
        table = registry.get(request.path_params["table"])
        return table, table.seat_by_token(_int(request.path_params["seat"]), _token(request))

    async def view(request: Request) -> Response:
        table, seat = seat_of(request)
        return _ok(await _view(table, seat))

    async def act(table: Table, seat: int, data: Any) -> None:
        if not isinstance(data, dict):
            raise TableError("expected an object with 'move' and 'action'")

        def work() -> None:
            table.act(seat, data.get("move"), data.get("action"))
            registry.save(table)
            if table.run_bots():
                registry.save(table)

        await anyio.to_thread.run_sync(work)
        await hub.changed(table)

    async def act_http(request: Request) -> Response:
        table, seat = seat_of(request)
        await act(table, seat, await _body(request))
        return _ok(await _view(table, seat))

    async def record(request: Request) -> Response:
        table = registry.get(request.path_params["table"])
        token = _token(request)
        if not any(_matches(table, i, token) for i in range(len(table.seats))):
            raise TableError("wrong seat token", 403)
        text = json.dumps(table.record(), ensure_ascii=False) + "\n"
        name = f"{table.entry.key}-{table.id}.jsonl"
        return Response(
            text,
            media_type="application/x-ndjson",
            headers={**_HEADERS, "Content-Disposition": f'attachment; filename="{name}"'},
        )

    async def socket(ws: WebSocket) -> None:
        await ws.accept()
        try:
            table = registry.get(ws.path_params["table"])
        except TableError as e:
            await ws.send_json({"type": "error", "error": str(e)})
            await ws.close(4404)
            return
        seat_text = ws.path_params["seat"]
        joined: int | None = None
        try:
            while True:
                received = await ws.receive()
                if received["type"] == "websocket.disconnect":
                    break
                message: str | bytes = received.get("text") or received.get("bytes") or b""
                try:
                    if len(message.encode("utf-8", "replace") if isinstance(message, str) else message) > MAX_MESSAGE:
                        raise TableError(f"message larger than {MAX_MESSAGE} bytes", 413)
                    data = _parse(message)
                    if not isinstance(data, dict):
                        raise TableError("a message is an object with 'type' and 'token'")
                    try:
                        seat = table.seat_by_token(_int(seat_text), data.get("token"))
                    except TableError as e:
                        await ws.send_json({"type": "error", "error": str(e), "status": e.status})
                        if joined is None:  # never a seat of this table: nothing more to say to it
                            await ws.close(4403)
                            return
                        continue
                    if joined is None:
                        joined = seat
                        hub.join(table, seat, ws)
                    kind = data.get("type")
                    if kind == "hello":
                        await ws.send_json({"type": "view", "view": await _view(table, seat)})
                    elif kind == "act":
                        await act(table, seat, data)
                    else:
                        raise TableError("'type' must be 'hello' or 'act'")
                except TableError as e:
                    await ws.send_json({"type": "error", "error": str(e), "status": e.status, "move": table.move})
        except WebSocketDisconnect:
            pass
        finally:
            if joined is not None:
                hub.leave(table, joined, ws)

    routes = [
        Route("/", lobby),
        Route("/t/{table}/{seat}", guarded(table_page)),
        Route("/games/{game}/rules", guarded(rules)),
        Route("/api/games", guarded(games)),
        Route("/api/tables", guarded(tables), methods=["GET"]),
        Route("/api/tables", guarded(open_table), methods=["POST"]),
        Route("/api/tables/{table}/seats/{seat}", guarded(view)),
        Route("/api/tables/{table}/seats/{seat}/act", guarded(act_http), methods=["POST"]),
        Route("/api/tables/{table}/record", guarded(record)),
        WebSocketRoute("/ws/tables/{table}/seats/{seat}", socket),
        Mount("/static", app=StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes)
    app.state.registry = registry
    return app


def _matches(table: Table, seat: int, token: str | None) -> bool:
    try:
        table.seat_by_token(seat, token)
    except TableError:
        return False
    return True
