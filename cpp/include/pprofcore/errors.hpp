// errors: the exceptions the core throws. Owns the message format (what, field,
// byte offset); the bindings map them onto Python exception classes.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <system_error>

namespace pprofcore {

// Malformed or unsupported input. `offset` is the byte offset in the (decompressed)
// protobuf where the problem was found, or -1 when it is not tied to one place;
// `path` names the file when the input was one ("" otherwise).
class DecodeError : public std::runtime_error {
 public:
  DecodeError(const std::string& message, std::string field, int64_t offset, std::string path = "")
      : std::runtime_error(format(message, field, offset, path)),
        field_(std::move(field)),
        offset_(offset),
        reason_(message),
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
