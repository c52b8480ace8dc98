// bind_series: series_files and series_profiles (fleet series rows, by node and label). Arguments
// are converted first; decoding and reduction run with the GIL released.
#include "pybind.hpp"
#include "pprofcore/series.hpp"

namespace pprofcore::bindings {

using PP = std::shared_ptr<Profile>;

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

// SeriesOptions from the Python arguments. `labels`: (key, numbers, edges)
// tuples, numbers one of "pow2", "edges", "exact" (the caller has checked them).
SeriesOptions series_options(const std::string& by, bool cum, const py::object& sample_type, unsigned threads,
                             const py::list& labels) {
  SeriesOptions o;
  o.nodes = !by.empty();
  if (o.nodes) o.granularity = parse_granularity(by);
  o.cum = cum;
  o.threads = threads;
  for (const py::handle& item : labels) {
    auto t = item.cast<py::tuple>();
    SeriesLabel l;
    l.key = t[0].cast<std::string>();
    const auto numbers = t[1].cast<std::string>();
    l.numbers = numbers == "edges"   ? SeriesLabel::Numbers::Edges
                : numbers == "exact" ? SeriesLabel::Numbers::Exact
                                     : SeriesLabel::Numbers::Pow2;
    l.edges = t[2].cast<std::vector<int64_t>>();
    o.labels.push_back(std::move(l));
  }
  // The Python caller has checked the type (int or str or None).
  if (py::isinstance<py::str>(sample_type)) {
    o.sample_type.kind = SampleTypeChoice::Kind::Name;
    o.sample_type.name = sample_type.cast<std::string>();
  } else if (!sample_type.is_none()) {
    o.sample_type.kind = SampleTypeChoice::Kind::Index;
    o.sample_type.index = sample_type.cast<int64_t>();
  }
  return o;
}

// Runs `reduce` without the GIL and returns its SeriesResult as a dict of arrays.
template <class Reduce>
py::dict series_dict(Reduce&& reduce) {
  SeriesResult r;
  try {
    py::gil_scoped_release nogil;  // inputs are read-only; workers fill their own slots
    r = reduce();
  } catch (const UnknownSampleType& e) {
    // Profile.sample_type_index's message: the name as Python's repr, the types as str.
    py::object error = py::module_::import("pprofcore._core").attr("ProfileError");
    py::str have = py::str(", ").attr("join")(str_list(e.have));
    py::str msg = py::str("no sample_type {}; have {}").format(py::repr(str_list({e.wanted})[0]), have);
    PyErr_SetObject(error.ptr(), msg.ptr());
    throw py::error_already_set();
  }
  py::dict out;
  out["profile"] = move_to_numpy(std::move(r.profile));
  out["name"] = move_to_numpy(std::move(r.name));
  out["value"] = move_to_numpy(std::move(r.value));
  out["names"] = str_list(r.names);
  out["total"] = move_to_numpy(std::move(r.total));
  out["time_nanos"] = move_to_numpy(std::move(r.time_nanos));
  out["duration_nanos"] = move_to_numpy(std::move(r.duration_nanos));
  out["type_names"] = str_list(r.type_names);
  out["key_node"] = move_to_numpy(std::move(r.key_node));
  out["key_labels"] = move_to_numpy(std::move(r.key_labels));
  out["label_values"] = str_list(r.label_values);
  return out;
}
}  // namespace

void bind_series(py::module_& m) {
  m.def(
      "series_files",
      [](const std::vector<std::string>& paths, const std::string& by, bool cum, py::object sample_type,
         unsigned threads, size_t max_size, const py::list& labels) {
        SeriesOptions o = series_options(by, cum, sample_type, threads, labels);
        o.decode.max_decompressed_size = max_size;
        return series_dict([&] { return series_files(paths, o, check_signals); });
      },
      py::arg("paths"), py::arg("by") = "functions", py::arg("cum") = false, py::arg("sample_type") = py::none(),
      py::arg("threads") = 0, py::arg("max_size") = size_t(4) << 30, py::arg("labels") = py::list(),
      "Per-profile non-zero flat (or cum) values per report node (and label values) of each file, as arrays (fleet "
      "series); by '' with labels: per label values only.");
  m.def(
      "series_profiles",
      [](const std::vector<PP>& profiles, const std::string& by, bool cum, py::object sample_type, unsigned threads,
         const py::list& labels) {
        const SeriesOptions o = series_options(by, cum, sample_type, threads, labels);
        std::vector<const Profile*> ptrs;
        for (const auto& p : profiles) ptrs.push_back(p.get());
        return series_dict([&] { return series_profiles(ptrs, o, check_signals); });
      },
      py::arg("profiles"), py::arg("by") = "functions", py::arg("cum") = false, py::arg("sample_type") = py::none(),
      py::arg("threads") = 0, py::arg("labels") = py::list(),
      "series_files for decoded profiles (the profiles are immutable; they are read without the GIL).");
}

}  // namespace pprofcore::bindings
