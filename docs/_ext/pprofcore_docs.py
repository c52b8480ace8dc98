"""Sphinx extension of pprofcore's site: writes the generated pages before
Sphinx reads the sources, and joins the GitHub-shaped Markdown of docs/ to the
site.

Generated under docs/_generated/ (gitignored), every build:

- ``api.rst``: one autosummary table per public module, listing its
  ``__all__`` (so a new public name is documented without an edit here);
- ``cli.md``: the ``--help`` of ``pprofcore`` and of every subcommand, as
  argparse prints it from ``pprofcore.cli.build_parser()``;
- ``notebooks/*.ipynb``: copies of notebooks/, shown with their committed
  outputs (myst-nb does not execute them).

docs/index.md stays a plain Markdown table that reads well on GitHub; the
site's navigation (a hidden toctree) is appended to it when Sphinx reads it,
in the table's order, and its ``../notebooks/`` links point at the copies.
"""

from __future__ import annotations

import argparse
import importlib
import io
import os
import re
import shutil
from contextlib import redirect_stdout
from pathlib import Path

# The public modules: the package and the submodules users import by name.
PUBLIC_MODULES = [
    "pprofcore",
    "pprofcore.errors",
    "pprofcore.reports",
    "pprofcore.testing",
    "pprofcore.display.flamegraph",
    "pprofcore.fleet",
    "pprofcore.dask",
    "pprofcore.symbolize",
    "pprofcore.web",
]

GENERATED = "_generated"
OUTSIDE_LINK = re.compile(r"\]\((\.\./(?!notebooks/)[^)#\s]+)\)")
PAGE_LINK = re.compile(r"\]\(((?:\.\./notebooks/)?[\w.-]+\.(?:md|ipynb))(?:#[^)]*)?\)")


def home(module_name: str, name: str) -> str:
    """The public module whose section documents ``module_name.name``: a class or
    function the package re-exports from a public submodule (``DecodeError``
    from ``errors``, ``ProfileSet`` from ``fleet``) is documented once, there."""
    obj = getattr(importlib.import_module(module_name), name)
    if callable(obj):
        for other in PUBLIC_MODULES[1:]:
            module = importlib.import_module(other)
            if name in module.__all__ and getattr(module, name) is obj:
                return other
    return module_name


def api_page() -> str:
    """The API reference: a section per public module, an autosummary row per name."""
    out = [
        "API reference",
        "=============",
        "",
        "Every public name of pprofcore, generated from its docstring: the package's",
        "own names first, then its public submodules. A name the package re-exports",
        "from a submodule links to its entry there.",
        "",
    ]
    for name in PUBLIC_MODULES:
        module = importlib.import_module(name)
        title = f"``{name}``"
        out += [title, "-" * len(title), "", f".. automodule:: {name}", "   :no-members:", ""]
        out += [f".. currentmodule:: {name}", "", ".. autosummary::", "   :toctree: api", ""]
        members = sorted(module.__all__, key=str.lower)
        out += [f"   {member}" for member in members if home(name, member) == name]
        # Relative to the section's module, as autosummary wants it (pprofcore -> errors.DecodeError).
        elsewhere = [
            f"   ~{home(name, member).removeprefix(name + '.')}.{member}"
            for member in members
            if home(name, member) != name
        ]
        if elsewhere:
            out += ["", ".. autosummary::", ""] + elsewhere
        out.append("")
    return "\n".join(out)


def subcommands(parser: argparse.ArgumentParser) -> dict:
    for action in parser._actions:  # argparse keeps its subparsers there and nowhere public
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def cli_page() -> str:
    """The CLI reference: argparse's help of the command and of each subcommand."""
    from pprofcore.cli import build_parser

    os.environ["COLUMNS"] = "100"  # argparse wraps to the terminal; the page must not depend on it
    parser = build_parser()
    out = [
        "# CLI reference",
        "",
        "The `--help` of `pprofcore` and of every subcommand, generated from the",
        "command's parser when the site is built. [The guide to the command](../cli.md)",
        "explains them, with pprof's single-dash spellings.",
        "",
        "```text",
        parser.format_help().rstrip(),
        "```",
        "",
    ]
    for name, sub in subcommands(parser).items():
        out += [f"## pprofcore {name}", "", "```text", sub.format_help().rstrip(), "```", ""]
    return "\n".join(out)


def write_if_changed(path: Path, text: str) -> None:
    # An unchanged file keeps its mtime, so Sphinx rereads only what changed.
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def drop_stale_stubs(stubs: Path) -> None:
    """Removes autosummary's page of a name no longer public (a stale page is
    in no toctree, which -W turns into an error)."""
    current = {
        f"{home(module, name)}.{name}" for module in PUBLIC_MODULES for name in importlib.import_module(module).__all__
    }
    for stub in stubs.glob("*.rst"):
        if stub.stem not in current:
            stub.unlink()


def generate(app, config) -> None:
    src = Path(app.srcdir)
    gen = src / GENERATED
    write_if_changed(gen / "api.rst", api_page())
    drop_stale_stubs(gen / "api")
    with redirect_stdout(io.StringIO()):
        write_if_changed(gen / "cli.md", cli_page())
    for notebook in sorted((src.parent / "notebooks").glob("*.ipynb")):
        copy = gen / "notebooks" / notebook.name
        if not copy.exists() or copy.read_bytes() != notebook.read_bytes():
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(notebook, copy)


def navigation(index_text: str, srcdir: Path) -> str:
    """A hidden toctree of the pages the index links to, in its order, then the
    references, then the pages only other pages link to (the performance log)."""
    pages = []
    for target in PAGE_LINK.findall(index_text):
        doc = target.replace("../notebooks/", f"{GENERATED}/notebooks/").rsplit(".", 1)[0]
        if doc not in pages:
            pages.append(doc)
    pages += [f"{GENERATED}/api", f"{GENERATED}/cli"]
    pages += [p.stem for p in sorted(srcdir.glob("*.md")) if p.stem not in pages and p.stem != "index"]
    return "\n\n```{toctree}\n:hidden:\n:maxdepth: 1\n\n" + "\n".join(pages) + "\n```\n"


def join_sources(app, docname: str, source: list) -> None:
    text = source[0].replace("](../notebooks/", f"]({GENERATED}/notebooks/")
    # Other files of the repository (bench/README.md ...) are not pages of the
    # site: their links become downloads of the file.
    text = OUTSIDE_LINK.sub(r"](path:\1)", text)
    if docname == app.config.root_doc:
        text += navigation(source[0], Path(app.srcdir))
    source[0] = text


def setup(app):
    # Before Sphinx lists the sources (and autosummary writes the stubs the API page asks for).
    app.connect("config-inited", generate)
    app.connect("source-read", join_sources)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
