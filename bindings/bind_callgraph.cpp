// bind_callgraph: _core.call_graph() -> dict of pprof's call graph over report
// nodes (flat/cum per node, edges with residual/inline flags, tag counts).
#include "pybind.hpp"
#include "pprofcore/callgraph.hpp"
#include "pprofcore/graph_trim.hpp"

namespace pprofcore::bindings {

namespace {

template <typename T>
std::vector<T> vector_of(const py::handle& h, const std::string& what) {
  auto a = py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(h);
  if (!a) throw py::type_error(what + " is not an array");
  return std::vector<T>(a.data(), a.data() + a.size());
}

template <typename T>
std::vector<T> column(const py::dict& g, const char* name) {
  if (!g.contains(name)) throw py::key_error(std::string("call graph has no column ") + name);
  return vector_of<T>(g[name], std::string("call graph column ") + name);
}

// The parts of a call_graph() dict the trimming steps read.
CallGraph graph_of(const py::dict& g) {
  CallGraph out;
  out.flat = column<int64_t>(g, "flat");
  out.cum = column<int64_t>(g, "cum");
  out.src = column<int32_t>(g, "src");
  out.dst = column<int32_t>(g, "dst");
  out.weight = column<int64_t>(g, "weight");
  out.residual = column<uint8_t>(g, "residual");
  return out;
}

}  // namespace

void bind_callgraph(py::module_& m) {
  py::class_<SamplePaths>(m, "SamplePaths",
                          "Each sample's report nodes, root first: what call_graph walks (keep one per profile "
                          "and node table)")
      .def("__len__", [](const SamplePaths& s) { return s.path_nodes(); })
      .def(
          "__eq__", [](const SamplePaths& a, const SamplePaths& b) { return a == b; }, py::is_operator())
      .def_property_readonly(
          "nbytes", [](const SamplePaths& s) { return s.nbytes(); },
          "Bytes the paths hold (what a cache of them weighs; a node array shared with the paths they were "
          "derived from counts in full).");
  m.def(
      "sample_paths",
      [](const Profile& p, const NodeTable& nodes, size_t parts) {
        py::gil_scoped_release nogil;  // profile and node table are immutable
        return sample_paths(p, nodes, parts);
      },
      py::arg("profile"), py::arg("nodes"), py::arg("parts") = 0,
      "The SamplePaths of profile over the report nodes of nodes; parts: threads the walk is split into (0: two "
      "or more for big profiles while a core is idle). The paths are the same for any.");
  m.def(
      "mapped_sample_paths",
      [](const Profile& p, const NodeTable& nodes, const NodeTable& from_nodes, const SamplePaths& from, size_t parts) {
        py::gil_scoped_release nogil;  // profile, node tables and paths are immutable
        return mapped_sample_paths(from.sample_profile(p), nodes, from_nodes, from, parts);
      },
      py::arg("profile"), py::arg("nodes"), py::arg("from_nodes"), py::arg("from_paths"), py::arg("parts") = 0,
      "The sample_paths of profile over nodes, renamed from from_paths (its paths over from_nodes) when each "
      "location has as many nodes in both tables and each row of from_nodes always stands for the same row of "
      "nodes (files from lines); else None. from_paths that read another profile's samples (derived with no "
      "child) are renamed over those.");
  m.def(
      "derived_sample_paths",
      [](const Profile* child, const NodeTable& nodes, const std::shared_ptr<Profile>& parent,
         const NodeTable& parent_nodes, const SamplePaths& parent_paths,
         const std::optional<py::array_t<uint8_t, py::array::c_style | py::array::forcecast>>& kept) {
        std::vector<uint8_t> mask;
        if (kept) mask.assign(kept->data(), kept->data() + kept->size());
        py::gil_scoped_release nogil;  // profiles, node tables and paths are immutable; the mask was copied
        return derived_sample_paths(child, nodes, parent, parent_nodes, parent_paths, kept ? &mask : nullptr);
      },
      py::arg("profile"), py::arg("nodes"), py::arg("parent"), py::arg("parent_nodes"), py::arg("parent_paths"),
      py::arg("kept") = py::none(),
      "The sample_paths of profile over nodes, copied from parent_paths when profile's samples are some of "
      "parent's (same stacks and values, in order) and both node tables map locations alike; else None. kept "
      "(one byte per parent sample, as filter_by_name gives) says which, instead of matching them. profile None "
      "(with kept): the filter output's samples were left in parent (a deferred copy); the paths then read "
      "parent's samples, and call_graph takes them from there.");
  m.def(
      "hidden_sample_paths",
      [](const Profile* child, const NodeTable& nodes, const std::shared_ptr<Profile>& parent,
         const NodeTable& parent_nodes, const SamplePaths& parent_paths,
         const py::array_t<uint8_t, py::array::c_style | py::array::forcecast>& kept,
         const py::array_t<uint8_t, py::array::c_style | py::array::forcecast>& hidden) {
        const std::vector<uint8_t> k(kept.data(), kept.data() + kept.size());
        const std::vector<uint8_t> h(hidden.data(), hidden.data() + hidden.size());
        py::gil_scoped_release nogil;  // profiles, node tables and paths are immutable; the masks were copied
        return hidden_sample_paths(child, nodes, parent, parent_nodes, parent_paths, k, h);
      },
      py::arg("profile"), py::arg("nodes"), py::arg("parent"), py::arg("parent_nodes"), py::arg("parent_paths"),
      py::arg("kept"), py::arg("hidden"),
      "The sample_paths of profile over nodes, made from parent by a name filter that took the locations "
      "`hidden` marks out of every stack and kept the samples `kept` marks (filter_by_name's record): "
      "parent_paths read with the hidden frames skipped (no copy); None when the node tables do not allow it "
      "(a location kept with some of its lines hidden). profile None: the filter output's samples were left in "
      "parent, as derived_sample_paths takes it.");
  m.def(
      "share_tag_signatures",
      [](const Profile& p, const SamplePaths& paths, const Profile& from_profile, const SamplePaths& from_paths,
         const std::optional<py::array_t<uint8_t, py::array::c_style | py::array::forcecast>>& kept) {
        std::vector<uint8_t> mask;
        if (kept) mask.assign(kept->data(), kept->data() + kept->size());
        py::gil_scoped_release nogil;  // profiles are immutable, the signatures behind a lock; the mask was copied
        return share_tag_signatures(p, paths, from_profile, from_paths, kept ? &mask : nullptr);
      },
      py::arg("profile"), py::arg("paths"), py::arg("from_profile"), py::arg("from_paths"),
      py::arg("kept") = py::none(),
      "Gives paths (of profile) the label tag signatures from_paths (of from_profile) found, so no build "
      "finds them again: when profile is from_profile, or holds the samples of from_profile that kept marks "
      "(one byte per sample, as filter_by_name gives) with the same labels. False when there were none to give "
      "or they do not fit.");
  m.def(
      "call_graph",
      [](const Profile& p, const NodeTable& nodes, size_t type,
         std::optional<py::array_t<uint8_t, py::array::c_style | py::array::forcecast>> kept, int64_t tag_cutoff,
         bool edges, bool tags, const SamplePaths* paths, size_t walk_parts) {
        std::vector<uint8_t> mask;
        if (kept) mask.assign(kept->data(), kept->data() + kept->size());
        CallGraph g;
        {
          py::gil_scoped_release nogil;  // profile, node table and paths are immutable; mask is a copy
          const CallGraphParts parts{edges, tags, walk_parts};
          // paths derived for a filter output left in its input read that input's samples
          g = paths ? build_call_graph(paths->sample_profile(p), *paths, nodes.size(), type, mask, tag_cutoff, parts)
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
      py::arg("edges") = true, py::arg("tags") = true, py::arg("paths") = nullptr, py::arg("walk_parts") = 0,
      "pprof's call graph over the kept report nodes: flat, cum, edges (src, dst, weight, residual, inline), "
      "tag_count. edges=False / tags=False skip computing those (left empty / zero); paths: the profile's "
      "sample_paths over nodes, walked instead of the locations (the samples of paths derived with no child are "
      "their parent's, whatever profile is given); walk_parts: threads the walk is split into (0: one "
      "per core for big profiles).");
  m.def(
      "graph_entropy_order",
      [](const py::dict& g, const py::object& ranks) {
        const CallGraph graph = graph_of(g);
        const auto name_rank = vector_of<int32_t>(ranks, "name_rank");
        const auto nodes = column<int32_t>(g, "nodes");
        const auto keep = column<uint8_t>(g, "keep_edge");
        std::vector<int32_t> order;
        {
          py::gil_scoped_release nogil;  // everything read was copied above
          order = entropy_order(graph, nodes, keep, name_rank);
        }
        return move_to_numpy(std::move(order));
      },
      py::arg("graph"), py::arg("name_rank"),
      "pprof's EntropyOrder of graph['nodes'] (a call_graph() dict with nodes and keep_edge) as an int32 array; "
      "name_rank orders the nodes' names.");
  m.def(
      "graph_remove_redundant_edges",
      [](const py::dict& g, const py::object& nodes, const py::object& ranks) {
        const CallGraph graph = graph_of(g);
        const auto order = vector_of<int32_t>(nodes, "order");
        const auto name_rank = vector_of<int32_t>(ranks, "name_rank");
        auto keep = column<uint8_t>(g, "keep_edge");
        {
          py::gil_scoped_release nogil;  // everything read was copied above
          remove_redundant_edges(graph, order, keep, name_rank);
        }
        return move_to_numpy(std::move(keep));
      },
      py::arg("graph"), py::arg("order"), py::arg("name_rank"),
      "pprof's RemoveRedundantEdges: graph['keep_edge'] (uint8) with the redundant residual edges cleared.");
}

}  // namespace pprofcore::bindings
