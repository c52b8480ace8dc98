"""A small Firefox Gecko profile (the Gecko profiler's raw output), written by
hand for the Gecko reader's tests: a parent process and a child process with
their own start times and libraries, every kind of frame location (an
unsymbolicated address, ``name (in lib)`` with and without a line, a
JavaScript function with and without a name, a label), CPU deltas, and a
sample without a stack."""

from __future__ import annotations

START = 1_700_000_000_000.0  # the parent's meta.startTime, ms since the epoch
CHILD_START = START + 250.0


def _table(schema, rows):
    return {"schema": {k: i for i, k in enumerate(schema)}, "data": rows}


def _thread(name, pid, tid, strings, frames, stacks, samples, process_name=None):
    t = {
        "name": name,
        "processType": "default",
        "pid": pid,
        "tid": tid,
        "registerTime": 0,
        "unregisterTime": None,
        "stringTable": strings,
        "frameTable": _table(
            ["location", "relevantForJS", "innerWindowID", "implementation", "line", "column", "category"], frames
        ),
        "stackTable": _table(["prefix", "frame"], stacks),
        "samples": _table(["stack", "time", "eventDelay", "threadCPUDelta"], samples),
        "markers": _table(["name", "startTime", "endTime", "phase", "category", "data"], []),
    }
    if process_name:
        t["processName"] = process_name
    return t


def gecko_profile() -> dict:
    parent_strings = [
        "(root)",  # 0: a label frame
        "0x555500001234",  # 1: an address in the app (lib 0)
        "nsThread::ProcessNextEvent (in libxul.so) + 120",  # 2
        "js::RunScript (in libxul.so) (src/vm/Interpreter.cpp:412)",  # 3
        "handleClick (https://example.com/app.js:10:5)",  # 4
        "https://example.com/app.js:1:1[3]",  # 5: a script's top level
        "0x7f0000002000",  # 6: in libc (lib 1)
        "0x10",  # 7: in no library
    ]
    parent_frames = [
        [0, False, None, None, None, None, 0],
        [1, False, None, None, None, None, 1],
        [2, False, None, None, None, None, 1],
        [3, False, None, None, None, None, 1],
        [4, False, 1, "baseline", 10, 5, 2],
        [5, False, 1, None, 1, 1, 2],
        [6, False, None, None, None, None, 1],
        [7, False, None, None, None, None, 1],
    ]
    # stacks: 0 (root); 1 root>app; 2 root>app>ProcessNextEvent; 3 ...>RunScript; 4 ...>handleClick;
    # 5 ...RunScript>script; 6 root>app>libc; 7 root>0x10
    parent_stacks = [[None, 0], [0, 1], [1, 2], [2, 3], [3, 4], [3, 5], [1, 6], [0, 7]]
    parent_samples = [
        [4, 0.0, 0.1, 900],
        [4, 1.0, 0.1, 1000],
        [5, 2.0, 0.1, None],
        [None, 3.0, 0.1, 0],
        [6, 4.0, 0.1, 250],
        [7, 5.0, 0.1, 10],
    ]
    child_strings = ["(root)", "PresShell::Paint (in libxul.so)", "0x400000000500"]
    child_frames = [
        [0, False, None, None, None, None, 0],
        [1, False, None, None, 77, None, 1],
        [2, False, None, None, None, None, 1],
    ]
    child_stacks = [[None, 0], [0, 1], [1, 2]]
    child_samples = [[1, 0.5, 0, 400], [2, 1.5, 0, 600]]
    lib = {"arch": "x86_64", "breakpadId": "AB" * 16 + "0"}
    child = {
        "meta": {"version": 31, "interval": 1.0, "startTime": CHILD_START, "processType": 2, "stackwalk": 1},
        "libs": [
            dict(
                lib,
                start=0x400000000000,
                end=0x400000010000,
                offset=0x1000,
                name="libxul.so",
                path="/opt/firefox/libxul.so",
                debugName="libxul.so",
                debugPath="/opt/firefox/libxul.so",
                codeId="cc" * 20,
            ),
        ],
        "threads": [
            _thread(
                "GeckoMain",
                "4243",
                4243,
                child_strings,
                child_frames,
                child_stacks,
                child_samples,
                "Isolated Web Content",
            )
        ],
        "processes": [],
    }
    return {
        "meta": {
            "version": 31,
            "interval": 1.0,
            "startTime": START,
            "shutdownTime": None,
            "processType": 0,
            "product": "Firefox",
            "stackwalk": 1,
            "sampleUnits": {"time": "ms", "eventDelay": "ms", "threadCPUDelta": "µs"},
            "categories": [{"name": "Idle", "color": "transparent", "subcategories": ["Other"]}],
        },
        "libs": [
            dict(
                lib,
                start=0x555500000000,
                end=0x555500100000,
                offset=0,
                name="firefox",
                path="/opt/firefox/firefox",
                debugName="firefox",
                debugPath="/opt/firefox/firefox",
                codeId="aa" * 20,
            ),
            dict(
                lib,
                start=0x7F0000000000,
                end=0x7F0000200000,
                offset=0,
                name="libc.so.6",
                path="/usr/lib/libc.so.6",
                debugName="libc.so.6",
                debugPath="/usr/lib/libc.so.6",
                codeId="bb" * 20,
            ),
        ],
        "pausedRanges": [],
        "threads": [
            _thread(
                "GeckoMain",
                "4242",
                4242,
                parent_strings,
                parent_frames,
                parent_stacks,
                parent_samples,
                "Parent Process",
            )
        ],
        "processes": [child],
    }
