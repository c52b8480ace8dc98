// bind_tables: helper columns for to_pandas/to_arrow (stack ids).
#include "pybind.hpp"
#include "pprofcore/tables.hpp"

namespace pprofcore::bindings {

void bind_tables(py::module_& m) {
  m.def(
      "stack_ids",
      [](const Profile& p) {
        std::vector<int32_t> ids;
        {
          py::gil_scoped_release nogil;  // p is immutable; ids is local
          ids = stack_ids(p);
        }
        return move_to_numpy(std::move(ids));
      },
      py::arg("profile"), "Per sample, a dense id of its stack (0.. in order of first appearance).");
  m.def(
      "sample_group_ids",
      [](const Profile& p) {
        std::vector<int32_t> ids;
        {
          py::gil_scoped_release nogil;  // p is immutable; ids is local
          ids = sample_group_ids(p);
        }
        return move_to_numpy(std::move(ids));
      },
      py::arg("profile"), "Per sample, a dense id of its (stack, labels) pair: pprof's merge key.");
}

}  // namespace pprofcore::bindings
