"""pprof's ``-weblist`` page: the source of the matching functions with flat and
cum per line (the ``list`` report's values), each line with samples expandable,
by a click, to the machine instructions of that line with their addresses and
values (the ``disasm`` report's rows, matched to the line by objdump's file and
line). Without a binary the page is the source alone, as pprof's is.

Every profile string (function and file names, source text, instructions) is
escaped; the page holds its own styles and a few lines of script and loads
nothing. The output is deterministic for equal input (a golden file tests it).
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Dict, List, Tuple

from .. import _units
from ..reports.listing import value_or_dot
from ._escape import printable

if TYPE_CHECKING:  # pragma: no cover
    from ..reports._weblist import Weblist

_STYLE = """body{font-family:sans-serif;margin:1em}
h1{font-size:1.3em}h2{font-size:1.1em;margin:1.2em 0 .2em}
p.filename,p.totals{margin:.1em 0;color:#555}
pre{font-family:monospace;margin:.3em 0;line-height:1.3}
.line{color:#888}.nop{color:#000}.dead{color:#aaa}
.live{cursor:pointer;background:#fff6d8}.live:hover{background:#ffe8a0}
.asm{display:none;color:#036;background:#eef4ff}.asm.open{display:block}
.unsym{color:#999}.error{color:#b00}"""

# A click on a line with samples shows or hides its instructions.
_SCRIPT = """document.addEventListener("click",function(e){
var s=e.target.closest(".live");if(!s)return;
var a=s.nextElementSibling;if(a&&a.classList.contains("asm")){a.classList.toggle("open");}});"""


def _esc(s: str) -> str:
    return html.escape(printable(s), quote=True)


def _instructions_by_line(w: "Weblist") -> Dict[Tuple[str, int], List[int]]:
    """Rows of the disassembly per (listed function, line)."""
    out: Dict[Tuple[str, int], List[int]] = {}
    for i, key in enumerate(w.listed):
        if key[1]:
            out.setdefault(key, []).append(i)
    return out


def weblist_html(w: "Weblist", title: str = "") -> str:
    """The whole page of a :func:`pprofcore.reports.weblist`."""
    listing, disasm = w.listing, w.disasm
    m = listing.meta
    su, tot, ratio = m["sample_unit"], m["total"], m.get("ratio", 1.0)
    label = lambda v: _units.scaled_label(_units.divided(v, ratio), su)  # noqa: E731
    cell = lambda v: f"{value_or_dot(int(v), su, ratio):>10}"  # noqa: E731
    asm_rows = _instructions_by_line(w)
    rows_of: Dict[Tuple[str, str], List[int]] = {}
    for i in range(len(listing)):
        rows_of.setdefault((listing["routine"][i], listing["file"][i]), []).append(i)
    out = [
        "<!DOCTYPE html>",
        '<html><head><meta charset="utf-8">',
        f"<title>{_esc(title or 'weblist')}</title>",
        f"<style>{_STYLE}</style></head><body>",
        f"<h1>{_esc(title)}</h1>" if title else "",
        f'<p class="totals">Type: {_esc(m.get("sample_type", ""))}, Total: {_esc(label(tot))}</p>',
    ]
    for r in m["routines"]:
        out.append(f"<h2>{_esc(r['name'])}</h2>")
        out.append(f'<p class="filename">{_esc(r["file"])}</p>')
        out.append(
            f'<p class="totals">{_esc(label(r["flat"]))} {_esc(label(r["cum"]))} (flat, cum) '
            f"{_esc(_units.percentage(r['cum'], tot).strip())} of Total</p>"
        )
        if r["error"]:
            out.append(f'<p class="error">{_esc(r["error"])}</p>')
            continue
        lines = ["<pre>"]
        for i in rows_of.get((r["name"], r["file"]), []):
            ln, flat, cum = int(listing["line"][i]), int(listing["flat"][i]), int(listing["cum"][i])
            insts = asm_rows.get((r["name"], ln), [])
            kind = "live" if insts else ("nop" if (flat or cum) else "dead")
            text = f"{cell(flat)} {cell(cum)} {ln:6d}:{listing['text'][i]}"
            lines.append(f'<span class="{kind}" data-line="{ln}">{_esc(text)}</span>')
            if insts:
                lines.append('<span class="asm">' + "".join(_instruction(disasm, k, cell) for k in insts) + "</span>")
        lines.append("</pre>")
        out.append("\n".join(lines))
    out.append(f"<script>{_SCRIPT}</script></body></html>")
    return "\n".join(x for x in out if x) + "\n"


def _instruction(disasm, k: int, cell) -> str:
    """One instruction row: its values, address, text and function."""
    fn = disasm["function"][k]
    text = f"{cell(disasm['flat'][k])} {cell(disasm['cum'][k])} {int(disasm['address'][k]):10x}: {disasm['text'][k]}"
    where = f"   {fn}" if fn else ""
    return f'<span class="inst">{_esc(text)}<span class="unsym">{_esc(where)}</span></span>\n'
