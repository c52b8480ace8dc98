// bind_tables: helper columns for to_pandas/to_arrow (stack ids, frames).
#include "pybind.hpp"
#include "pprofcore/tables.hpp"

namespace pprofcore::bindings {

namespace {

// A per-sample id column computed without the GIL (p is immutable; the ids are local).
template <std::vector<int32_t> (*ids_of)(const Profile&, size_t*)>
py::array per_sample_ids(const Profile& p) {
  std::vector<int32_t> ids;
  {
    py::gil_scoped_release nogil;
    ids = ids_of(p, nullptr);
  }
  return move_to_numpy(std::move(ids));
}

}  // namespace

void bind_tables(py::module_& m) {
  m.def("stack_ids", &per_sample_ids<stack_ids>, py::arg("profile"),
        "Per sample, a dense id of its stack (0.. in order of first appearance).");
  m.def("sample_group_ids", &per_sample_ids<sample_group_ids>, py::arg("profile"),
        "Per sample, a dense id of its (stack, labels) pair: pprof's merge key.");
  m.def(
      "frame_columns",
      [](const Profile& p) {
        FrameColumns f;
        {
          py::gil_scoped_release nogil;  // p is immutable; f is local
          f = frame_columns(p);
        }
        py::dict d;
        d["sample"] = move_to_numpy(std::move(f.sample));
        d["depth"] = move_to_numpy(std::move(f.depth));
        d["location"] = move_to_numpy(std::move(f.location));
        d["address"] = move_to_numpy(std::move(f.address));
        d["function"] = move_to_numpy(std::move(f.function));
        d["name"] = move_to_numpy(std::move(f.name));
        d["file"] = move_to_numpy(std::move(f.file));
        d["line"] = move_to_numpy(std::move(f.line));
        d["inline"] = move_to_numpy(std::move(f.is_inline)).attr("view")("bool");
        return d;
      },
      py::arg("profile"), "Columns of the frames table (one row per sample x frame, leaf first).");
}

}  // namespace pprofcore::bindings
