"""The one-line repr and the notebook HTML of a Profile: length and repr, and
names escaped in `_repr_html_`."""

from __future__ import annotations

from wirebuild import function, line, location, profile, sample, value_type

import pprofcore

CPU = pprofcore.example_path("cpu")


def test_len_and_repr(cpu, sp):
    assert len(sp) == 3 and len(cpu) == cpu.values.shape[0] > 0
    r = repr(sp)
    assert "\n" not in r
    assert r.startswith("<pprofcore.Profile ") and r.endswith(">")
    assert "samples/count,cpu/nanoseconds" in r and "3 samples" in r and "2 functions" in r


def test_repr_html_escapes_names():
    strings = ("", "alloc<space>", "by&tes", "std::vector<int>::push_back&", "a.cc", "<b>bold</b> comment")
    data = profile(
        sample_types=[value_type(1, 2)],
        samples=[sample([1], [5])],
        locations=[location(1, 0, 0, [line(1, 3)])],
        functions=[function(1, 3, 3, 4)],
        strings=strings,
        comments=[5],
    )
    h = pprofcore.loads(data)._repr_html_()
    assert "alloc&lt;space&gt;/by&amp;tes" in h
    assert "&lt;b&gt;bold&lt;/b&gt; comment" in h
    assert "<b>bold" not in h and "alloc<space>" not in h
    # No raw '<' or '&' from any name of the profile leaks into the markup.
    for raw in (s for s in strings if "<" in s or "&" in s):
        assert raw not in h
    assert "vector<int>" not in h and "push_back&" not in h
    assert h.count("<table") == h.count("</table>")
