// pybind: the one header every binding file includes first, so all see the same
// casters and helpers (read-only zero-copy views, GIL-free buffer access).
#pragma once
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "pprofcore/decode.hpp"
#include "pprofcore/profile.hpp"

namespace py = pybind11;

namespace pprofcore::bindings {

using ProfilePtr = std::shared_ptr<const Profile>;

// The Python exception object the translator would raise for `p` (DecodeError
// with reason/field/offset/path, OSError subclass, ...), for results that carry
// errors instead of raising them (load_many).
py::object exception_object(std::exception_ptr p);

// The one default size limit of every entry point (DecodeOptions' own), also
// exported as _core.DEFAULT_MAX_DECOMPRESSED_SIZE for the Python signatures.
inline const size_t kDefaultMaxSize = DecodeOptions{}.max_decompressed_size;

// A read-only NumPy view of `data` whose base is `owner`, so the view keeps the
// owner (and its immutable Profile) alive.
template <class T>
py::array readonly_view(const T* data, std::vector<py::ssize_t> shape, std::vector<py::ssize_t> strides,
                        py::handle owner) {
  // NumPy rejects a null data pointer even for empty arrays.
  static const T empty{};
  py::array a(py::dtype::of<T>(), std::move(shape), std::move(strides), data ? data : &empty, owner);
  py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return a;
}

template <class T>
py::array readonly_view(const std::vector<T>& v, py::handle owner) {
  return readonly_view<T>(v.data(), {static_cast<py::ssize_t>(v.size())}, {static_cast<py::ssize_t>(sizeof(T))}, owner);
}

// A freshly computed vector handed to NumPy without a copy (owned by a capsule).
template <class T>
py::array move_to_numpy(std::vector<T>&& v) {
  auto* heap = new std::vector<T>(std::move(v));
  py::capsule owner(heap, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>({static_cast<py::ssize_t>(heap->size())}, {static_cast<py::ssize_t>(sizeof(T))}, heap->data(),
                        owner);
}

// Contiguous bytes of any buffer-protocol object (bytes, bytearray, memoryview, mmap).
// A writable buffer (bytearray, writable memoryview or array) is copied while the
// GIL is held: another Python thread may change it once the GIL is released, and
// the decoder reads some bytes more than once (prescan, split, error location).
struct ByteView {
  py::buffer_info info;
  std::string copy;  // the bytes of a writable buffer; empty for read-only ones
  explicit ByteView(const py::buffer& b) : info(b.request()) {
    if (info.ndim > 1 || (info.ndim == 1 && info.strides[0] != info.itemsize))
      throw py::value_error("expected a contiguous bytes-like object");
    if (!info.readonly) copy.assign(static_cast<const char*>(info.ptr), size());
  }
  const uint8_t* data() const {
    return info.readonly ? static_cast<const uint8_t*>(info.ptr) : reinterpret_cast<const uint8_t*>(copy.data());
  }
  size_t size() const { return static_cast<size_t>(info.size * info.itemsize); }
};

// Runs `f` holding `mu` without holding the GIL while waiting: the mutex's owner
// may run with the GIL released and then need it back (progress callbacks,
// result conversion), so waiting with the GIL could deadlock.
template <class F>
auto locked(std::mutex& mu, F&& f) {
  py::gil_scoped_release nogil;
  std::lock_guard<std::mutex> lock(mu);
  return f();
}

py::bytes to_bytes(std::string&& s);

// A string table as a list of str (invalid UTF-8 replaced, as everywhere in the API).
inline py::list to_str_list(const StringTable& t) {
  py::list out(t.size());
  for (size_t i = 0; i < t.size(); ++i) {
    std::string_view s = t[i];
    PyObject* u = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace");
    if (!u) throw py::error_already_set();
    PyList_SET_ITEM(out.ptr(), static_cast<Py_ssize_t>(i), u);
  }
  return out;
}

// The Poll of batch operations that run with the GIL released (io.hpp): takes
// the GIL briefly and, when a signal arrived, runs its Python handler; what the
// handler raises (KeyboardInterrupt for Ctrl-C) cancels the batch.
inline void check_signals() {
  py::gil_scoped_acquire gil;
  if (PyErr_CheckSignals() != 0) throw py::error_already_set();
}

void bind_errors(py::module_& m);
void bind_profile(py::module_& m);
void bind_codec(py::module_& m);
void bind_filter(py::module_& m);
void bind_merge(py::module_& m);
void bind_aggregate(py::module_& m);
void bind_tables(py::module_& m);
void bind_stacks(py::module_& m);
void bind_callgraph(py::module_& m);
void bind_graph_layout(py::module_& m);
void bind_symbolize(py::module_& m);
void bind_series(py::module_& m);
void bind_go_repairs(py::module_& m);
void bind_otlp(py::module_& m);
void bind_jfr(py::module_& m);

}  // namespace pprofcore::bindings
