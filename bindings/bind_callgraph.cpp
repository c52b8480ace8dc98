// bind_callgraph: _core.call_graph() -> dict of pprof's call graph over report
// nodes (flat/cum per node, edges with residual/inline flags, tag counts).
#include "pybind.hpp"
#include "pprofcore/callgraph.hpp"

namespace pprofcore::bindings {

void bind_callgraph(py::module_& m) {
  py::class_<SamplePaths>(m, "SamplePaths",
                          "Each sample's report nodes, root first: what call_graph walks (keep one per profile "
                          "and node table)")
      .def("__len__", [](const SamplePaths& s) { return s.nodes.size(); });
  m.def(
      "sample_paths",
      [](const Profile& p, const NodeTable& nodes) {
        py::gil_scoped_release nogil;  // profile and node table are immutable
        return sample_paths(p, nodes);
      },
      py::arg("profile"), py::arg("nodes"), "The SamplePaths of profile over the report nodes of nodes.");
  m.def(
      "call_graph",
      [](const Profile& p, const NodeTable& nodes, size_t type,
         std::optional<py::array_t<uint8_t, py::array::c_style | py::array::forcecast>> kept, int64_t tag_cutoff,
         bool edges, bool tags, const SamplePaths* paths) {
        std::vector<uint8_t> mask;
        if (kept) mask.assign(kept->data(), kept->data() + kept->size());
        CallGraph g;
        {
          py::gil_scoped_release nogil;  // profile, node table and paths are immutable; mask is a copy
          const CallGraphParts parts{edges, tags};
          g = paths ? build_call_graph(p, *paths, nodes.size(), type, mask, tag_cutoff, parts)
                    : build_call_graph(p, nodes, type, mask, tag_cutoff, parts);
        }
        py::dict d;
        d["flat"] = move_to_numpy(std::move(g.flat));
        d["cum"] = move_to_numpy(std::move(g.cum));
        d["src"] = move_to_numpy(std::move(g.src));
        d["dst"] = move_to_numpy(std::move(g.dst));
        d["weight"] = move_to_numpy(std::move(g.weight));
        d["residual"] = move_to_numpy(std::move(g.residual));
        d["inline"] = move_to_numpy(std::move(g.is_inline));
        d["tag_count"] = move_to_numpy(std::move(g.tag_count));
        return d;
      },
      py::arg("profile"), py::arg("nodes"), py::arg("type"), py::arg("kept") = py::none(), py::arg("tag_cutoff") = 0,
      py::arg("edges") = true, py::arg("tags") = true, py::arg("paths") = nullptr,
      "pprof's call graph over the kept report nodes: flat, cum, edges (src, dst, weight, residual, inline), "
      "tag_count. edges=False / tags=False skip computing those (left empty / zero); paths: the profile's "
      "sample_paths over nodes, walked instead of the locations.");
}

}  // namespace pprofcore::bindings
