// bind_symbolize: hands frames resolved in Python (by llvm-symbolizer or
// addr2line) to cpp symbolize, which builds the new profile.
#include "pybind.hpp"
#include "pprofcore/symbolize.hpp"

namespace pprofcore::bindings {

namespace {

template <class T>
std::vector<T> to_vec(const py::handle& o) {
  auto a = py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(o);
  if (!a) throw py::type_error("symbolize: expected an array");
  return std::vector<T>(a.data(), a.data() + a.size());
}

}  // namespace

void bind_symbolize(py::module_& m) {
  m.def(
      "apply_symbols",
      [](const Profile& p, const py::object& location, const py::object& frame_offsets, const py::object& name,
         const py::object& system_name, const py::object& filename, const py::object& line, const py::object& column,
         const py::object& start_line, std::vector<std::string> strings, const py::object& mapping_flags) {
        ResolvedFrames r;
        r.location = to_vec<int32_t>(location);
        r.frame_offsets = to_vec<int64_t>(frame_offsets);
        r.name = to_vec<int32_t>(name);
        r.system_name = to_vec<int32_t>(system_name);
        r.filename = to_vec<int32_t>(filename);
        r.line = to_vec<int64_t>(line);
        r.column = to_vec<int64_t>(column);
        r.start_line = to_vec<int64_t>(start_line);
        r.strings = std::move(strings);
        r.mapping_flags = to_vec<uint8_t>(mapping_flags);
        std::shared_ptr<Profile> out;
        {
          py::gil_scoped_release nogil;  // p is immutable; every argument was copied above
          out = std::make_shared<Profile>(apply_symbols(p, r));
        }
        return out;
      },
      py::arg("profile"), py::arg("location"), py::arg("frame_offsets"), py::arg("name"), py::arg("system_name"),
      py::arg("filename"), py::arg("line"), py::arg("column"), py::arg("start_line"), py::arg("strings"),
      py::arg("mapping_flags"),
      "A copy of profile whose given locations take the resolved frames (cpp symbolize.hpp).");
  m.def(
      "with_main_mapping",
      [](const Profile& p, const std::string& exec_name) {
        py::gil_scoped_release nogil;  // p is immutable; exec_name was copied
        return std::make_shared<Profile>(with_main_mapping(p, exec_name));
      },
      py::arg("profile"), py::arg("exec_name"),
      "pprof's driver step before symbolizing: a placeholder mapping for a profile without any, and the "
      "executable named on the command line as the first mapping's file (cpp symbolize.hpp).");
  m.def(
      "with_function_names",
      [](const Profile& p, const py::object& rows, std::vector<std::string> names) {
        std::vector<int32_t> r = to_vec<int32_t>(rows);
        py::gil_scoped_release nogil;  // p is immutable; rows and names were copied
        return std::make_shared<Profile>(with_function_names(p, r, names));
      },
      py::arg("profile"), py::arg("rows"), py::arg("names"),
      "A copy of profile whose given function rows take the given names, system names unchanged (cpp "
      "symbolize.hpp).");
  m.def(
      "with_mapping_files",
      [](const Profile& p, const py::object& rows, std::vector<std::string> files) {
        std::vector<int32_t> r = to_vec<int32_t>(rows);
        py::gil_scoped_release nogil;  // p is immutable; rows and files were copied
        return std::make_shared<Profile>(with_mapping_files(p, r, files));
      },
      py::arg("profile"), py::arg("rows"), py::arg("files"),
      "A copy of profile whose given mapping rows have the given files (cpp symbolize.hpp).");
  m.def(
      "demangle_candidates",
      [](const Profile& p, bool force) {
        std::vector<int32_t> rows;
        {
          py::gil_scoped_release nogil;  // p is immutable
          rows = demangle_candidates(p, force);
        }
        return py::array_t<int32_t>(static_cast<py::ssize_t>(rows.size()), rows.data());
      },
      py::arg("profile"), py::arg("force"),
      "The function rows whose name pprof's demangling may change (a superset; cpp symbolize.hpp).");
}

}  // namespace pprofcore::bindings
