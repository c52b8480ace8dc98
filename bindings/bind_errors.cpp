// bind_errors: maps C++ exceptions to Python classes. DecodeError (a ValueError)
// carries .reason, .field, .offset and .path; GzipError is a DecodeError; FileError is
// the OSError subclass of its errno, naming the file.
#include <new>
#include <stdexcept>

#include "pybind.hpp"
#include "pprofcore/errors.hpp"

namespace pprofcore::bindings {

namespace {
PyObject* decode_error_type = nullptr;
PyObject* gzip_error_type = nullptr;
PyObject* profile_error_type = nullptr;

py::object decode_error(PyObject* type, const DecodeError& e) {
  py::object inst = py::reinterpret_steal<py::object>(PyObject_CallFunction(type, "s", e.what()));
  if (!inst) throw py::error_already_set();
  inst.attr("reason") = e.reason();
  inst.attr("field") = e.field();
  inst.attr("offset") = e.offset() >= 0 ? py::object(py::int_(e.offset())) : py::object(py::none());
  inst.attr("path") = e.path().empty() ? py::object(py::none()) : py::object(py::str(e.path()));
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
    return py::reinterpret_borrow<py::object>(profile_error_type)(e.what());
  } catch (const FileError& e) {
    // OSError(errno, strerror, path) is the subclass for the errno, as open() raises.
    return py::reinterpret_borrow<py::object>(PyExc_OSError)(e.code().value(), e.code().message(), e.path());
  } catch (const InternalError& e) {
    return py::reinterpret_borrow<py::object>(PyExc_RuntimeError)(std::string("pprofcore internal error: ") + e.what());
  } catch (const std::invalid_argument& e) {  // e.g. a NUL byte in a path, as pybind11 maps it
    return py::reinterpret_borrow<py::object>(PyExc_ValueError)(e.what());
  } catch (const std::bad_alloc&) {
    return py::reinterpret_borrow<py::object>(PyExc_MemoryError)();
  } catch (const std::exception& e) {
    return py::reinterpret_borrow<py::object>(PyExc_RuntimeError)(e.what());
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
