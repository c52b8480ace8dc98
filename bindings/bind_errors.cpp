// bind_errors: maps C++ exceptions to Python classes. DecodeError (a ValueError)
// carries .reason, .field and .offset; GzipError is a DecodeError; FileError is
// the OSError subclass of its errno, naming the file.
#include <cerrno>

#include "pybind.hpp"
#include "pprofcore/errors.hpp"

namespace pprofcore::bindings {

namespace {
PyObject* decode_error_type = nullptr;
PyObject* gzip_error_type = nullptr;
PyObject* profile_error_type = nullptr;

void raise_decode_error(PyObject* type, const DecodeError& e) {
  py::object inst = py::reinterpret_steal<py::object>(PyObject_CallFunction(type, "s", e.what()));
  if (!inst) return;  // error already set
  inst.attr("reason") = e.reason();
  inst.attr("field") = e.field();
  inst.attr("offset") = e.offset() >= 0 ? py::object(py::int_(e.offset())) : py::object(py::none());
  PyErr_SetObject(type, inst.ptr());
}
}  // namespace

void bind_errors(py::module_& m) {
  decode_error_type = PyErr_NewExceptionWithDoc(
      "pprofcore._core.DecodeError",
      "Malformed or unsupported profile input. Attributes: reason, field, offset (byte offset or None).",
      PyExc_ValueError, nullptr);
  gzip_error_type = PyErr_NewExceptionWithDoc("pprofcore._core.GzipError",
                                              "Corrupt, truncated or oversized gzip input.", decode_error_type,
                                              nullptr);
  profile_error_type = PyErr_NewExceptionWithDoc(
      "pprofcore._core.ProfileError", "A valid profile that the operation cannot handle.", PyExc_ValueError, nullptr);
  m.add_object("DecodeError", py::handle(decode_error_type));
  m.add_object("GzipError", py::handle(gzip_error_type));
  m.add_object("ProfileError", py::handle(profile_error_type));
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const GzipError& e) {
      raise_decode_error(gzip_error_type, e);
    } catch (const DecodeError& e) {
      raise_decode_error(decode_error_type, e);
    } catch (const ProfileError& e) {
      PyErr_SetString(profile_error_type, e.what());
    } catch (const FileError& e) {
      // The OSError subclass for the errno (FileNotFoundError, IsADirectoryError...).
      errno = e.code().value();
      PyErr_SetFromErrnoWithFilename(PyExc_OSError, e.path().c_str());
    }
  });
}

}  // namespace pprofcore::bindings
