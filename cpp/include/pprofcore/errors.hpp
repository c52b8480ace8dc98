// errors: the exceptions the core throws. Owns the message format (what, field,
// byte offset); the bindings map them onto Python exception classes.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

namespace pprofcore {

// Length of the valid UTF-8 sequence at s[i], or 0: overlong forms, surrogates
// and code points past U+10FFFF are invalid, as Python's strict decoder has it.
inline size_t utf8_sequence_length(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<uint8_t>(s[k]); };
  const uint8_t c = b(i);
  size_t n = c < 0x80                   ? 1
             : (c >= 0xc2 && c <= 0xdf) ? 2
             : (c >= 0xe0 && c <= 0xef) ? 3
             : (c >= 0xf0 && c <= 0xf4) ? 4
                                        : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((b(i + k) & 0xc0) != 0x80) return 0;
  if ((c == 0xe0 && b(i + 1) < 0xa0) || (c == 0xed && b(i + 1) >= 0xa0) || (c == 0xf0 && b(i + 1) < 0x90) ||
      (c == 0xf4 && b(i + 1) >= 0x90))
    return 0;
  return n;
}

// `s` with every byte that is not part of a valid UTF-8 sequence written as
// \xNN. Messages quote input (names, attributes, headers) and Python builds a
// str from them, which fails on invalid UTF-8; escaping here covers every
// message, whichever reader wrote it.
inline std::string valid_utf8_text(std::string_view s) {
  static const char* kHex = "0123456789abcdef";
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const size_t n = utf8_sequence_length(s, i);
    if (n == 0) {
      const auto c = static_cast<uint8_t>(s[i]);
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
      ++i;
    } else {
      out.append(s.data() + i, n);
      i += n;
    }
  }
  return out;
}

// Malformed or unsupported input. `offset` is the byte offset in the (decompressed)
// protobuf where the problem was found, or -1 when it is not tied to one place;
// `path` names the file when the input was one ("" otherwise). The message and
// field are kept as valid UTF-8 (valid_utf8_text); `path` is kept as given.
class DecodeError : public std::runtime_error {
 public:
  DecodeError(const std::string& message, const std::string& field, int64_t offset, std::string path = "")
      : std::runtime_error(valid_utf8_text(format(message, field, offset, path))),
        field_(valid_utf8_text(field)),
        offset_(offset),
        reason_(valid_utf8_text(message)),
        path_(std::move(path)) {}

  const std::string& field() const { return field_; }
  int64_t offset() const { return offset_; }
  const std::string& reason() const { return reason_; }
  const std::string& path() const { return path_; }

 private:
  static std::string format(const std::string& message, const std::string& field, int64_t offset,
                            const std::string& path) {
    std::string s = path.empty() ? message : path + ": " + message;
    if (!field.empty()) s += " (field " + field + ")";
    if (offset >= 0) s += " at byte offset " + std::to_string(offset);
    return s;
  }
  std::string field_;
  int64_t offset_;
  std::string reason_;
  std::string path_;
};

// Decompression failures (corrupt gzip, CRC mismatch, size limit exceeded).
class GzipError : public DecodeError {
 public:
  using DecodeError::DecodeError;
};

// An operation that is valid input but cannot be done (e.g. incompatible profiles).
class ProfileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A broken contract between the layers (e.g. a mask of the wrong length from
// the Python side): a bug in pprofcore, never the user's input. Python sees
// RuntimeError("pprofcore internal error: ...").
class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

// An OS error reading an input file: errno in code(), the file in path()
// (EISDIR for a directory). Python sees the matching OSError subclass.
class FileError : public std::system_error {
 public:
  FileError(int err, const std::string& path) : std::system_error(err, std::generic_category(), path), path_(path) {}
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace pprofcore
