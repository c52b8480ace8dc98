"""The long-lived pprof driver behind the report oracles answers each request
as a fresh `go tool pprof` would, whatever the requests before it chose."""

from __future__ import annotations

from pprof_oracle import parse_top
from testenv import requires_go

import pprofcore

CPU = pprofcore.example_path("cpu")


@requires_go
def test_a_list_request_does_not_leave_lines_granularity_behind(pprof):
    first, err = pprof.run("-top", CPU)
    assert err is None, err
    for choice in (["-list=."], ["-top", "-lines", "-cum"], ["-top", "-files"]):
        _, err = pprof.run(*choice, CPU)
        assert err is None, err
        again, err = pprof.run("-top", CPU)
        assert err is None, err
        assert again == first, choice
    names = [row[5] for row in parse_top(first)[1]]
    assert names and not any(":" in n.rsplit(" ", 1)[-1] for n in names)  # functions, not lines
