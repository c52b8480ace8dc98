"""SQL text the store builds from what callers give it: a ``where`` condition
checked to be one expression over ``profiles``, string literals, and file
names that DuckDB must not read as glob patterns.

The check is the first guard; the second is the connection itself, opened
with external access off (``Store``), so even an expression that got past
it reads no file outside the store and writes none outside it."""

from __future__ import annotations

import json
from typing import Any, Optional

_FORBIDDEN = {
    ";": "a second statement (';')",
    "--": "a comment ('--')",
    "/*": "a comment ('/*')",
    "$": "a dollar-quoted string or parameter ('$')",  # its quoting would hide the rest from this scan
}


def literal(s: str) -> str:
    """``s`` as the inside of a single-quoted SQL string."""
    return s.replace("'", "''")


def no_glob(path: str) -> str:
    """``path`` as a DuckDB file pattern matching only itself: DuckDB globs
    every path it reads, so ``fleet[1]`` would read ``fleet1``; a character
    class of one character is the escape its globbing understands."""
    return "".join(f"[{c}]" if c in "*?[" else c for c in path)


def file_list(paths) -> str:
    """``paths`` as a DuckDB list literal of files read by name, never as patterns."""
    return "[" + ", ".join(f"'{literal(no_glob(str(p)))}'" for p in paths) + "]"


def _scan(where: str) -> None:
    """Reject, outside quotes, ';', comments, '$', and parentheses that close
    more than they open (``x) union (select ...``)."""
    depth, i, n = 0, 0, len(where)
    while i < n:
        c = where[i]
        if c in "'\"":  # a string literal or quoted identifier; '' / "" escape the quote
            j = i + 1
            while True:
                j = where.find(c, j)
                if j < 0:
                    raise ValueError(f"where={where!r}: unterminated {c} quote starting at character {i}")
                if j + 1 < n and where[j + 1] == c:
                    j += 2
                    continue
                break
            i = j + 1
            continue
        for tok, what in _FORBIDDEN.items():
            if where.startswith(tok, i):
                raise ValueError(f"where={where!r}: one condition expected, found {what} at character {i}")
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth < 0:
                raise ValueError(f"where={where!r}: ')' at character {i} closes a parenthesis never opened")
        i += 1
    if depth:
        raise ValueError(f"where={where!r}: {depth} parenthesis(es) never closed")


def _nodes(x: Any):
    if isinstance(x, dict):
        yield x
        for v in x.values():
            yield from _nodes(v)
    elif isinstance(x, list):
        for v in x:
            yield from _nodes(v)


def condition(con, where: Optional[str]) -> Optional[str]:
    """``where`` checked to be one SQL expression without subqueries or table
    functions (so it reads only the ``profiles`` row it is tested on), or
    None for "every profile". Raises TypeError or ValueError naming the problem."""
    if where is None:
        return None
    if not isinstance(where, str):
        raise TypeError(f"where must be a SQL condition (str) or None, not {type(where).__name__}")
    if not where.strip():
        return None
    _scan(where)
    query = f"select 1 from profiles where ({where})"
    import duckdb

    try:  # DuckDB's own parser, run on the text without executing it
        (doc,) = con.execute("select json_serialize_sql($1::varchar)", [query]).fetchone()
    except duckdb.Error:  # a build without the json extension: the scan and the connection's limits remain
        return where
    tree = json.loads(doc)
    if tree.get("error"):
        raise ValueError(f"where={where!r}: not a SQL condition: {tree.get('error_message', 'parse error')}")
    statements = tree.get("statements", [])
    if len(statements) != 1:
        raise ValueError(f"where={where!r}: one condition expected, found {len(statements)} statements")
    for node in _nodes(statements[0]["node"].get("where_clause")):
        if node.get("class") == "SUBQUERY" or node.get("type") in ("SUBQUERY", "TABLE_FUNCTION"):
            raise ValueError(f"where={where!r}: subqueries are not accepted in a condition (use Store.sql for a query)")
    return where
