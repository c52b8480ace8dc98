"""The explorer: pprof's web UI (``go tool pprof -http``) over pprofcore.

:mod:`._state` is the view state (one URL), :mod:`._session` the profiles
served and the refined profile of each state, :mod:`._views` each view's data,
:mod:`._app` the Starlette app with pprof's paths, :mod:`._security` its
guard (Host and Origin checks, CSP), :mod:`._source` where the Source view
may read, :mod:`._serve` uvicorn and the address, :mod:`._widget` the Jupyter
widget. The page's script and styles are in ``web/assets/``; the flame graph
is drawn by ``display/assets/flamegraph.js``. Needs ``pprofcore[web]``
(starlette, uvicorn); the widget needs anywidget."""

from __future__ import annotations

from ._app import create_app as make_app
from ._serve import serve as serve_session
from ._session import Session
from ._state import State
from ._widget import explorer_widget

__all__ = ["Session", "State", "create_app", "serve", "explore"]


def create_app(session: Session, **kwargs):
    """The ASGI app of ``session`` (see :func:`pprofcore.web._app.create_app`).

    Examples
    --------
    >>> p = pprofcore.load(pprofcore.example_path())
    >>> from pprofcore import web
    >>> app = web.create_app(web.Session([("cpu.pb.gz", p)]))
    >>> callable(app)
    True
    """
    return make_app(session, **kwargs)


def serve(session: Session, address: str = "127.0.0.1:0", open_browser: bool = True) -> None:
    """Serves ``session`` on ``address`` (pprof's ``[HOST]:PORT``) until interrupted.

    Examples
    --------
    >>> p = pprofcore.load(pprofcore.example_path())
    >>> from pprofcore import web
    >>> session = web.Session([("cpu.pb.gz", p)])
    >>> web.serve(session, "127.0.0.1:8080", open_browser=False)  # doctest: +SKIP
    """
    serve_session(session, address, open_browser=open_browser)


def explore(profile, view: str = "flamegraph", *, base=None, source_path=None, trim_path: str = "", **state):
    """The explorer of ``profile`` as a Jupyter widget (see :meth:`pprofcore.Profile.explore`).

    Examples
    --------
    >>> p = pprofcore.load(pprofcore.example_path())
    >>> w = pprofcore.web.explore(p, "top", focus="sha256")
    >>> w.state.focus
    'sha256'
    >>> w.profile.top(n=1)["name"]
    ['crypto/sha256.block']
    """
    session = Session(
        [("profile", profile)], base=base, source_path=source_path, trim_path=trim_path, initial=State(**state)
    )
    return explorer_widget(session, view)
