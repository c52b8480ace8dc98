// bind_profile: the immutable _core.Profile — header scalars, zero-copy column
// views, strings, equality, encoding. The Python Profile class wraps this.
#include <system_error>

#include "pybind.hpp"
#include "pprofcore/aggregate.hpp"
#include "pprofcore/encode.hpp"

namespace pprofcore::bindings {

py::bytes to_bytes(std::string&& s) { return py::bytes(s.data(), s.size()); }

namespace {

py::dict columns(const py::object& self) {
  const Profile& p = self.cast<const Profile&>();
  py::dict d;
  const auto ns = static_cast<py::ssize_t>(p.num_samples()), nt = static_cast<py::ssize_t>(p.num_types());
  p.for_each_column([&](const char* table, const char* column, const auto& col) {
    const std::string name = *table ? std::string(table) + "." + column : std::string(column);
    if (name == "values")  // the one 2-D column: n_samples x n_types
      d["values"] = readonly_view<int64_t>(p.values.data(), {ns, nt}, {nt * 8, 8}, self);
    else
      d[py::str(name)] = readonly_view(col, self);
  });
  d["strings.data"] = readonly_view<uint8_t>(reinterpret_cast<const uint8_t*>(p.strings.data.data()),
                                             {static_cast<py::ssize_t>(p.strings.data.size())}, {1}, self);
  return d;
}

// The string table as str (raw bytes stay available through the strings.data column).
py::list string_list(const Profile& p) { return to_str_list(p.strings); }

}  // namespace

void bind_profile(py::module_& m) {
  py::class_<Profile, std::shared_ptr<Profile>>(m, "Profile",
                                                "Immutable columnar pprof profile (see pprofcore.Profile).")
      .def_property_readonly("num_samples", &Profile::num_samples)
      .def_property_readonly("num_types", &Profile::num_types)
      .def_property_readonly("has_period_type", [](const Profile& p) { return p.has_period_type; })
      .def_property_readonly("period_type_codes",
                             [](const Profile& p) { return py::make_tuple(p.period_type_type, p.period_type_unit); })
      .def_property_readonly("period", [](const Profile& p) { return p.period; })
      .def_property_readonly("time_nanos", [](const Profile& p) { return p.time_nanos; })
      .def_property_readonly("duration_nanos", [](const Profile& p) { return p.duration_nanos; })
      .def_property_readonly("drop_frames_code", [](const Profile& p) { return p.drop_frames; })
      .def_property_readonly("keep_frames_code", [](const Profile& p) { return p.keep_frames; })
      .def_property_readonly("default_sample_type_code", [](const Profile& p) { return p.default_sample_type; })
      .def_property_readonly("doc_url_code", [](const Profile& p) { return p.doc_url; })
      .def_property_readonly("num_strings", [](const Profile& p) { return p.strings.size(); })
      .def("columns", &columns, "All columns as read-only zero-copy NumPy views keyed by 'table.column'.")
      .def("string_list", &string_list, "The string table as a list of str.")
      .def("string",
           [](const Profile& p, int64_t code) {
             if (code < 0 || static_cast<size_t>(code) >= p.strings.size())
               throw py::index_error("string code out of range");
             std::string_view s = p.strings[static_cast<size_t>(code)];
             return py::reinterpret_steal<py::str>(
                 PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace"));
           })
      .def("memory_bytes", &Profile::memory_bytes)
      .def(
          "header_codes",
          [](const Profile& p) {
            py::list types;
            for (size_t i = 0; i < p.num_types(); ++i)
              types.append(py::make_tuple(p.sample_type_type[i], p.sample_type_unit[i]));
            py::dict d;
            d["sample_types"] = types;
            d["comments"] = p.comments;
            d["mapping"] = p.mappings.size()
                               ? py::object(py::make_tuple(p.mappings.filename[0], p.mappings.build_id[0]))
                               : py::object(py::none());
            return d;
          },
          "String codes of a report's header as lists: sample_types ((type, unit) pairs), comments, mapping "
          "((filename, build_id) of the first mapping, or None). Plain Python objects: no NumPy is imported.")
      .def(
          "abs_total",
          [](const Profile& p, size_t type) -> py::object {
            if (type >= p.num_types()) throw py::index_error("sample type index out of range");
            if (!sums_fit(p, type)) return py::none();
            int64_t total = 0;
            const size_t nt = p.num_types();
            for (size_t s = 0; s < p.num_samples(); ++s) {
              const int64_t v = p.values[s * nt + type];
              total += v < 0 ? -v : v;
            }
            return py::int_(total);
          },
          "Sum of |value| of one sample type over every sample (None when it leaves int64).")
      .def("equals",
           [](const Profile& a, const Profile& b) {
             // Both are immutable, so comparing without the GIL is safe.
             py::gil_scoped_release nogil;
             return a == b;
           })
      .def("check_invariants", [](const Profile& p) { check_invariants(p); })
      .def(
          "encode",
          [](const Profile& p, bool compress, int level) {
            std::string out;
            {
              py::gil_scoped_release nogil;  // p is immutable; out is local
              out = encode(p, compress, level);
            }
            return to_bytes(std::move(out));
          },
          py::arg("compress") = true, py::arg("level") = -1);
}

}  // namespace pprofcore::bindings
