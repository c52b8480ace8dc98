// bind_go_repairs: the Go repairs of cpp go_repairs, each returning the new
// profile and its report as a dict of counts.
#include "pprofcore/go_repairs.hpp"
#include "pybind.hpp"

namespace pprofcore::bindings {

void bind_go_repairs(py::module_& m) {
  m.def(
      "repair_truncated_stacks",
      [](const Profile& p, int64_t depth, int64_t window) {
        TruncatedStacksReport r;
        std::shared_ptr<Profile> out;
        {
          py::gil_scoped_release nogil;  // p is immutable
          out = std::make_shared<Profile>(repair_truncated_stacks(p, depth, window, r));
        }
        py::dict report;
        report["depth"] = r.depth;
        report["truncated"] = r.truncated;
        report["repaired"] = r.repaired;
        report["ambiguous"] = r.ambiguous;
        report["frames_added"] = r.frames_added;
        return py::make_tuple(out, report);
      },
      py::arg("profile"), py::arg("depth") = 0, py::arg("window") = 8,
      "Go stacks cut at the runtime's depth completed from stacks sharing their root-most frames (cpp "
      "go_repairs.hpp).");
  m.def(
      "drop_type_params",
      [](const Profile& p) {
        TypeParamsReport r;
        std::shared_ptr<Profile> out;
        {
          py::gil_scoped_release nogil;
          out = std::make_shared<Profile>(drop_type_params(p, r));
        }
        py::dict report;
        report["functions_renamed"] = r.functions_renamed;
        report["functions_merged"] = r.functions_merged;
        return py::make_tuple(out, report);
      },
      py::arg("profile"), "Go type-parameter lists removed from function names, equal functions merged.");
  m.def("drop_go_type_params", &drop_go_type_params, py::arg("name"), "One name without its type-parameter lists.");
}

}  // namespace pprofcore::bindings
