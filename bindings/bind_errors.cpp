// bind_errors: maps C++ exceptions to Python classes. DecodeError (a ValueError)
// carries .reason, .field, .offset and .path; GzipError is a DecodeError; FileError is
// the OSError subclass of its errno, naming the file. Messages quote the user's
// bytes (lines of text profiles, file names), which need not be UTF-8: every
// message becomes a str here, the one place, with such bytes shown as \xNN, and
// paths become str as os.fsdecode makes them.
#include <new>
#include <stdexcept>

#include "pybind.hpp"
#include "pprofcore/errors.hpp"

namespace pprofcore::bindings {

namespace {
PyObject* decode_error_type = nullptr;
PyObject* gzip_error_type = nullptr;
PyObject* profile_error_type = nullptr;

// A message as str: bytes that are not UTF-8 appear as \xNN (never a
// UnicodeDecodeError, which would escape load_many(errors="return")).
py::str text(const std::string& s) {
  PyObject* o = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "backslashreplace");
  if (!o) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(o);
}

// A file name as os.fsdecode gives it, so that it opens the same file again.
py::str fs_name(const std::string& s) {
  PyObject* o = PyUnicode_DecodeFSDefaultAndSize(s.data(), static_cast<Py_ssize_t>(s.size()));
  if (!o) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(o);
}

py::object decode_error(PyObject* type, const DecodeError& e) {
  py::object inst = py::reinterpret_borrow<py::object>(type)(text(e.what()));
  inst.attr("reason") = text(e.reason());
  inst.attr("field") = text(e.field());
  inst.attr("offset") = e.offset() >= 0 ? py::object(py::int_(e.offset())) : py::object(py::none());
  inst.attr("path") = e.path().empty() ? py::object(py::none()) : py::object(fs_name(e.path()));
  return inst;
}
}  // namespace

py::object exception_object(std::exception_ptr p) {
  try {
    std::rethrow_exception(p);
  } catch (const GzipError& e) {
    return decode_error(gzip_error_type, e);
  } catch (const DecodeError& e) {
    return decode_error(decode_error_type, e);
  } catch (const ProfileError& e) {
    return py::reinterpret_borrow<py::object>(profile_error_type)(text(e.what()));
  } catch (const FileError& e) {
    // OSError(errno, strerror, path) is the subclass for the errno, as open() raises.
    return py::reinterpret_borrow<py::object>(PyExc_OSError)(e.code().value(), text(e.code().message()),
                                                             fs_name(e.path()));
  } catch (const InternalError& e) {
    return py::reinterpret_borrow<py::object>(PyExc_RuntimeError)(
        text(std::string("pprofcore internal error: ") + e.what()));
  } catch (const std::invalid_argument& e) {  // e.g. a NUL byte in a path, as pybind11 maps it
    return py::reinterpret_borrow<py::object>(PyExc_ValueError)(text(e.what()));
  } catch (const std::bad_alloc&) {
    return py::reinterpret_borrow<py::object>(PyExc_MemoryError)();
  } catch (const std::exception& e) {
    return py::reinterpret_borrow<py::object>(PyExc_RuntimeError)(text(e.what()));
  }
}

void bind_errors(py::module_& m) {
  decode_error_type = PyErr_NewExceptionWithDoc(
      "pprofcore._core.DecodeError",
      "Malformed or unsupported profile input. Attributes: reason, field, offset (byte offset or None).",
      PyExc_ValueError, nullptr);
  gzip_error_type = PyErr_NewExceptionWithDoc(
      "pprofcore._core.GzipError", "Corrupt, truncated or oversized gzip input.", decode_error_type, nullptr);
  profile_error_type = PyErr_NewExceptionWithDoc(
      "pprofcore._core.ProfileError", "A valid profile that the operation cannot handle.", PyExc_ValueError, nullptr);
  m.add_object("DecodeError", py::handle(decode_error_type));
  m.add_object("GzipError", py::handle(gzip_error_type));
  m.add_object("ProfileError", py::handle(profile_error_type));
  // pprofcore's own exceptions become the objects exception_object describes
  // (the one mapping, shared with load_many's per-file results); anything else
  // falls through to pybind11's translators.
  py::register_exception_translator([](std::exception_ptr p) {
    auto raise = [](std::exception_ptr e) {
      py::object obj = exception_object(e);
      PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(obj.ptr())), obj.ptr());
    };
    try {
      if (p) std::rethrow_exception(p);
    } catch (const DecodeError&) {
      raise(std::current_exception());
    } catch (const ProfileError&) {
      raise(std::current_exception());
    } catch (const InternalError&) {
      raise(std::current_exception());
    } catch (const FileError&) {
      raise(std::current_exception());
    }
  });
}

}  // namespace pprofcore::bindings
