// kept_tables: one set of intermediate decode tables kept by the process (see
// kept_tables.hpp), and Message::clear, which empties a set for its next load.
#include "kept_tables.hpp"

#include <atomic>

namespace pprofcore::otlp::detail {

namespace {

// A process keeps at most this much of the tables' buffers (a larger set is
// freed): large.cpu's take 4.8 MB, a 44 MB message of 476k stacks
// (gen-bigheap-500k) 19.5 MB.
constexpr size_t kKeptBytes = size_t(32) << 20;

std::atomic<DecodeTables*> spare_tables{nullptr};
std::atomic<bool> decoded_before{false};

template <class V>
size_t buffer_bytes(const V& v) {
  return v.capacity() * sizeof(typename V::value_type);
}

size_t buffer_bytes(const DecodeTables& t) {
  const Message& m = t.message;
  const ConverterTables& c = t.converter;
  return buffer_bytes(m.resources) + buffer_bytes(m.mappings) + buffer_bytes(m.locations) + buffer_bytes(m.lines) +
         buffer_bytes(m.location_attributes) + buffer_bytes(m.functions) + buffer_bytes(m.links) +
         buffer_bytes(m.strings.views) + buffer_bytes(m.strings.unescaped) + buffer_bytes(m.attributes) +
         buffer_bytes(m.stack_offsets) + buffer_bytes(m.stack_packed) + buffer_bytes(m.stack_first) +
         buffer_bytes(m.stack_locations) + buffer_bytes(m.stack_offset) + buffer_bytes(c.str_code) +
         buffer_bytes(c.loc_row) + buffer_bytes(c.fn_row) + buffer_bytes(c.map_row) + buffer_bytes(c.stack_at) +
         buffer_bytes(c.attr_rows) + buffer_bytes(c.link_rows);
}

}  // namespace

void Message::clear() {
  resources.clear();
  mappings.clear();
  locations.clear();
  lines.clear();
  location_attributes.clear();
  location_folded.clear();
  functions.clear();
  links.clear();
  strings.views.clear();
  strings.bytes = 0;
  strings.unescaped.clear();
  attributes.clear();
  stack_offsets.assign(1, 0);
  stack_packed.clear();
  stack_first.clear();
  stack_locations.clear();
  wide_location = -1;
  stack_offset.clear();
  json = false;
  layout = Layout::kV1_10;
  prefer_layout = Layout::kV1_10;
  input_bytes = 0;
}

KeptTables::KeptTables() {
  keep_ = decoded_before.exchange(true);
  if (keep_) tables_.reset(spare_tables.exchange(nullptr));
  if (!tables_) tables_ = std::make_unique<DecodeTables>();
}

KeptTables::~KeptTables() {
  if (!keep_) return;
  tables_->message.clear();  // no views into this load's input, no nested values
  if (buffer_bytes(*tables_) > kKeptBytes) return;
  DecodeTables* expected = nullptr;
  if (spare_tables.compare_exchange_strong(expected, tables_.get())) tables_.release();
}

}  // namespace pprofcore::otlp::detail
