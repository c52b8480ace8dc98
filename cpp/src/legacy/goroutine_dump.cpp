// goroutine_dump: Go goroutine dumps -> a goroutine profile (see goroutine_dump.hpp).
// The grammar is the runtime's traceback printer (runtime/traceback.go):
//
//   goroutine <id>[ gp=0x.. m=<n|nil>[ mp=0x..]] [<state>[, <n> minutes][, locked to thread]]:
//   <function>(<args>)                      one frame: "(...)" for inlined calls
//   \t<file>:<line>[ +0x<pc offset>][ fp=0x.. sp=0x.. pc=0x..]
//   ...additional frames elided...  |  ...<n> frames elided...
//   created by <function>[ in goroutine <id>]
//   \t<file>:<line>[ +0x<pc offset>]
//
// A frame printed without a PC offset is an inlined call: it shares a location
// with the next frame that has one, as in the profile runtime/pprof writes.
#include "pprofcore/goroutine_dump.hpp"

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pprofcore/errors.hpp"
#include "pprofcore/legacy_text.hpp"
#include "pprofcore/strings.hpp"

namespace pprofcore {
namespace {

using legacy::LineReader;

const char* const kFormat = "Go goroutine dump";

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_lower_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f'); }
bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool ends_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}
bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!is_digit(c)) return false;
  return true;
}
bool blank(std::string_view s) { return legacy::trim_space(s).empty(); }

// "goroutine " and a digit: a header, or a malformed one.
bool looks_like_header(std::string_view line) {
  return line.size() > 10 && starts_with(line, "goroutine ") && is_digit(line[10]);
}

// The first line of a crash report before its goroutines: "panic: ...", "fatal
// error: ...", "SIGQUIT: quit", "unexpected fault address ...", "runtime: ...".
bool is_crash_line(std::string_view line) {
  if (starts_with(line, "panic: ") || starts_with(line, "fatal error: ") || starts_with(line, "fatal: ") ||
      starts_with(line, "unexpected fault address ") || starts_with(line, "runtime: ") || starts_with(line, "[signal "))
    return true;
  if (!starts_with(line, "SIG")) return false;
  size_t i = 3;
  while (i < line.size() && ((line[i] >= 'A' && line[i] <= 'Z') || is_digit(line[i]))) ++i;
  return i > 3 && line.substr(i, 2) == ": ";
}

// Lines of a crash report that may sit between goroutines: the signal header
// of another thread's dump ("SIGQUIT: quit", "PC=0x... m=2 sigcode=0"), the
// "-----" separator of GOTRACEBACK=crash, register dumps ("rax    0x0"), and
// the exit line `go run` appends.
bool is_register_line(std::string_view line) {
  size_t i = 0;
  if (line.empty() || line[0] < 'a' || line[0] > 'z') return false;
  while (i < line.size() && ((line[i] >= 'a' && line[i] <= 'z') || is_digit(line[i]))) ++i;
  size_t s = i;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  if (i == s || line.substr(i, 2) != "0x" || i + 2 >= line.size()) return false;
  for (i += 2; i < line.size(); ++i)
    if (!is_lower_hex(line[i])) return false;
  return true;
}
bool is_exit_line(std::string_view line) { return starts_with(line, "exit status ") && all_digits(line.substr(12)); }
bool is_interlude_line(std::string_view line) {
  return is_crash_line(line) || starts_with(line, "PC=0x") || line == "-----" || is_register_line(line) ||
         is_exit_line(line);
}

struct Header {
  uint64_t goid = 0;
  std::string_view state;
  int64_t wait_minutes = -1;
  bool locked = false;
  std::string detail_text;
};

bool parse_u64(std::string_view s, uint64_t& v) {
  if (!all_digits(s) || s.size() > 19) return false;
  v = 0;
  for (char c : s) v = v * 10 + uint64_t(c - '0');
  return true;
}

// "goroutine <id>[ key=value...] [<state>, <facts>]:" -> h; false if malformed.
bool parse_header(std::string_view line, Header& h) {
  size_t i = 10, d = i;
  while (i < line.size() && is_digit(line[i])) ++i;
  if (!parse_u64(line.substr(d, i - d), h.goid)) return false;
  // Go 1.23+ with GOTRACEBACK=system: " gp=0x... m=<n> mp=0x..." (or " m=nil").
  while (i < line.size() && line[i] == ' ' && i + 1 < line.size() && line[i + 1] != '[') {
    size_t e = line.find(' ', i + 1);
    std::string_view kv = line.substr(i + 1, e == std::string_view::npos ? std::string_view::npos : e - i - 1);
    if (kv.find('=') == std::string_view::npos) return false;
    i = e == std::string_view::npos ? line.size() : e;
  }
  if (line.substr(i, 2) != " [" || !ends_with(line, "]:")) return false;
  std::string_view inside = line.substr(i + 2, line.size() - i - 4);
  // "<state>[, <n> minutes][, locked to thread]"; other facts go to `detail`.
  size_t comma = inside.find(", ");
  h.state = inside.substr(0, comma);
  if (h.state.empty()) return false;
  while (comma != std::string_view::npos) {
    size_t next = inside.find(", ", comma + 2);
    const size_t len = next == std::string_view::npos ? std::string_view::npos : next - comma - 2;
    std::string_view part = inside.substr(comma + 2, len);
    uint64_t minutes;
    if (ends_with(part, " minutes") && parse_u64(part.substr(0, part.size() - 8), minutes) &&
        minutes <= uint64_t(INT64_MAX)) {
      h.wait_minutes = static_cast<int64_t>(minutes);
    } else if (part == "locked to thread") {
      h.locked = true;
    } else {
      if (!h.detail_text.empty()) h.detail_text += ", ";
      h.detail_text.append(part.data(), part.size());
    }
    comma = next;
  }
  return true;
}

// "\t<file>:<line>[ +0x<offset>][ fp=.. sp=.. pc=..]" (and cgo's "\t[<file>:<line> ]pc=0x..").
struct FileLine {
  std::string_view file;
  int64_t line = 0;
  bool has_offset = false;  // a return address: a real (not inlined) frame
  uint64_t pc = 0;          // cgo frames: the pc printed instead of an offset
  bool has_pc = false;
};

bool parse_file_line(std::string_view s, FileLine& fl) {
  if (s.empty() || s[0] != '\t') return false;
  s.remove_prefix(1);
  if (size_t fp = s.find(" fp=0x"); fp != std::string_view::npos) s = s.substr(0, fp);
  // cgo symbolizer frames: "<file>:<line> pc=0x..." or just "pc=0x...".
  size_t pc = starts_with(s, "pc=0x") ? 0 : s.rfind(" pc=0x");
  if (pc != std::string_view::npos) {
    std::string_view hex = s.substr(pc + (pc == 0 ? 5 : 6));
    if (!legacy::parse_hex(hex, fl.pc)) return false;
    fl.has_pc = fl.has_offset = true;
    if (pc == 0) return true;
    s = s.substr(0, pc);
  }
  if (size_t plus = s.rfind(" +0x"); plus != std::string_view::npos) {
    std::string_view hex = s.substr(plus + 4);
    uint64_t off;
    if (legacy::parse_hex(hex, off)) {
      fl.has_offset = true;
      s = s.substr(0, plus);
    }
  }
  size_t colon = s.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return false;
  uint64_t line;
  if (!parse_u64(s.substr(colon + 1), line) || line > uint64_t(INT64_MAX)) return false;
  fl.file = s.substr(0, colon);
  fl.line = static_cast<int64_t>(line);
  return true;
}

// "<name>(<args>)": the arguments are hex words, "{", "}", ",", "?", "..." and
// spaces, so the last "(" opens them. False when the line is not a call.
bool split_call(std::string_view line, std::string_view& name) {
  if (line.empty() || line.back() != ')') return false;
  size_t open = line.rfind('(');
  if (open == std::string_view::npos || open == 0 || line[0] == ' ' || line[0] == '\t') return false;
  for (char c : line.substr(open + 1, line.size() - open - 2))
    if (!(is_lower_hex(c) || c == 'x' || c == '{' || c == '}' || c == ',' || c == '?' || c == '.' || c == ' '))
      return false;
  name = line.substr(0, open);
  return true;
}

// "...additional frames elided..." (a stack cut at its end) or, since Go 1.21,
// "...<n> frames elided..." (frames left out of the middle).
bool is_elision(std::string_view line) {
  if (line == "...additional frames elided...") return true;
  if (!starts_with(line, "...") || !ends_with(line, " frames elided...")) return false;
  return all_digits(line.substr(3, line.size() - 3 - 17));
}

// Builds the profile: functions by (name, file), locations by their lines.
class DumpBuilder {
 public:
  DumpBuilder() {
    p_.sample_type_type.push_back(strings_.intern("goroutine"));
    p_.sample_type_unit.push_back(strings_.intern("count"));
    p_.has_period_type = true;
    p_.period_type_type = p_.sample_type_type[0];
    p_.period_type_unit = p_.sample_type_unit[0];
    p_.period = 1;
    k_state_ = strings_.intern("state");
    k_goid_ = strings_.intern("goid");
    k_wait_ = strings_.intern("wait");
    u_minutes_ = strings_.intern("minutes");
    k_locked_ = strings_.intern("locked_to_thread");
    v_true_ = strings_.intern("true");
    k_created_by_ = strings_.intern("created_by");
    k_parent_ = strings_.intern("parent_goid");
    k_detail_ = strings_.intern("detail");
  }

  void comment(std::string_view s) { p_.comments.push_back(strings_.intern(s)); }

  // A frame of the current goroutine, leaf first; `physical` closes a location.
  void frame(std::string_view name, std::string_view file, int64_t line, bool physical) {
    pending_.emplace_back(function(name, file), line);
    if (physical) flush();
  }
  // A marker frame of its own (an elision): inlined frames before it keep theirs.
  void gap(std::string_view marker) {
    flush();
    frame(marker, "", 0, true);
  }
  // A frame known only by its pc (cgo without a symbolizer).
  void address_frame(uint64_t pc) {
    flush();
    auto [it, added] = address_index_.emplace(pc, static_cast<int32_t>(p_.locations.size()));
    if (added) add_location(pc);
    p_.stack_locations.push_back(it->second);
  }

  void begin(const Header& h) {
    p_.values.push_back(1);
    str_label(k_state_, text(h.state));
    if (h.goid != 0) num_label(k_goid_, static_cast<int64_t>(h.goid), 0);  // 0: see goroutine_dump.hpp
    if (h.wait_minutes > 0) num_label(k_wait_, h.wait_minutes, u_minutes_);
    if (h.locked) str_label(k_locked_, v_true_);
    if (!h.detail_text.empty()) str_label(k_detail_, strings_.intern(h.detail_text));
  }
  void created_by(std::string_view fn, uint64_t parent) {
    str_label(k_created_by_, text(fn));
    if (parent != 0) num_label(k_parent_, static_cast<int64_t>(parent), 0);
  }
  void end() {
    flush();
    p_.stack_offsets.push_back(static_cast<int64_t>(p_.stack_locations.size()));
    p_.label_offsets.push_back(static_cast<int64_t>(p_.labels.size()));
  }

  Profile finish() {
    p_.strings = strings_.take();
    return std::move(p_);
  }

 private:
  // Views into the input, which outlives the parse: no copies per frame.
  struct ViewPairHash {
    size_t operator()(const std::pair<std::string_view, std::string_view>& k) const {
      return std::hash<std::string_view>()(k.first) * 31 + std::hash<std::string_view>()(k.second);
    }
  };
  int32_t text(std::string_view s) {
    auto it = text_index_.find(s);
    if (it == text_index_.end()) it = text_index_.emplace(s, strings_.intern(s)).first;
    return it->second;
  }
  int32_t function(std::string_view name, std::string_view file) {
    auto key = std::make_pair(name, file);
    auto it = function_index_.find(key);
    if (it != function_index_.end()) return it->second;
    int32_t row = static_cast<int32_t>(p_.functions.size());
    function_index_.emplace(key, row);
    int32_t code = text(name);
    p_.functions.id.push_back(p_.functions.size() + 1);
    p_.functions.name.push_back(code);
    p_.functions.system_name.push_back(code);
    p_.functions.filename.push_back(text(file));
    p_.functions.start_line.push_back(0);
    return row;
  }
  void flush() {
    if (pending_.empty()) return;
    key_.clear();
    for (auto& [fn, line] : pending_) {
      key_.append(reinterpret_cast<const char*>(&fn), sizeof fn);
      key_.append(reinterpret_cast<const char*>(&line), sizeof line);
    }
    auto it = location_index_.find(key_);
    if (it == location_index_.end()) {
      it = location_index_.emplace(key_, static_cast<int32_t>(p_.locations.size())).first;
      for (auto& [fn, line] : pending_) {
        p_.lines.function.push_back(fn);
        p_.lines.line.push_back(line);
        p_.lines.column.push_back(0);
      }
      add_location(0);
    }
    p_.stack_locations.push_back(it->second);
    pending_.clear();
  }
  void add_location(uint64_t address) {
    p_.locations.id.push_back(p_.locations.size() + 1);
    p_.locations.mapping.push_back(-1);
    p_.locations.address.push_back(address);
    p_.locations.is_folded.push_back(0);
    p_.locations.line_offsets.push_back(static_cast<int64_t>(p_.lines.size()));
  }
  void str_label(int32_t key, int32_t value) { label(key, value, 0, 0); }
  void num_label(int32_t key, int64_t value, int32_t unit) { label(key, -1, value, unit); }
  void label(int32_t key, int32_t str, int64_t num, int32_t unit) { p_.labels.push_back(key, str, num, unit); }

  Profile p_;
  StringInterner strings_;
  std::unordered_map<std::pair<std::string_view, std::string_view>, int32_t, ViewPairHash> function_index_;
  std::unordered_map<std::string_view, int32_t> text_index_;
  std::unordered_map<std::string, int32_t> location_index_;  // key: the (function, line) pairs
  std::unordered_map<uint64_t, int32_t> address_index_;      // cgo frames known by pc only
  std::vector<std::pair<int32_t, int64_t>> pending_;         // inlined frames awaiting their location
  std::string key_;
  int32_t k_state_, k_goid_, k_wait_, u_minutes_, k_locked_, v_true_, k_created_by_, k_parent_, k_detail_;
};

// "created by <function>[ in goroutine <id>]" -> function and parent id (0 if absent).
bool parse_created_by(std::string_view line, std::string_view& fn, uint64_t& parent) {
  if (!starts_with(line, "created by ")) return false;
  fn = line.substr(11);
  parent = 0;
  if (size_t in = fn.rfind(" in goroutine "); in != std::string_view::npos && parse_u64(fn.substr(in + 14), parent))
    fn = fn.substr(0, in);
  return !fn.empty();
}

}  // namespace

bool decode_goroutine_dump(const char* data, size_t n, Profile& out) {
  // Binary input (perf.data, JFR, ...) is not scanned line by line: dumps are text.
  if (std::memchr(data, 0, n < 4096 ? n : 4096) != nullptr) return false;
  LineReader r(data, n);
  // Find where the dump starts: a crash header or the first goroutine.
  int64_t skipped = 0;
  bool found = false;
  while (r.next()) {
    std::string_view line = r.line();
    if (looks_like_header(line) || is_crash_line(line)) {
      found = true;
      break;
    }
    if (!blank(line)) ++skipped;
  }
  if (!found) return false;

  DumpBuilder b;
  auto fail = [&](const std::string& what) { legacy::fail_line(kFormat, r, what); };
  // The crash header: comments up to the first goroutine ("runtime stack:" frames skipped).
  const int64_t first_line = r.number();
  bool skipping_frames = false;
  while (!looks_like_header(r.line())) {
    std::string_view line = r.line();
    if (line == "runtime stack:")
      skipping_frames = true;
    else if (blank(line))
      skipping_frames = false;
    else if (!skipping_frames)
      b.comment(line);
    if (!r.next()) {
      // Text that merely has a "panic: " line somewhere is not claimed.
      if (skipped > 0) return false;
      throw DecodeError(std::string(kFormat) + ": crash output from line " + std::to_string(first_line) +
                            " has no goroutine traceback (no line \"goroutine <id> [<state>]:\")",
                        "line " + std::to_string(first_line), -1);
    }
  }
  if (skipped > 0) b.comment("pprofcore: " + std::to_string(skipped) + " lines before the dump skipped");

  enum class State { Between, Frames, AfterCreatedBy, Ancestors, RuntimeStack };
  State state = State::Between;
  bool in_goroutine = false;
  size_t goroutines = 0;
  do {
    std::string_view line = r.line();
    if (looks_like_header(line)) {
      Header h;
      if (!parse_header(line, h)) fail("malformed goroutine header (expected \"goroutine <id> [<state>]:\")");
      if (in_goroutine) b.end();
      b.begin(h);
      in_goroutine = true;
      ++goroutines;
      state = State::Frames;
      continue;
    }
    if (blank(line)) {
      if (in_goroutine) b.end();
      in_goroutine = false;
      state = State::Between;
      continue;
    }
    // `go run` prints "exit status 2" right under the last frame, with no blank
    // line first; as the dump's last line it ends the goroutine.
    if (state != State::Between && is_exit_line(line) && blank(r.remaining())) {
      if (in_goroutine) b.end();
      in_goroutine = false;
      break;
    }
    switch (state) {
      case State::RuntimeStack:
      case State::Ancestors:
        continue;  // frames that belong to no goroutine of the profile
      case State::Between:
        if (line == "runtime stack:") {
          state = State::RuntimeStack;
        } else if (is_interlude_line(line)) {
          if (is_crash_line(line) || starts_with(line, "PC=0x")) b.comment(line);
        } else {
          fail("expected \"goroutine <id> [<state>]:\" or a blank line");
        }
        continue;
      case State::AfterCreatedBy:
      case State::Frames:
        break;
    }
    if (starts_with(line, "[originating from goroutine ")) {
      state = State::Ancestors;
      continue;
    }
    if (is_elision(line)) {
      b.gap(line);  // a visible gap in the stack
      continue;
    }
    if (state == State::AfterCreatedBy) fail("unexpected line after the \"created by\" frame");
    if (line == "\tgoroutine running on other thread; stack unavailable") continue;
    if (starts_with(line, "non-Go function at pc=0x")) {
      uint64_t pc;
      if (!legacy::parse_hex(line.substr(24), pc)) fail("bad pc in a non-Go frame");
      b.address_frame(pc);
      continue;
    }
    std::string_view created_fn;
    uint64_t parent = 0;
    const bool created = parse_created_by(line, created_fn, parent);
    std::string_view name;
    const bool call = !created && split_call(line, name);
    if (!created && !call) {
      if (line[0] == '\t') fail("a file:line without its function line");
      // cgo symbolizer frames print the name alone; their next line has the pc.
      if (line[0] == ' ' || line.find('\t') != std::string_view::npos || line.find('(') != std::string_view::npos)
        fail("expected a function call \"<name>(<args>)\", \"created by <name>\" or a blank line");
      name = line;
    }
    // Views into the input stay valid after the reader moves on.
    const int64_t call_line = r.number();
    const std::string_view fn = created ? created_fn : name;
    if (!r.next()) fail("truncated: the frame has no \"\\t<file>:<line>\" line");
    FileLine fl;
    if (!parse_file_line(r.line(), fl))
      fail("expected \"\\t<file>:<line> +0x<offset>\" after the function line " + std::to_string(call_line));
    if (!created && !call && !fl.has_pc)
      fail("expected \"<name>(<args>)\" in line " + std::to_string(call_line) + " (a call has its arguments)");
    if (created) {
      b.created_by(fn, parent);
      state = State::AfterCreatedBy;
    } else {
      b.frame(fn, fl.file, fl.line, fl.has_offset);
    }
  } while (r.next());
  if (in_goroutine) b.end();
  if (goroutines == 0) return false;
  out = b.finish();
  return true;
}

}  // namespace pprofcore
