"""Dies (SIGKILL) at the N-th step of a store's commit path, for the crash
tests of tests/fleet/: each write, flush and rename (``pq.write_table``,
``os.fsync``, ``os.replace``) counts once before and once after it runs, so
the kill lands before, inside and after every step. Imported by the child
processes those tests start (``pprofcore_env(helpers=True)``)."""

from __future__ import annotations

import os
import signal


def kill_at(when: int) -> list:
    """From now on, SIGKILL this process at step ``when`` (1-based); returns
    the counter (``[steps so far]``), for a dry run that counts the steps."""
    import pyarrow.parquet as pq

    count = [0]

    def tick() -> None:
        count[0] += 1
        if count[0] == when:
            os.kill(os.getpid(), signal.SIGKILL)

    def step(f):
        def wrapped(*a, **k):
            tick()
            result = f(*a, **k)
            tick()
            return result

        return wrapped

    os.replace, os.fsync, pq.write_table = step(os.replace), step(os.fsync), step(pq.write_table)
    return count
