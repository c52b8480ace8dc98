r"""Writes the OTLP JSON form of the v1.7.0 and v1.9.0 fixtures (v1_7_0.json,
v1_9_0.json) that tests/core/test_otlp_older.py reads.

Each is the committed protobuf fixture parsed by the generated classes of an
opentelemetry-proto release of that layout and written by protobuf's JSON
mapping (``preserving_proto_field_name=False``: lowerCamelCase names, as the
OpenTelemetry Collector's file exporter writes them), with the byte fields
OTLP spells in hex (``traceId``, ``spanId``, ``profileId``) turned from
protobuf's base64 into hex, as OTLP JSON requires. The field names are the
release's own: v1.7.0's ``sample``, ``locationIndices``, ``timeNanos``,
attributes keyed by ``key``; v1.9.0's are v1.10.0's.

Run from the repository root with the releases make_fixtures.py names:
  D=$(mktemp -d)
  pip install --no-deps --target $D/o17 opentelemetry-proto==1.39.1
  pip install --no-deps --target $D/o19 opentelemetry-proto==1.42.1
  python3 tests/data/otlp-older/make_json_fixtures.py $D/o17 $D/o19
"""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
HEX_FIELDS = ("traceId", "spanId", "profileId")

# Run in a process whose path holds one release's classes.
CONVERT = """
import json, sys
from google.protobuf import json_format
from opentelemetry.proto.profiles.v1development import profiles_pb2 as pb
m = pb.ProfilesData()
m.ParseFromString(open(sys.argv[1], "rb").read())
print(json_format.MessageToJson(m))
"""


def hex_ids(node):
    """OTLP JSON's ids in hex where protobuf's mapping wrote base64."""
    if isinstance(node, dict):
        return {
            k: base64.b64decode(v).hex() if k in HEX_FIELDS and isinstance(v, str) else hex_ids(v)
            for k, v in node.items()
        }
    if isinstance(node, list):
        return [hex_ids(x) for x in node]
    return node


def main() -> None:
    for site, name in zip(sys.argv[1:3], ("v1_7_0", "v1_9_0")):
        out = subprocess.run(
            [sys.executable, "-c", CONVERT, str(HERE / f"{name}.pb")],
            env={"PYTHONPATH": site},
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        doc = hex_ids(json.loads(out))
        (HERE / f"{name}.json").write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
