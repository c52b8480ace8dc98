// repair_fuzzer: repair mode on mutated inputs. Whatever repair accepts must be
// a valid profile that round-trips and then decodes without repair to the same
// profile; its report must account for every dropped sample. Inputs that plain
// decoding accepts must come out of repair unchanged, with an empty report
// (dangling mapping ids aside: both modes accept them, and repair counts them).
#include <cstdint>
#include <string>

#include "fuzz_checks.hpp"
#include "pprofcore/decode.hpp"
#include "pprofcore/encode.hpp"

using namespace pprofcore;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  DecodeOptions options;
  options.max_decompressed_size = size_t(16) << 20;  // keep gzip bombs cheap
  RepairReport report;                               // selects repair mode
  Profile repaired;
  try {
    repaired = decode(data, size, options, &report);
  } catch (const DecodeError&) {
    return 0;  // beyond repair
  }
  fuzz_checks::require_valid(repaired, "repair_fuzzer");
  std::string bytes = encode_raw(repaired);
  Profile again;
  try {
    again = decode_raw(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  } catch (const DecodeError&) {
    fuzz_checks::fail("repair_fuzzer", "a repaired profile does not decode without repair");
  }
  if (!(again == repaired)) fuzz_checks::fail("repair_fuzzer", "a repaired profile changed through encode/decode");
  auto strict = fuzz_checks::decode_input(data, size);
  if (strict) {
    if (!(*strict == repaired)) fuzz_checks::fail("repair_fuzzer", "repair changed a valid profile");
    RepairReport only_mappings;
    only_mappings.dangling_mapping_refs = report.dangling_mapping_refs;
    if (report.total() != only_mappings.total())
      fuzz_checks::fail("repair_fuzzer", "repair reported fixes on a valid profile");
  }
  return 0;
}
