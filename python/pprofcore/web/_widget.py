"""The explorer as a Jupyter widget (anywidget: JupyterLab, Notebook 7, VS Code).

The page's script runs unchanged; only its transport differs: instead of
fetching ``/ui/data/<view>``, it sets the ``request`` trait and waits for the
``payload`` trait, which this kernel-side object fills with the same
:func:`pprofcore.web._views.view` data the server sends. ``view`` and
``query`` (pprof's URL query) are the state, readable and settable from
Python (:attr:`ExplorerWidget.state`); :attr:`ExplorerWidget.profile` is the
refined profile. Where no kernel runs (a saved notebook on GitHub or
nbviewer) the output falls back to static HTML: the flame graph and Top of
the state the widget had.
"""

from __future__ import annotations

import html
from typing import Any, Dict, Optional

from ..display.html import package_asset
from ._app import meta, to_json
from ._session import Session
from ._state import VIEWS, State
from ._views import view as view_data


def _esm() -> str:
    """The widget's module: the flame graph and timeline viewers and the explorer
    (each sets a global once), then anywidget's render with a model-backed transport."""
    return (
        package_asset("pprofcore.display", "flamegraph.js")
        + "\n"
        + package_asset("pprofcore.display", "timeline.js")
        + "\n"
        + package_asset("pprofcore.web", "explorer.js")
        + "\n"
        + package_asset("pprofcore.web", "widget.js")
    )


def _css() -> str:
    return "\n".join(
        [
            package_asset("pprofcore.display", "flamegraph.css"),
            package_asset("pprofcore.display", "timeline.css"),
            package_asset("pprofcore.web", "explorer.css"),
        ]
    )


def explorer_widget(session: Session, view: str = "flamegraph", state: Optional[State] = None):
    """An :class:`ExplorerWidget` over ``session`` (needs anywidget)."""
    try:
        import anywidget  # noqa: F401
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError(
            "Profile.explore() needs anywidget (pip install 'pprofcore[notebook]' or pip install anywidget)"
        ) from None
    cls = _widget_class()
    return cls(session, view, state or session.initial)


_CLASS: Any = None


def _widget_class():
    """The widget class, defined on first use (anywidget and traitlets are optional)."""
    global _CLASS
    if _CLASS is not None:
        return _CLASS
    import anywidget
    import traitlets

    class ExplorerWidget(anywidget.AnyWidget):
        """The explorer in a notebook: ``w.state`` (a :class:`~pprofcore.web.State`,
        settable), ``w.view`` (``"top"``, ``"flamegraph"``, ...), ``w.profile``
        (the profile refined by the state's filters)."""

        _esm = _esm()
        _css = _css()
        view = traitlets.Unicode("flamegraph").tag(sync=True)
        query = traitlets.Unicode("").tag(sync=True)
        meta = traitlets.Unicode("{}").tag(sync=True)
        request = traitlets.Dict({}).tag(sync=True)
        payload = traitlets.Unicode("").tag(sync=True)

        def __init__(self, session: Session, view: str, state: State):
            if view not in VIEWS:
                raise ValueError(f"view must be one of {', '.join(VIEWS)}, got {view!r}")
            self._session = session
            super().__init__(view=view, query=state.to_query(), meta=to_json(meta(session)))

        @traitlets.observe("request")
        def _answer(self, change: Dict[str, Any]) -> None:
            req = change["new"] or {}
            if "view" not in req:
                return
            try:
                data = view_data(self._session, str(req["view"]), State.from_query(_parse(str(req.get("query", "")))))
                body = {"seq": req.get("seq"), "data": data}
            except ValueError as e:
                body = {"seq": req.get("seq"), "error": str(e)}
            self.payload = to_json(body)

        @property
        def state(self) -> State:
            """The state shown (settable: the widget redraws)."""
            return State.from_query(_parse(self.query))

        @state.setter
        def state(self, value: State) -> None:
            if not isinstance(value, State):
                raise TypeError(f"state must be a pprofcore.web.State, not {type(value).__name__}")
            self.query = value.to_query()

        @property
        def profile(self):
            """The profile of the current state, refined by its filters."""
            return self._session.refined(self.state)[0]

        def _repr_mimebundle_(self, **kwargs: Any):
            bundle = super()._repr_mimebundle_(**kwargs)
            if bundle is None:
                return None
            data, md = bundle if isinstance(bundle, tuple) else (bundle, {})
            data = dict(data)
            data["text/html"] = static_html(self._session, self.state)
            return data, md

        def __repr__(self) -> str:
            return (
                f"<pprofcore explorer widget: {self.view} of {self._session.title}, state {self.query or '(default)'}>"
            )

    _CLASS = ExplorerWidget
    return _CLASS


def _parse(query: str) -> Dict[str, str]:
    from urllib.parse import parse_qsl

    return dict(parse_qsl(query))


def static_html(session: Session, state: State) -> str:
    """The fallback where no kernel runs: the flame graph (its own script inline,
    as FlameGraph's notebook output) and pprof's Top text of the state."""

    prof, _ = session.refined(state)
    new, base = session.refined_parts(state)
    ti = prof.sample_type_index(state.sample_type())
    fg = new.flamegraph(prof.sample_types[ti][0], by=state.granularity, base=base)
    top = view_data(session, "top", state)
    text = top.get("text") or top.get("error", "")
    lines = text.split("\n")
    shown = "\n".join(lines[:60]) + ("\n..." if len(lines) > 60 else "")
    return (
        '<div class="pprofcore-explorer-static">'
        f"<p>pprofcore explorer of {html.escape(session.title)} (static: run the notebook for the interactive one)</p>"
        f"{fg._repr_html_()}<pre>{html.escape(shown)}</pre></div>"
    )
