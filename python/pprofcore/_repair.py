"""Repair mode: :class:`RepairReport`, what ``load(..., repair=True)`` changed.

The repairs themselves happen in the C++ decoder (repair mode is selected by
passing it a report to fill);
this module only presents the counters.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Dict

from .display.notebook import repair_report_html


@dataclass(frozen=True)
class RepairReport:
    """Counts of every repair made while decoding one profile.

    All zero (``bool(report) is False``) means the input was valid and the
    profile is exactly what a normal ``load`` returns.

    Attributes
    ----------
    dangling_location_refs : int
        Sample stack entries naming a location id that does not exist; removed
        from the stack (the sample and its values are kept).
    zero_location_refs : int
        Sample stack entries with location id 0; removed from the stack.
    dangling_mapping_refs : int
        Locations naming a mapping id that does not exist; the location is kept
        with no mapping.
    missing_function_refs : int
        Lines whose function id is 0 or names no function; they now point at a
        placeholder function (see ``stub_functions``).
    stub_functions : int
        Placeholder functions added, one per distinct missing id, named
        ``"[missing function id N]"`` (``"[missing function]"`` for id 0).
    zero_ids : int
        Mappings, functions or locations with the reserved id 0; given a fresh
        id above the largest id in use (references with id 0 still mean "none").
    duplicate_ids : int
        Mappings, functions or locations reusing an id already taken by an
        earlier row; given a fresh id. References resolve to the first row.
    value_count_mismatch : int
        Samples whose number of values differs from the number of sample
        types; dropped.
    dropped_values_sum : int
        Sum of all values of the dropped samples, so the loss is visible.
    bad_first_string : int
        1 when ``string_table[0]`` was not ``""`` (it is replaced by ``""``: code 0
        means "unset" in pprof, so its text cannot have been meant) or when the
        string table was missing (a ``""`` is added).
    out_of_range_string_refs : int
        String indexes past the end of the table (in names, file names, labels,
        sample types, comments...); they now point at a placeholder string (see
        ``placeholder_strings``). ``drop_frames``/``keep_frames`` become ``""``
        instead, as a placeholder is no regex. Indexes beyond 2**31 - 1 are not
        repaired.
    placeholder_strings : int
        Placeholder strings added, one per distinct missing index N, reading
        ``"[missing string N]"``, so that distinct missing names stay distinct.

    Examples
    --------
    >>> p, report = pprofcore.load(pprofcore.example_path(), repair=True)
    >>> report
    RepairReport(no repairs)
    >>> bool(report)
    False
    """

    dangling_location_refs: int = 0
    zero_location_refs: int = 0
    dangling_mapping_refs: int = 0
    missing_function_refs: int = 0
    stub_functions: int = 0
    zero_ids: int = 0
    duplicate_ids: int = 0
    value_count_mismatch: int = 0
    dropped_values_sum: int = 0
    bad_first_string: int = 0
    out_of_range_string_refs: int = 0
    placeholder_strings: int = 0

    @classmethod
    def _from_core(cls, d: Dict[str, int]) -> "RepairReport":
        return cls(**{f.name: int(d.get(f.name, 0)) for f in fields(cls)})

    @property
    def total(self) -> int:
        """Number of repairs (stubs, placeholders and the dropped-value sum are not counted)."""
        return sum(
            v
            for k, v in asdict(self).items()
            if k not in ("stub_functions", "placeholder_strings", "dropped_values_sum")
        )

    def __bool__(self) -> bool:
        return self.total > 0

    def as_dict(self) -> Dict[str, int]:
        """The counters as a plain dict (all of them, zeros included)."""
        return asdict(self)

    def __repr__(self) -> str:
        nonzero = {k: v for k, v in asdict(self).items() if v}
        if not nonzero:
            return "RepairReport(no repairs)"
        return "RepairReport(" + ", ".join(f"{k}={v}" for k, v in nonzero.items()) + ")"

    def _repr_html_(self) -> str:
        return repair_report_html(self)

    def __str__(self) -> str:
        if not self:
            return "no repairs: the profile was valid"
        lines = [f"{self.total} repair(s):"]
        text = {
            "dangling_location_refs": "sample location ids with no location removed from stacks",
            "zero_location_refs": "sample location ids equal to 0 removed from stacks",
            "dangling_mapping_refs": "location mapping ids with no mapping cleared",
            "missing_function_refs": "lines with a missing function pointed at a placeholder",
            "stub_functions": "placeholder functions added",
            "zero_ids": "rows with reserved id 0 renumbered",
            "duplicate_ids": "rows with a duplicate id renumbered",
            "value_count_mismatch": "samples with the wrong number of values dropped",
            "dropped_values_sum": "sum of the dropped samples' values",
            "bad_first_string": 'string_table[0] set to "" (it was not empty, or the table was missing)',
            "out_of_range_string_refs": "string indexes past the table pointed at a placeholder",
            "placeholder_strings": "placeholder strings added",
        }
        for k, v in asdict(self).items():
            if v:
                lines.append(f"  {v:>10}  {text[k]}")
        return "\n".join(lines)
