"""A builder of OTLP ProfilesDictionary messages for the OTLP tests
(tests/core/test_otlp_read.py, test_otlp_older.py): the zero entries the
spec requires, strings interned, attributes, frames and stacks appended and
their indices returned. It works on a dictionary of the installed
opentelemetry-proto's generated classes."""

from __future__ import annotations


class Dict:
    """Builds a ProfilesDictionary with the zero entries the spec requires."""

    def __init__(self, d):
        self.d = d
        self.strings = {"": 0}
        d.string_table.append("")
        for table in (
            d.mapping_table,
            d.location_table,
            d.function_table,
            d.link_table,
            d.attribute_table,
            d.stack_table,
        ):
            table.add()

    def s(self, text: str) -> int:
        if text not in self.strings:
            self.strings[text] = len(self.d.string_table)
            self.d.string_table.append(text)
        return self.strings[text]

    def attr(self, key: str, unit: str = "", **value) -> int:
        a = self.d.attribute_table.add(key_strindex=self.s(key), unit_strindex=self.s(unit) if unit else 0)
        for k, v in value.items():
            if k == "array":
                a.value.array_value.values.extend(v)
            else:
                setattr(a.value, k, v)
        return len(self.d.attribute_table) - 1

    def frame(self, name: str, line: int = 0, mapping: int = 0, address: int = 0) -> int:
        self.d.function_table.add(name_strindex=self.s(name), filename_strindex=self.s(name + ".go"))
        loc = self.d.location_table.add(mapping_index=mapping, address=address)
        loc.lines.add(function_index=len(self.d.function_table) - 1, line=line)
        return len(self.d.location_table) - 1

    def stack(self, *locations: int) -> int:
        self.d.stack_table.add(location_indices=list(locations))
        return len(self.d.stack_table) - 1
