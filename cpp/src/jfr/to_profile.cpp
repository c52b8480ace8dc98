// to_profile: the events of each chunk (chunk.hpp) as samples of one profile.
// What maps to what is in docs/formats.md ("JFR"): the event types read, their
// sample types and labels, frames as package.Class.method with the JVM
// descriptor as system name, inlined frames as inline lines of one location.
#include <algorithm>
#include <array>
#include <cstring>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "chunk.hpp"
#include "pprofcore/errors.hpp"
#include "pprofcore/jfr.hpp"
#include "pprofcore/key_index.hpp"
#include "pprofcore/memory.hpp"

namespace pprofcore::jfr {

namespace {

enum Kind : uint8_t { kCpu, kWall, kAlloc, kLock, kCpuTime, kMalloc, kLive, kNumKinds };

struct EventType {
  const char* name;
  Kind kind;
  const char* detail;  // the allocation or event label
};

// The JDK's events, then async-profiler's own (profiler.*) and the JDK 25
// CPU-time sampler's.
constexpr std::array<EventType, 12> kEventTypes = {{
    {"jdk.ExecutionSample", kCpu, ""},
    {"jdk.NativeMethodSample", kWall, ""},
    {"jdk.ObjectAllocationInNewTLAB", kAlloc, "in_new_tlab"},
    {"jdk.ObjectAllocationOutsideTLAB", kAlloc, "outside_tlab"},
    {"jdk.ObjectAllocationSample", kAlloc, "sample"},
    {"jdk.JavaMonitorEnter", kLock, "jdk.JavaMonitorEnter"},
    {"jdk.ThreadPark", kLock, "jdk.ThreadPark"},
    {"profiler.WallClockSample", kWall, ""},
    {"profiler.NativeLock", kLock, "profiler.NativeLock"},
    {"jdk.CPUTimeSample", kCpuTime, ""},
    {"profiler.Malloc", kMalloc, ""},
    {"profiler.LiveObject", kLive, ""},
}};

constexpr std::array<const char*, kNumKinds> kKindNames = {"cpu",      "wall",   "alloc", "lock",
                                                           "cpu_time", "malloc", "live"};
constexpr std::array<std::array<std::pair<const char*, const char*>, 2>, kNumKinds> kSampleTypes = {{
    {{{"cpu_samples", "count"}, {nullptr, nullptr}}},
    {{{"wall_samples", "count"}, {nullptr, nullptr}}},
    {{{"alloc_objects", "count"}, {"alloc_space", "bytes"}}},
    {{{"contentions", "count"}, {"delay", "nanoseconds"}}},
    {{{"cpu_time_samples", "count"}, {"cpu_time", "nanoseconds"}}},
    {{{"malloc_objects", "count"}, {"malloc_space", "bytes"}}},
    {{{"live_objects", "count"}, {"live_space", "bytes"}}},
}};

// Kinds whose second sample type is the event's weight (the others count events).
constexpr bool weighted(Kind k) { return k == kAlloc || k == kLock || k == kCpuTime || k == kMalloc || k == kLive; }

int event_type_index(std::string_view name) {
  for (size_t i = 0; i < kEventTypes.size(); ++i)
    if (name == kEventTypes[i].name) return static_cast<int>(i);
  return -1;
}

// The fields of one event type that a sample needs (-1: absent).
struct Plan {
  const EventType* type = nullptr;
  const Class* cls = nullptr;
  int start = -1, thread = -1, stack = -1, weight = -1, klass = -1;
  int count = -1;      // async-profiler's WallClockSample: the samples one event stands for
  int state = -1;      // wall-clock events: the thread's state (jdk.types.ThreadState)
  int32_t detail = 0;  // the string code of type->detail
};

Plan plan_for(const Class& cls) {
  Plan p;
  p.type = &kEventTypes[static_cast<size_t>(event_type_index(cls.name))];
  p.cls = &cls;
  p.start = cls.find("startTime");
  p.thread = cls.find("sampledThread");
  if (p.thread < 0) p.thread = cls.find("eventThread");
  p.stack = cls.find("stackTrace");
  const std::string_view detail = p.type->detail;
  if (p.type->kind == kAlloc) {
    p.weight = cls.find(detail == "in_new_tlab" ? "tlabSize" : detail == "sample" ? "weight" : "allocationSize");
    p.klass = cls.find("objectClass");
  } else if (p.type->kind == kLock) {
    p.weight = cls.find("duration");
    p.klass = cls.find("monitorClass");
    if (p.klass < 0) p.klass = cls.find("parkedClass");
  } else if (p.type->kind == kWall) {
    p.count = cls.find("samples");
    p.state = cls.find("state");
  } else if (p.type->kind == kCpuTime) {
    p.weight = cls.find("samplingPeriod");
  } else if (p.type->kind == kMalloc) {
    p.weight = cls.find("size");
  } else if (p.type->kind == kLive) {
    p.weight = cls.find("allocationSize");
    p.klass = cls.find("objectClass");
  }
  return p;
}

std::string dotted(std::string_view s) {
  std::string out(s);
  for (char& ch : out)
    if (ch == '/') ch = '.';
  return out;
}

// The profile being built: interned strings, functions and locations, and
// the samples (their kind and up to two values until the columns are known).
class Builder {
 public:
  Builder() {
    for (const char* key :
         {"thread", "class", "allocation", "event", "timestamp_ns", "thread_id", "nanoseconds", "state"})
      codes_.push_back(strings_.intern(key));
  }

  int32_t string(std::string_view s) { return strings_.intern(s); }

  int32_t function(int32_t name, int32_t system_name) {
    const uint64_t key =
        (static_cast<uint64_t>(static_cast<uint32_t>(name)) << 32) | static_cast<uint32_t>(system_name);
    auto [it, added] = functions_.try_emplace(key, static_cast<int32_t>(p_.functions.size()));
    if (added) {
      p_.functions.id.push_back(p_.functions.size() + 1);
      p_.functions.name.push_back(name);
      p_.functions.system_name.push_back(system_name);
      p_.functions.filename.push_back(0);
      p_.functions.start_line.push_back(0);
    }
    return it->second;
  }

  // The location of `lines` ((function row, line), innermost first).
  int32_t location(const std::vector<std::pair<int32_t, int64_t>>& lines) {
    const auto row = static_cast<int32_t>(p_.locations.size());
    bool added;
    int32_t found;
    if (lines.size() == 1 && lines[0].second >= 0 && lines[0].second < (int64_t{1} << 32)) {
      // Most locations are one frame: a number for a key, not bytes.
      const uint64_t key = (static_cast<uint64_t>(lines[0].first) << 32) | static_cast<uint64_t>(lines[0].second);
      auto it = single_locations_.try_emplace(key, row);
      added = it.second, found = it.first->second;
    } else {
      // Field by field: the bytes of a pair include its padding, which differs
      // from one vector to the next and would keep equal locations apart.
      key_.clear();
      for (const auto& [fn, line] : lines) {
        key_.append(reinterpret_cast<const char*>(&fn), sizeof(fn));
        key_.append(reinterpret_cast<const char*>(&line), sizeof(line));
      }
      auto it = locations_.try_emplace(key_, row);
      added = it.second, found = it.first->second;
    }
    if (added) {
      Locations& l = p_.locations;
      l.id.push_back(l.size() + 1);
      l.mapping.push_back(-1);
      l.address.push_back(0);
      l.is_folded.push_back(0);
      for (const auto& [fn, line] : lines) {
        p_.lines.function.push_back(fn);
        p_.lines.line.push_back(line);
        p_.lines.column.push_back(0);
      }
      l.line_offsets.push_back(static_cast<int64_t>(p_.lines.size()));
    }
    return found;
  }

  // Sizes the sample columns for `events` events in all: reserved memory is
  // free until written, while a column that grows by doubling copies itself
  // into fresh pages each time. Each column's rows per event so far project
  // its end (before any: at most one sample and five labels per event, and a
  // guess of deep stacks); huge pages follow that projection (HugePageGrowth).
  void size_columns(size_t events) {
    const size_t done = kinds_.size();
    const double rest = static_cast<double>(events > done ? events - done : 0);
    const double seen = static_cast<double>(std::max<size_t>(done, 1));
    size_t k = 0;
    const auto size = [&](auto& column, double per_event_before_any) {
      const double per_event = done == 0 ? per_event_before_any : static_cast<double>(column.size()) / seen;
      const auto projected = static_cast<size_t>(static_cast<double>(column.size()) + per_event * rest);
      if (column.capacity() < projected) column.reserve(projected + projected / 4 + 64);
      growth_[k++].update(column, column.size() + (projected - column.size()) * 9 / 10);
    };
    size(kinds_, 1), size(weights_, 1), size(p_.stack_offsets, 1), size(p_.label_offsets, 1);
    size(p_.stack_locations, 32);
    p_.labels.for_each_column([&](const char*, auto& c) { size(c, 5); });
  }

  void add(Kind kind, int64_t weight, const int32_t* stack, size_t depth, int64_t time, int32_t thread,
           int64_t thread_id, int32_t klass, int32_t detail, int32_t state) {
    kinds_.push_back(kind);
    weights_.push_back(weight);
    p_.stack_locations.insert(p_.stack_locations.end(), stack, stack + depth);
    p_.stack_offsets.push_back(static_cast<int64_t>(p_.stack_locations.size()));
    Labels& l = p_.labels;
    if (thread != 0) l.push_back(code(kThread), thread, 0, 0);
    if (klass != 0) l.push_back(code(kClass), klass, 0, 0);
    if (kind == kAlloc || kind == kLock) l.push_back(code(kind == kAlloc ? kAllocation : kEvent), detail, 0, 0);
    l.push_back(code(kTimestamp), -1, time, code(kNanoseconds));
    if (thread_id != 0) l.push_back(code(kThreadId), -1, thread_id, 0);
    if (state != 0) l.push_back(code(kState), state, 0, 0);
    p_.label_offsets.push_back(static_cast<int64_t>(l.size()));
    min_time_ = kinds_.size() == 1 ? time : std::min(min_time_, time);
    max_time_ = kinds_.size() == 1 ? time : std::max(max_time_, time);
  }

  Profile finish() {
    std::array<bool, kNumKinds> present{};
    for (uint8_t k : kinds_) present[k] = true;
    std::array<int, kNumKinds> column{};
    std::string names;
    for (int k = 0; k < kNumKinds; ++k) {
      if (!present[static_cast<size_t>(k)]) continue;
      column[static_cast<size_t>(k)] = static_cast<int>(p_.num_types());
      for (const auto& [type, unit] : kSampleTypes[static_cast<size_t>(k)]) {
        if (type == nullptr) continue;
        p_.sample_type_type.push_back(string(type));
        p_.sample_type_unit.push_back(string(unit));
      }
      if (names.empty()) p_.default_sample_type = p_.sample_type_type.back();
      names += (names.empty() ? "" : ", ") + std::string(kKindNames[static_cast<size_t>(k)]);
    }
    if (names.empty()) {
      std::string list;
      for (const EventType& e : kEventTypes) list += (list.empty() ? "" : ", ") + std::string(e.name);
      throw DecodeError("JFR: the recording has none of the events pprofcore reads (" + list +
                            "); record with settings=profile, or with async-profiler",
                        "", -1);
    }
    const size_t width = p_.num_types();
    reserve_huge(p_.values, kinds_.size() * width);
    p_.values.assign(kinds_.size() * width, 0);
    for (size_t i = 0; i < kinds_.size(); ++i) {
      const Kind k = static_cast<Kind>(kinds_[i]);
      int64_t* row = &p_.values[i * width + static_cast<size_t>(column[k])];
      // A counting kind's weight is how many samples the event stands for (1 but for async-profiler's wall clock).
      row[0] = weighted(k) ? 1 : weights_[i];
      if (weighted(k)) row[1] = weights_[i];
    }
    p_.comments.push_back(string("JFR events: " + names));
    p_.time_nanos = min_time_;
    p_.duration_nanos = static_cast<int64_t>(static_cast<uint64_t>(max_time_) - static_cast<uint64_t>(min_time_));
    p_.strings = strings_.take();
    return std::move(p_);
  }

 private:
  enum Code { kThread, kClass, kAllocation, kEvent, kTimestamp, kThreadId, kNanoseconds, kState };
  int32_t code(Code c) const { return codes_[c]; }

  Profile p_;
  StringInterner strings_;
  std::vector<int32_t> codes_;
  std::unordered_map<uint64_t, int32_t> functions_;
  std::unordered_map<uint64_t, int32_t> single_locations_;
  std::unordered_map<std::string, int32_t> locations_;
  std::string key_;
  std::vector<uint8_t> kinds_;
  std::vector<int64_t> weights_;
  int64_t min_time_ = 0, max_time_ = 0;
  std::array<HugePageGrowth, 9> growth_;  // the columns size_columns() sizes, in its order
};

// Values computed once per constant pool key: every event looks up its
// thread and stack. Keys are mostly small counters (the JDK numbers stack
// traces and threads from 1), read as an array index; others go through an
// open-addressing index (one cache line a lookup). The array stays below
// `dense_limit` entries, so that a chunk of a few bytes costs a few bytes.
template <class V>
class KeyCache {
 public:
  explicit KeyCache(size_t dense_limit) : dense_limit_(dense_limit) {}

  template <class Compute>
  V get(int64_t key, Compute compute) {
    const auto k = static_cast<uint64_t>(key);
    const auto fresh = static_cast<int32_t>(values_.size());
    int32_t row;
    if (k < dense_limit_) {
      if (k >= dense_.size()) dense_.resize(std::min<size_t>(std::max<size_t>(2 * k, 64), dense_limit_), -1);
      row = dense_[k];
      if (row < 0) dense_[k] = fresh;
    } else if (k == ~uint64_t{0}) {
      return compute();  // KeyIndex reserves this key
    } else {
      if (!index_) index_.emplace();
      row = index_->find_or_insert(k, fresh);
    }
    if (row >= 0) return values_[static_cast<size_t>(row)];
    values_.push_back(compute());
    return values_.back();
  }

 private:
  size_t dense_limit_;
  std::vector<int32_t> dense_;
  std::optional<KeyIndex> index_;  // made for the first key beyond the array
  std::vector<V> values_;
};

// The samples of one chunk; the caches hold pool keys of this chunk only.
class ChunkSamples {
 public:
  ChunkSamples(const Chunk& c, Builder& b)
      : c_(c),
        b_(b),
        threads_(dense_limit(c)),
        classes_(dense_limit(c)),
        states_(dense_limit(c)),
        methods_(dense_limit(c)),
        inlined_(dense_limit(c)),
        stacks_(dense_limit(c)) {}

  // Adds a sample per event; `expected` events in the whole recording (an
  // estimate) size the profile's columns as they fill.
  void add_all(const uint8_t* data, size_t expected) {
    constexpr size_t kResizeEvery = 1 << 16;
    for (size_t i = 0; i < c_.events.size(); ++i) {
      if (i % kResizeEvery == 0) b_.size_columns(expected);
      const Chunk::Event& e = c_.events[i];
      const Plan& plan = plan_of(e.type);
      // The event's fields, read in place: a record would cost a slot per
      // field and a lookup per field read back.
      scratch_.clear();
      scratch_.max_slots = 16 * (e.end - e.pos) + (1 << 16);
      Reader r(data, e.pos, e.end, c_.compressed);
      const std::vector<Field>& fields = plan.cls->fields;
      raw_.resize(fields.size());
      for (size_t f = 0; f < fields.size(); ++f) raw_[f] = c_.parse_field(r, fields[f], scratch_, 1);
      add(plan);
    }
  }

 private:
  struct Thread {
    int32_t name;
    int64_t id;
  };
  struct Span {
    size_t offset, size;
  };

  static size_t dense_limit(const Chunk& c) { return std::min<size_t>(c.end - c.start, 1 << 20); }

  const Plan& plan_of(int64_t type) {
    for (const auto& [t, plan] : plans_)
      if (t == type) return plan;
    Plan plan = plan_for(c_.classes.at(type));
    plan.detail = b_.string(plan.type->detail);
    plans_.emplace_back(type, plan);
    return plans_.back().second;
  }

  // Field `index` of the event just read (kNull when the type lacks it).
  Handle field(const Plan& plan, int index) const {
    if (index < 0) return {};
    return c_.field_value(plan.cls->fields[static_cast<size_t>(index)], raw_[static_cast<size_t>(index)], scratch_);
  }

  void add(const Plan& plan) {
    const Kind kind = plan.type->kind;
    const Handle start = field(plan, plan.start);
    const int64_t time = start.kind == Handle::kNumber ? c_.ticks_to_nanos(start.v) : 0;
    const Thread t = thread(field(plan, plan.thread));
    const Span s = stack(field(plan, plan.stack));
    int64_t weight = 1;
    int32_t klass = 0, detail = 0, state = 0;
    if (weighted(kind)) {
      const Handle w = field(plan, plan.weight);
      weight = 0;
      if (w.kind == Handle::kNumber) weight = kind == kLock || kind == kCpuTime ? c_.duration_nanos(w.v) : w.v;
      klass = class_name(field(plan, plan.klass));
      detail = plan.detail;
    } else if (kind == kWall) {
      if (plan.count >= 0) {
        const Handle n = field(plan, plan.count);
        if (n.kind == Handle::kNumber) weight = n.v;
      }
      state = state_name(field(plan, plan.state));
    }
    b_.add(kind, weight, stack_rows_.data() + s.offset, s.size, time, t.name, t.id, klass, detail, state);
  }

  Thread thread(const Handle& ref) {
    if (ref.kind != Handle::kRef) return read_thread(ref);
    return threads_.get(ref.v, [&] { return read_thread(c_.resolve(ref)); });
  }

  Thread read_thread(const Handle& t) {
    if (t.kind != Handle::kRecord) return {0, 0};
    std::string_view name = c_.text(c_.field(t, "javaName"));
    if (name.empty()) name = c_.text(c_.field(t, "osName"));
    const Handle id = c_.field(t, "javaThreadId");
    return {b_.string(name), id.kind == Handle::kNumber ? id.v : 0};
  }

  // A thread state's name (STATE_RUNNABLE, STATE_SLEEPING, ...; 0: none).
  int32_t state_name(const Handle& ref) {
    if (ref.kind != Handle::kRef) return read_state_name(ref);
    return states_.get(ref.v, [&] { return read_state_name(c_.resolve(ref)); });
  }

  int32_t read_state_name(const Handle& st) {
    if (st.kind != Handle::kRecord) return 0;
    const std::string_view name = c_.text(c_.field(st, "name"));
    return name.empty() ? 0 : b_.string(name);
  }

  int32_t class_name(const Handle& ref) {
    if (ref.kind != Handle::kRef) return read_class_name(ref);
    return classes_.get(ref.v, [&] { return read_class_name(c_.resolve(ref)); });
  }

  int32_t read_class_name(const Handle& cls) {
    if (cls.kind != Handle::kRecord) return 0;
    return b_.string(dotted(c_.text(c_.field(cls, "name"))));
  }

  Span stack(const Handle& ref) {
    if (ref.kind != Handle::kRef) return read_stack(ref);
    return stacks_.get(ref.v, [&] { return read_stack(c_.resolve(ref)); });
  }

  Span read_stack(const Handle& st) {
    const size_t offset = stack_rows_.size();
    const Handle frames = c_.field(st, "frames");
    pending_.clear();
    for (size_t i = 0, n = c_.length(frames); i < n; ++i) {
      const Handle f = c_.element(frames, i);
      if (f.kind != Handle::kRecord) continue;
      if (!frame_known_ || f.type != frame_type_) {  // a frame's fields, looked up once per frame type
        const Class& cls = *f.cls;
        frame_known_ = true;
        frame_type_ = f.type;
        frame_method_ = cls.find("method"), frame_line_ = cls.find("lineNumber"), frame_kind_ = cls.find("type");
      }
      const Handle line = c_.field(f, frame_line_);
      pending_.emplace_back(method(c_.field(f, frame_method_)),
                            line.kind == Handle::kNumber && line.v > 0 ? line.v : 0);
      if (inlined(c_.field(f, frame_kind_))) continue;
      stack_rows_.push_back(b_.location(pending_));
      pending_.clear();
    }
    if (!pending_.empty()) stack_rows_.push_back(b_.location(pending_));
    const Handle truncated = c_.field(st, "truncated");
    if (truncated.kind == Handle::kNumber && truncated.v != 0) {
      const int32_t name = b_.string("[truncated]");
      pending_.assign(1, {b_.function(name, name), 0});
      stack_rows_.push_back(b_.location(pending_));
    }
    return {offset, stack_rows_.size() - offset};
  }

  int32_t method(const Handle& ref) {
    if (ref.kind != Handle::kRef) return read_method(ref);
    return methods_.get(ref.v, [&] { return read_method(c_.resolve(ref)); });
  }

  int32_t read_method(const Handle& m) {
    if (m.kind != Handle::kRecord) return b_.function(b_.string("<unknown method>"), 0);
    const Handle cls = c_.resolve(c_.field(m, "type"));
    std::string full = cls.kind == Handle::kRecord ? dotted(c_.text(c_.field(cls, "name"))) : std::string();
    const std::string_view name = c_.text(c_.field(m, "name"));
    if (!full.empty()) full += '.';
    full += name;
    const int32_t code = b_.string(full);
    full += c_.text(c_.field(m, "descriptor"));
    return b_.function(code, b_.string(full));
  }

  bool inlined(const Handle& ref) {
    if (ref.kind != Handle::kRef) return is_inlined(ref);
    return inlined_.get(ref.v, [&] { return is_inlined(c_.resolve(ref)); });
  }

  bool is_inlined(const Handle& type) const {
    return type.kind == Handle::kRecord && c_.text(c_.field(type, "description")) == "Inlined";
  }

  const Chunk& c_;
  Builder& b_;
  std::vector<std::pair<int64_t, Plan>> plans_;  // a few event types: a list beats a map
  Values scratch_;                               // the event's values that are not numbers or keys
  std::vector<int64_t> raw_;                     // the event's fields as parse_field returned them
  KeyCache<Thread> threads_;
  KeyCache<int32_t> classes_, states_, methods_;
  KeyCache<bool> inlined_;
  KeyCache<Span> stacks_;
  std::vector<int32_t> stack_rows_;
  std::vector<std::pair<int32_t, int64_t>> pending_;
  bool frame_known_ = false;  // frame_type_ and the field rows below are set
  int64_t frame_type_ = 0;
  int frame_method_ = -1, frame_line_ = -1, frame_kind_ = -1;
};

}  // namespace

bool looks_like_jfr(const uint8_t* data, size_t n) { return n >= 4 && std::memcmp(data, "FLR\0", 4) == 0; }

Profile read(const uint8_t* data, size_t n) {
  Builder b;
  const auto wanted = [](std::string_view name) { return event_type_index(name) >= 0; };
  Chunk c;
  size_t events = 0;  // in the chunks read so far
  for (size_t pos = 0; pos < n;) {
    c.read(data, n, pos, wanted);
    events += c.events.size();
    // Chunks of a recording are alike: expect as many events per byte in the rest.
    const auto expected =
        static_cast<size_t>(static_cast<double>(events) * static_cast<double>(n) / static_cast<double>(c.end));
    ChunkSamples(c, b).add_all(data, expected);
    pos = c.end;
  }
  return b.finish();
}

}  // namespace pprofcore::jfr
