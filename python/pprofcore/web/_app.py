"""The explorer's ASGI application (Starlette), with pprof's paths.

``/ui/`` (graph), ``/ui/top``, ``/ui/flamegraph``, ``/ui/peek``,
``/ui/source``, ``/ui/disasm`` and ``/ui/labels`` all serve one page; its
script reads the path and query (pprof's ``si``, ``f``, ``i``, ``h``, ``s``,
``sf``, ``tf``, ``ti``, ``ts``, ``th``, ``g``) and fetches
``/ui/data/<view>?<query>``, the view's JSON computed by :mod:`._views` in a
worker thread (the C++ core releases the GIL). ``/ui/download`` gives the
refined profile; ``/ui/saveconfig`` and ``/ui/deleteconfig`` keep named
configurations for the session. Everything else is :mod:`._security`'s.
"""

from __future__ import annotations

import html
import json
from typing import Iterable, Optional
from urllib.parse import parse_qsl

import numpy as np

from ..display.html import package_asset
from . import _views
from ._security import Guard, allowed_hosts
from ._session import Session
from ._state import VIEWS, State

# Path under /ui/ -> view (pprof's names; the graph is /ui/ itself).
PAGES = {"": "graph", "top": "top", "flamegraph": "flamegraph", "peek": "peek", "source": "source"}
PAGES.update({"disasm": "disasm", "labels": "labels", "timeline": "timeline"})
# The files under /ui/assets/: name -> (package, file, media type).
ASSETS = {
    "explorer.js": ("pprofcore.web", "explorer.js", "text/javascript"),
    "explorer.css": ("pprofcore.web", "explorer.css", "text/css"),
    "flamegraph.js": ("pprofcore.display", "flamegraph.js", "text/javascript"),
    "flamegraph.css": ("pprofcore.display", "flamegraph.css", "text/css"),
    "timeline.js": ("pprofcore.display", "timeline.js", "text/javascript"),
    "timeline.css": ("pprofcore.display", "timeline.css", "text/css"),
}


def to_json(obj) -> str:
    """JSON in ASCII (lone surrogates in names survive as escapes) with ``<``
    escaped, so the same text is safe in a response and in a ``<script>``."""
    return json.dumps(obj, ensure_ascii=True, separators=(",", ":"), default=_plain).replace("<", "\\u003c")


def _plain(v):
    if isinstance(v, np.generic):
        return v.item()
    raise TypeError(f"not JSON: {type(v).__name__}")


def asset(name: str) -> str:
    package, file, _ = ASSETS[name]
    return package_asset(package, file)


def meta(session: Session) -> dict:
    """What the page needs before its first request: the profiles, their sample
    types, whether every view is a diff, the saved configurations (the rest,
    fixed for the session's life, is computed once)."""
    facts = session.views.get(("page facts",), lambda: _profile_facts(session))  # beside the views' payloads
    return {**facts, "configs": dict(session.configs)}


def _profile_facts(session: Session) -> dict:
    p = session.profiles[0][1]
    return {
        "title": session.title,
        "profiles": [name for name, _ in session.profiles],
        "sample_types": [t for t, _ in p.sample_types],
        "default_sample_type": p.sample_types[p.sample_type_index(None)][0],
        "base": session.base is not None,
        # Disassemble needs binaries: offered when a mapping names a file
        "disasm": any(bool(p._core.string(int(f))) for f in p.mappings["filename"]),
        "views": list(VIEWS),
        # The Timeline tab is offered when samples carry times (Profile.timestamps)
        "timestamps": p.timestamps is not None,
    }


def warm(session: Session, view: str = "graph") -> None:
    """Computes what the first page asks for (the page's facts and ``view``'s
    data in the session's initial state) into the session's caches: started on
    a thread while the server starts, so the first requests find them ready
    (a request asking meanwhile waits for the same computation)."""
    try:
        meta(session)
        view_json(session, view, session.initial)
    except Exception:  # noqa: BLE001 - the request that asks for it computes it again and answers the error
        pass


def view_json(session: Session, name: str, state: State) -> str:
    """The JSON text of a view's data, cached as text: a state seen before
    (back, forward, a search typed in a view that ignores it) is answered
    without encoding the payload again."""
    key = (name, _views.view_state(name, state))
    return session.texts.get(key, lambda: to_json(_views.view(session, name, state)))


def page(session: Session) -> str:
    """The one page every view path serves (its data comes from /ui/data/)."""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(session.title)} - pprofcore</title>"
        '<link rel="stylesheet" href="/ui/assets/flamegraph.css">'
        '<link rel="stylesheet" href="/ui/assets/timeline.css">'
        '<link rel="stylesheet" href="/ui/assets/explorer.css"></head>\n'
        '<body class="px-page"><div id="px-root" class="px-root">Loading the explorer (needs JavaScript)...</div>\n'
        f'<script type="application/json" id="px-meta">{to_json(meta(session))}</script>\n'
        '<script src="/ui/assets/flamegraph.js"></script>\n'
        '<script src="/ui/assets/timeline.js"></script>\n'
        '<script src="/ui/assets/explorer.js"></script>\n'
        "</body></html>\n"
    )


def create_app(session: Session, *, hosts: Optional[Iterable[str]] = None, bind_host: str = "127.0.0.1"):
    """The ASGI app serving ``session``; ``hosts``: the Host names it answers
    to (default: loopback names and ``bind_host``)."""
    import asyncio  # here, not at the top: a Profile imports this module and need not load asyncio

    from starlette.applications import Starlette
    from starlette.background import BackgroundTask
    from starlette.requests import Request
    from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response
    from starlette.routing import Route

    def state_of(request: Request) -> State:
        return State.from_query(dict(request.query_params))

    async def root(request: Request):
        q = request.url.query
        return RedirectResponse("/ui/" + (f"?{q}" if q else ""), status_code=307)

    async def ui_page(request: Request):
        if request.path_params.get("page", "") not in PAGES:
            return PlainTextResponse("not found", status_code=404)
        return Response(page(session), media_type="text/html; charset=utf-8")

    async def data(request: Request):
        name = request.path_params["view"]
        if name not in VIEWS:
            return JSONResponse({"error": f"no view named {name[:40]!r}"}, status_code=404)
        try:
            state = state_of(request)
            text = await asyncio.to_thread(view_json, session, name, state)
        except ValueError as e:
            return JSONResponse({"error": str(e)}, status_code=400)
        # Once sent: the work the server held while it started (nothing when none is held)
        return Response(text, media_type="application/json", background=BackgroundTask(release_background))

    async def release_background():  # a coroutine: Starlette runs a plain function on anyio's thread pool
        session.release_background()

    async def assets(request: Request):
        name = request.path_params["name"]
        if name not in ASSETS:
            return PlainTextResponse("not found", status_code=404)
        return Response(asset(name), media_type=ASSETS[name][2] + "; charset=utf-8")

    async def download(request: Request):
        try:
            state = state_of(request)
            session.check(state)
            prof, _ = await asyncio.to_thread(session.refined, state)
            body = await asyncio.to_thread(prof.to_bytes)
        except ValueError as e:
            return PlainTextResponse(str(e), status_code=400)
        return Response(
            body,
            media_type="application/octet-stream",
            headers={"content-disposition": 'attachment; filename="profile.pb.gz"'},
        )

    async def save_config(request: Request):
        name = request.query_params.get("config", "").strip()
        if not name or len(name) > 200:
            return JSONResponse({"error": "config= needs a name (at most 200 characters)"}, status_code=400)
        try:
            body = (await request.body()).decode("utf-8", "replace")
            state = State.from_query(dict(parse_qsl(body)))
        except ValueError as e:
            return JSONResponse({"error": str(e)}, status_code=400)
        session.configs[name] = state.to_query()
        return JSONResponse({"configs": session.configs})

    async def delete_config(request: Request):
        session.configs.pop(request.query_params.get("config", ""), None)
        return JSONResponse({"configs": session.configs})

    routes = [
        Route("/", root),
        Route("/ui", root),
        Route("/favicon.ico", lambda request: Response(status_code=204)),
        Route("/ui/data/{view}", data),
        Route("/ui/assets/{name}", assets),
        Route("/ui/download", download),
        Route("/ui/saveconfig", save_config, methods=["POST"]),
        Route("/ui/deleteconfig", delete_config, methods=["POST"]),
        Route("/ui/{page:path}", ui_page),
    ]
    app = Starlette(routes=routes)
    return Guard(app, allowed_hosts(bind_host, hosts or ()))
