// otlp: the public entry points of otlp.hpp: decompression, the choice between
// the protobuf and the JSON reader (and between the protobuf layouts), and the
// one-profile rule of load().
#include "pprofcore/otlp.hpp"

#include <optional>
#include <string>

#include "kept_tables.hpp"
#include "message.hpp"
#include "pprofcore/gzip.hpp"
#include "pprofcore/wire.hpp"
#include "pprofcore/zstd.hpp"

namespace pprofcore::otlp {

bool looks_like_otlp(const uint8_t* data, size_t n) {
  if (detail::looks_like_json(data, n)) return true;
  // Protobuf: every top-level field is 1 or 2 and length-delimited, and the
  // first resource_profiles starts with a nested message (profile.proto's
  // field 1, a ValueType, holds varints).
  try {
    wire::Reader r(data, data, data + n);
    bool nested = false, any = false;
    while (!r.done()) {
      uint32_t tag = r.tag("");
      uint32_t field = tag >> 3, wt = tag & 7;
      if ((field != 1 && field != 2) || wt != wire::kLen) return false;
      const uint8_t* e = r.length_delimited("");
      if (field == 1 && !any && e > r.pos()) {
        wire::Reader m(data, r.pos(), e);
        uint32_t inner = m.tag("");
        nested = (inner & 7) == wire::kLen && (inner >> 3) >= 1 && (inner >> 3) <= 3;
      }
      any |= field == 1;
      r.seek(e);
    }
    return nested;
  } catch (const DecodeError&) {
    return false;
  }
}

namespace {

using detail::Layout;

// The error of a message that pprofcore cannot read, saying what the input
// was taken for (the field names are OTLP's, not pprof's) and, for an older
// layout, which.
DecodeError cannot_read(const DecodeError& e, bool json, Layout layout) {
  if (e.reason().rfind("input is an OpenTelemetry", 0) == 0) return e;
  std::string what = json ? "JSON" : "protobuf";
  if (layout != Layout::kV1_10)
    what += std::string(", read as the layout of opentelemetry-proto ") + layout_version(layout);
  return DecodeError(
      "input is an OpenTelemetry OTLP profiles message (" + what + ") that pprofcore cannot read: " + e.reason(),
      e.field(), e.offset());
}

std::vector<Decoded> decode_raw(const uint8_t* data, size_t n) {
  const bool json = detail::looks_like_json(data, n);
  detail::KeptTables tables;
  detail::Message& m = tables.message();
  if (json) {  // JSON names its fields: the reader tells the layout itself
    Layout layout = Layout::kV1_10;
    try {
      m = detail::read_json(data, n, &layout);
      return detail::to_pprof(m, tables.converter());
    } catch (const GzipError&) {
      throw;
    } catch (const DecodeError& e) {
      throw cannot_read(e, true, layout);
    }
  }
  // Protobuf: read as the newest layout, then as an older one: the one a
  // field betrays (OlderLayout), or, when a reading fails, the next older
  // (a v1.9.0 sample without attributes has v1.10.0's wire types; failing
  // readings are rare, so the extra tries cost nothing where it matters).
  // Each reading is of a strictly older layout: at most five. When none
  // succeeds, the first failure is the error. A message that reads but
  // fits an older layout better (Message::prefer_layout) is read as that
  // one when that succeeds.
  Layout layout = Layout::kV1_10;
  std::optional<DecodeError> first_failure;
  for (;;) {
    try {
      m.clear();
      detail::read_wire(data, n, m, layout);
      const Layout preferred = m.prefer_layout;
      std::vector<Decoded> out = detail::to_pprof(m, tables.converter());
      if (preferred > layout) {
        try {
          m.clear();
          detail::read_wire(data, n, m, preferred);
          return detail::to_pprof(m, tables.converter());
        } catch (const DecodeError&) {  // the layout it was read as stands
        }
      }
      return out;
    } catch (const GzipError&) {
      throw;
    } catch (const detail::OlderLayout& e) {
      if (e.layout() <= layout) throw cannot_read(e, false, layout);  // never: older() checks
      layout = e.layout();
    } catch (const DecodeError& e) {
      if (!first_failure) first_failure = cannot_read(e, false, layout);
      if (layout == Layout::kV1_6) throw *first_failure;  // the oldest
      layout = detail::older_than(layout);
    }
  }
}

}  // namespace

std::vector<Decoded> decode(const uint8_t* data, size_t n, const DecodeOptions& options) {
  if (n == 0) throw DecodeError("empty input: no profile data", "", -1);
  if (n > max_input_size(options.max_decompressed_size, gzip::is_gzip(data, n) || zstd::is_zstd(data, n)))
    throw DecodeError("input is larger than the limit of " + std::to_string(options.max_decompressed_size) +
                          " bytes (raise max_decompressed_size to allow it)",
                      "", -1);
  if (gzip::is_gzip(data, n)) {
    gzip::Buffer raw = gzip::inflate(data, n, options.max_decompressed_size, options.inflater);
    return decode_raw(raw.data(), raw.size());
  }
  if (zstd::is_zstd(data, n)) {
    gzip::Buffer raw = zstd::decompress(data, n, options.max_decompressed_size);
    return decode_raw(raw.data(), raw.size());
  }
  return decode_raw(data, n);
}

Profile decode_single_raw(const uint8_t* data, size_t n) {
  std::vector<Decoded> all = decode_raw(data, n);
  if (all.size() == 1) return std::move(all[0].profile);
  if (all.empty())
    throw DecodeError("input is an OpenTelemetry OTLP profiles message that holds no profile", "ProfilesData", -1);
  throw DecodeError("input is an OpenTelemetry OTLP profiles message that holds " + std::to_string(all.size()) +
                        " profiles (per resource, scope and sample type); read them all with pprofcore.load_otlp",
                    "ProfilesData.resource_profiles", -1);
}

}  // namespace pprofcore::otlp
