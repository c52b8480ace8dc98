"""Text and HTML representations of profiles (kept apart from the data model)."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from ._summary import format_duration, format_time, producer_hints, totals

if TYPE_CHECKING:  # pragma: no cover
    from ._profile import Profile


def profile_repr(p: "Profile") -> str:
    types = ",".join(f"{t}/{u}" for t, u in p.sample_types) or "no sample types"
    dur = f", duration {format_duration(p.duration_nanos)}" if p.duration_nanos else ""
    return (
        f"<pprofcore.Profile {types}: {len(p)} samples, {len(p.locations)} locations, "
        f"{len(p.functions)} functions, {len(p.mappings)} mappings{dur}>"
    )


def profile_html(p: "Profile") -> str:
    esc = html.escape
    rows = "".join(
        f"<tr><td>{esc(name)}</td><td style='text-align:right'>{value:,}</td></tr>" for name, value in totals(p).items()
    )
    hints = ", ".join(producer_hints(p)) or "unknown producer"
    facts = [
        ("samples", f"{len(p):,}"),
        ("locations", f"{len(p.locations):,}"),
        ("functions", f"{len(p.functions):,}"),
        ("mappings", f"{len(p.mappings):,}"),
        ("strings", f"{len(p.strings):,}"),
        ("period", f"{p.period:,} {esc('/'.join(p.period_type)) if p.period_type else ''}"),
        ("time", esc(format_time(p.time_nanos))),
        ("duration", esc(format_duration(p.duration_nanos))),
    ]
    fact_rows = "".join(f"<tr><th style='text-align:left'>{k}</th><td>{v}</td></tr>" for k, v in facts)
    comments = "".join(f"<li>{esc(c)}</li>" for c in p.comments)
    return (
        "<div class='pprofcore-profile'>"
        f"<strong>pprofcore.Profile</strong> <span style='color:#666'>{esc(hints)}</span>"
        "<div style='display:flex;gap:2em'>"
        f"<table><thead><tr><th>sample type</th><th>total</th></tr></thead><tbody>{rows}</tbody></table>"
        f"<table><tbody>{fact_rows}</tbody></table>"
        "</div>"
        + (f"<ul>{comments}</ul>" if comments else "")
        + "</div>"
    )
