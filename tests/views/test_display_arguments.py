"""Display arguments are checked before anything is drawn or written: a bad
``width`` of :meth:`FlameGraph.to_svg` is ValueError (TypeError when not a
number), a title that is not a str is TypeError (issue 27, item 10)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hostile import named_profile

P = named_profile([(["main", "work"], 5), (["main", "idle"], 1)])


@pytest.mark.parametrize("width", [math.nan, -1, 0, -0.0, math.inf, -math.inf, np.float64("nan")], ids=repr)
def test_svg_width_out_of_range_is_value_error(width, tmp_path):
    fg = P.flamegraph()
    with pytest.raises(ValueError, match="width must be a finite number of pixels > 0"):
        fg.to_svg(width=width)


@pytest.mark.parametrize("width", ["800", None, True, [800], 1j], ids=repr)
def test_svg_width_of_wrong_type_is_type_error(width):
    with pytest.raises(TypeError, match="width must be a number"):
        P.flamegraph().to_svg(width=width)


@pytest.mark.parametrize("width", [1, 640, 800.5, np.int32(300), np.float32(2.5)], ids=repr)
def test_svg_width_accepts_positive_numbers(width):
    import xml.etree.ElementTree as ET

    root = ET.fromstring(P.flamegraph().to_svg(width=width))
    assert float(root.get("width")) == pytest.approx(float(width))


@pytest.mark.parametrize("title", [1, 2.5, b"bytes", ["t"], object()], ids=lambda t: type(t).__name__)
@pytest.mark.parametrize("view", ["flamegraph", "callgraph"])
def test_title_must_be_str(view, title):
    with pytest.raises(TypeError, match="title must be a str or None"):
        getattr(P, view)(title=title)


def test_title_none_and_str_work():
    assert P.flamegraph(title=None).title.startswith("samples")
    assert P.flamegraph(title="mine").title == "mine"
    assert P.callgraph(title="mine").title == "mine"
