// bind_series: series_files (fleet series rows straight from files). Arguments
// are converted first; decoding and reduction run with the GIL released.
#include "pybind.hpp"
#include "pprofcore/series.hpp"

namespace pprofcore::bindings {

namespace {
// Strings as a list of str, invalid UTF-8 replaced (as everywhere in the API).
py::list str_list(const std::vector<std::string>& v) {
  py::list out(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    PyObject* u = PyUnicode_DecodeUTF8(v[i].data(), static_cast<Py_ssize_t>(v[i].size()), "replace");
    if (!u) throw py::error_already_set();
    PyList_SET_ITEM(out.ptr(), static_cast<Py_ssize_t>(i), u);
  }
  return out;
}
}  // namespace

void bind_series(py::module_& m) {
  m.def(
      "series_files",
      [](const std::vector<std::string>& paths, const std::string& by, bool cum, py::object sample_type,
         unsigned threads, size_t max_size) {
        SeriesOptions o;
        o.granularity = parse_granularity(by);
        o.cum = cum;
        o.threads = threads;
        o.decode.max_decompressed_size = max_size;
        // The Python caller has checked the type (int or str or None).
        if (py::isinstance<py::str>(sample_type)) {
          o.sample_type.kind = SampleTypeChoice::Kind::Name;
          o.sample_type.name = sample_type.cast<std::string>();
        } else if (!sample_type.is_none()) {
          o.sample_type.kind = SampleTypeChoice::Kind::Index;
          o.sample_type.index = sample_type.cast<int64_t>();
        }
        SeriesResult r;
        try {
          py::gil_scoped_release nogil;  // workers read files into their own buffers; `paths` is read-only
          r = series_files(paths, o, check_signals);
        } catch (const UnknownSampleType& e) {
          // Profile.sample_type_index's message: the name as Python's repr, the types as str.
          py::object error = py::module_::import("pprofcore._core").attr("ProfileError");
          py::str have = py::str(", ").attr("join")(str_list(e.have));
          py::str msg = py::str("no sample_type {}; have {}").format(py::repr(str_list({e.wanted})[0]), have);
          PyErr_SetObject(error.ptr(), msg.ptr());
          throw py::error_already_set();
        }
        py::list names = str_list(r.names);
        py::dict out;
        out["profile"] = move_to_numpy(std::move(r.profile));
        out["name"] = move_to_numpy(std::move(r.name));
        out["value"] = move_to_numpy(std::move(r.value));
        out["names"] = names;
        out["total"] = move_to_numpy(std::move(r.total));
        out["time_nanos"] = move_to_numpy(std::move(r.time_nanos));
        out["duration_nanos"] = move_to_numpy(std::move(r.duration_nanos));
        out["type_names"] = str_list(r.type_names);
        return out;
      },
      py::arg("paths"), py::arg("by") = "functions", py::arg("cum") = false, py::arg("sample_type") = py::none(),
      py::arg("threads") = 0, py::arg("max_size") = size_t(4) << 30,
      "Per-profile non-zero flat (or cum) values per report node of each file, as arrays (fleet series).");
}

}  // namespace pprofcore::bindings
