// C++ unit tests of the OpenTelemetry profiles reader and writer (otlp.hpp):
// a written profile reads back, OTLP JSON reads, load()'s one-profile rule,
// bad indices and older layouts. The Python tests compare with
// opentelemetry-proto and round-trip the corpus.
#include <string>
#include <vector>

#include "check.hpp"
#include "pprofcore/decode.hpp"
#include "pprofcore/errors.hpp"
#include "pprofcore/otlp.hpp"

using namespace pprofcore;

static const uint8_t* bytes(const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); }

static Profile go_heap() {
  std::string text = "heap profile: 1: 1024 [2: 2048] @ heap/1048576\n1: 1024 [2: 2048] @ 0x401001 0x402002\n";
  return decode(bytes(text), text.size());
}

TEST(written_profile_reads_back) {
  Profile p = go_heap();
  std::string otlp = otlp::write(p);
  std::vector<otlp::Decoded> all = otlp::decode(bytes(otlp), otlp.size());
  EXPECT(all.size() == 1);
  const Profile& q = all[0].profile;
  check_invariants(q);
  EXPECT(q.num_types() == p.num_types() && q.values == p.values);
  EXPECT(q.stack_locations.size() == p.stack_locations.size());
  EXPECT(all[0].origin.scope_name == "pprofcore" && all[0].origin.profile_indices.size() == p.num_types());
  // load()'s path: profile.proto fails, the fallback reads OTLP.
  Profile r = decode(bytes(otlp), otlp.size());
  EXPECT(r.values == p.values);
}

TEST(json_reads) {
  std::string json = R"({"resourceProfiles":[{"resource":{"attributes":[{"key":"k","value":{"intValue":"7"}}]},
    "scopeProfiles":[{"scope":{"name":"s"},"profiles":[{"sampleType":{"typeStrindex":1,"unitStrindex":2},
    "samples":[{"stackIndex":1,"values":["3"],"timestampsUnixNano":["5"]}]}]}]}],
    "dictionary":{"stringTable":["","cpu","nanoseconds","f"],"functionTable":[{},{"nameStrindex":3}],
    "locationTable":[{},{"lines":[{"functionIndex":1,"line":"9"}]}],"stackTable":[{},{"locationIndices":[1]}]}})";
  std::vector<otlp::Decoded> all = otlp::decode(bytes(json), json.size());
  EXPECT(all.size() == 1);
  const Profile& p = all[0].profile;
  EXPECT(p.num_samples() == 1 && p.values[0] == 3 && p.lines.line[0] == 9);
  EXPECT(p.str(p.functions.name[0]) == "f" && p.labels.num[0] == 5);
  EXPECT(all[0].origin.resource_attributes.size() == 1 && all[0].origin.resource_attributes[0].value.i == 7);
}

TEST(errors_name_the_field) {
  std::string json =
      R"({"resourceProfiles":[{"scopeProfiles":[{"profiles":[{"samples":[{"stackIndex":4,"values":[1]}]}]}]}],
    "dictionary":{"stringTable":[""]}})";
  EXPECT_THROWS(otlp::decode(bytes(json), json.size()), DecodeError, "stack_index 4 is out of range");
  // ProfilesData{resource_profiles{scope_profiles{profiles{sample{start 0, length 3}, location_indices [1]}}}}:
  // v1.7.0's layout (field 3 a varint), read as such, its sample's range past the profile's locations.
  std::string old = {0x0a, 0x0c, 0x12, 0x0a, 0x12, 0x08, 0x12, 0x04, 0x08, 0x00, 0x10, 0x03, 0x18, 0x01};
  EXPECT_THROWS(otlp::decode(bytes(old), old.size()), DecodeError,
                "read as the layout of opentelemetry-proto v1.7.0) that pprofcore cannot read: locations_length 3");
  std::string two = otlp::write(go_heap());
  std::string many = two + two;  // two ProfilesData concatenated: two resources
  EXPECT_THROWS(decode(bytes(many), many.size()), DecodeError, "pprofcore.load_otlp");
}

// From the second decode on, the intermediate tables are the last decode's
// (kept_tables.cpp): decodes of different messages, protobuf and JSON, one that
// fails half-way among them, each give what a first decode gives.
TEST(kept_tables_carry_nothing_between_loads) {
  std::string text = "heap profile: 3: 96 [3: 96] @ heap/1048576\n2: 64 [2: 64] @ 0x1 0x2 0x3\n1: 32 [1: 32] @ 0x3\n";
  const std::string a = otlp::write(go_heap()), b = otlp::write(decode(bytes(text), text.size()));
  const std::string c = R"({"resourceProfiles":[{"scopeProfiles":[{"profiles":[{"samples":[{"values":["4"]}]}]}]}],
    "dictionary":{"stringTable":[""],"stackTable":[{}]}})";
  std::string broken = b;
  broken.resize(broken.size() - 3);
  const std::string* inputs[] = {&a, &b, &c};
  std::vector<Profile> first;
  for (const std::string* in : inputs) first.push_back(otlp::decode_single_raw(bytes(*in), in->size()));
  for (int round = 0; round < 3; ++round) {
    EXPECT_THROWS(otlp::decode_single_raw(bytes(broken), broken.size()), DecodeError, "");
    for (size_t i = 0; i < 3; ++i) EXPECT(otlp::decode_single_raw(bytes(*inputs[i]), inputs[i]->size()) == first[i]);
  }
}

int main() { return check::run_all(); }
