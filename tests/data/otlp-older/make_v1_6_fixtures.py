r"""Writes the v1.6.0 fixtures (v1_6_0.pb, v1_6_0.json) that
tests/core/test_otlp_older.py reads.

v1.6.0 is v1.7.0's layout with the dictionary's tables as fields 2-8 of
ProfilesData itself (v1.7.0 moved them into ProfilesDictionary, field 2, one
number lower). So v1_6_0.pb is v1_7_0.pb with its dictionary's fields lifted
to the top, each one number higher. No PyPI release of opentelemetry-proto
has v1.6.0's classes: they are generated with protoc (grpcio-tools) from the
opentelemetry-proto repository's tag v1.6.0, and they must read the bytes
with nothing unknown (re-serializing to the same bytes). v1_6_0.json is
protobuf's JSON mapping of that message, ids in hex as OTLP JSON has them.

Run from the repository root:
  D=$(mktemp -d)
  pip install --no-deps --target $D/gt grpcio-tools
  git clone -q --branch v1.6.0 https://github.com/open-telemetry/opentelemetry-proto $D/src
  protos="opentelemetry/proto/common/v1/common.proto opentelemetry/proto/resource/v1/resource.proto
          opentelemetry/proto/profiles/v1development/profiles.proto"
  mkdir $D/o16 && (cd $D/src && PYTHONPATH=$D/gt python3 -m grpc_tools.protoc -I . --python_out=$D/o16 $protos)
  find $D/o16 -type d -exec touch {}/__init__.py \;
  python3 tests/data/otlp-older/make_v1_6_fixtures.py $D/o16
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "helpers"))

from make_json_fixtures import hex_ids  # noqa: E402
from otlp_older import v1_7_to_v1_6  # noqa: E402

# Run in a process whose path holds v1.6.0's classes: check the bytes, print the JSON.
CHECK = """
import sys
from google.protobuf import json_format
from opentelemetry.proto.profiles.v1development import profiles_pb2 as pb
data = open(sys.argv[1], "rb").read()
m = pb.ProfilesData()
m.ParseFromString(data)
assert m.SerializeToString() == data, "v1.6.0's classes do not read the whole message"
assert len(m.string_table) > 1 and len(m.resource_profiles) == 1
print(json_format.MessageToJson(m))
"""


def main() -> None:
    data = v1_7_to_v1_6((HERE / "v1_7_0.pb").read_bytes())
    target = HERE / "v1_6_0.pb"
    target.write_bytes(data)
    out = subprocess.run(
        [sys.executable, "-c", CHECK, str(target)],
        env={"PYTHONPATH": sys.argv[1]},
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    (HERE / "v1_6_0.json").write_text(json.dumps(hex_ids(json.loads(out)), indent=1) + "\n")


if __name__ == "__main__":
    main()
