// bind_stacks: _core.call_tree() -> dict of the flame graph call tree's columns
// (tree nodes in pre-order and the frame table). Python lays out and renders.
#include <optional>

#include "pybind.hpp"
#include "pprofcore/stacks.hpp"

namespace pprofcore::bindings {

void bind_stacks(py::module_& m) {
  // Frame names and files stay C++ strings until read: a page shows a few
  // dozen of a profile's tens of thousands of frames, and making a str of
  // every one took about a fifth of a flame graph's time (large.cpu: 46,000).
  py::class_<StringTable>(m, "Strings", "A read-only sequence of str (invalid UTF-8 replaced), made on access.")
      .def("__len__", &StringTable::size)
      .def("__getitem__",
           [](const StringTable& t, py::ssize_t i) {
             const auto n = static_cast<py::ssize_t>(t.size());
             if (i < 0) i += n;
             if (i < 0 || i >= n) throw py::index_error("string index out of range");
             std::string_view s = t[static_cast<size_t>(i)];
             PyObject* u = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace");
             if (!u) throw py::error_already_set();
             return py::reinterpret_steal<py::str>(u);
           })
      .def(
          "__eq__", [](const StringTable& a, const StringTable& b) { return a == b; }, py::is_operator())
      .def("tolist", &to_str_list, "Every string, as a list.");
  py::class_<PathSums>(m, "PathSums",
                       "Every sample type's frame sums of one profile and node table (_core.path_sums), "
                       "kept so call_tree(sums=...) of another sample type reads no frame outside the kept tree.")
      .def_property_readonly("nbytes", &PathSums::bytes);
  m.def(
      "path_sums",
      [](const Profile& p, const NodeTable& nodes, bool inverted) {
        py::gil_scoped_release nogil;  // profiles and node tables are immutable
        return path_sums(p, nodes, inverted);
      },
      py::arg("profile"), py::arg("nodes"), py::arg("inverted") = false,
      "Each sample's path length and pprof's flat and cum per frame for every sample type, for call_tree(sums=...).");
  py::class_<KeptTree>(m, "KeptTree",
                       "Every sample type's trimmed call tree of one profile and node table (_core.kept_tree), "
                       "kept so call_tree(kept=...) reads a covered type's tree off it without a split.")
      .def_property_readonly("nbytes", &KeptTree::bytes)
      .def("__len__", &KeptTree::size)
      .def("covers", &KeptTree::covers, py::arg("type"), py::arg("min_fraction"),
           "Whether the tree of this sample type trimmed at min_fraction is read off this one.")
      .def(
          "built_for", [](const KeptTree& k, const Profile& p) { return k.sums.profile == &p; }, py::arg("profile"),
          "Whether this tree's sums were computed for this C++ profile (call_tree(kept=...) takes no other).");
  m.def(
      "kept_tree",
      [](const Profile& p, const NodeTable& nodes, bool inverted, double min_fraction, double slack) {
        py::gil_scoped_release nogil;  // profiles and node tables are immutable
        return kept_tree(p, nodes, inverted, min_fraction, slack);
      },
      py::arg("profile"), py::arg("nodes"), py::arg("inverted") = false, py::arg("min_fraction") = 0.0005,
      py::arg("slack") = 0.5, py::keep_alive<0, 1>(), py::keep_alive<0, 2>(),
      "Every sample type's trimmed call tree (trimmed at slack * min_fraction) and path sums, for "
      "call_tree(kept=...) and derive_kept_tree.");
  m.def(
      "derive_kept_tree",
      [](const Profile& child, const NodeTable& nodes, const KeptTree& parent,
         const std::optional<py::array_t<uint8_t, py::array::c_style | py::array::forcecast>>& kept,
         const std::optional<py::array_t<uint8_t, py::array::c_style | py::array::forcecast>>& hidden,
         const std::optional<py::array_t<uint8_t, py::array::c_style | py::array::forcecast>>& used, bool deferred) {
        std::vector<uint8_t> mask, gone, in_stacks;
        if (kept) mask.assign(kept->data(), kept->data() + kept->size());
        if (hidden) gone.assign(hidden->data(), hidden->data() + hidden->size());
        if (used) in_stacks.assign(used->data(), used->data() + used->size());
        if (hidden && !kept) throw py::value_error("derive_kept_tree: hidden needs kept");
        if (deferred && !kept) throw py::value_error("derive_kept_tree: deferred needs kept");
        py::gil_scoped_release nogil;  // profiles, node tables and kept trees are immutable; the masks were copied
        return hidden ? derive_spliced_tree(child, nodes, parent, mask, gone, used ? &in_stacks : nullptr, deferred)
                      : derive_kept_tree(child, nodes, parent, kept ? &mask : nullptr, deferred);
      },
      py::arg("child"), py::arg("nodes"), py::arg("parent"), py::arg("kept") = py::none(),
      py::arg("hidden") = py::none(), py::arg("used") = py::none(), py::arg("deferred") = false, py::keep_alive<0, 1>(),
      py::keep_alive<0, 2>(),
      "The kept tree of child, whose samples are some of parent's profile's unchanged, in order, over an "
      "equal node table: parent's less the dropped samples'. kept (one byte per parent sample, as "
      "filter_by_name gives) says which, instead of matching them. With hidden (one byte per location, "
      "filter_by_name's), child is parent's profile after hide or show: parent's tree with the hidden frames "
      "spliced out (used: the parent's used_locations, when known, spares the locations in no stack). None "
      "when child is not such a profile, the result would not be exact, or building anew is cheaper. "
      "deferred: child holds only the tables of filter_by_name's deferred output, whose samples are parent's "
      "kept ones (less the hidden locations); call_tree then reads only the trees the result covers.");
  m.def(
      "call_tree",
      [](const Profile& p, const NodeTable& nodes, size_t type, const Profile* base, const NodeTable* base_nodes,
         size_t base_type, bool inverted, double min_fraction, const std::string& method, const PathSums* sums,
         const KeptTree* kept) {
        if ((base == nullptr) != (base_nodes == nullptr))
          throw py::value_error("call_tree: base and base_nodes must be given together");
        CallTreeOptions opt;
        if (method == "trie")
          opt.method = CallTreeOptions::Method::Trie;
        else if (method == "pruned")
          opt.method = CallTreeOptions::Method::Pruned;
        else if (method != "auto")
          throw py::value_error("call_tree: method must be auto, trie or pruned, got " + method);
        StackSource cur{&p, &nodes, type};
        StackSource bsrc{base, base_nodes, base_type};
        opt.inverted = inverted;
        opt.min_fraction = min_fraction;
        if (sums && (sums->profile != &p || sums->nodes != &nodes || sums->inverted != inverted))
          throw py::value_error("call_tree: sums were computed for another profile, node table or direction");
        opt.sums = sums;
        if (kept && (kept->sums.profile != &p || kept->sums.nodes != &nodes || kept->sums.inverted != inverted))
          throw py::value_error("call_tree: kept tree was built for another profile, node table or direction");
        opt.kept = kept;
        CallTree t;
        {
          py::gil_scoped_release nogil;  // profiles and node tables are immutable
          t = build_call_tree(cur, base ? &bsrc : nullptr, opt);
        }
        py::dict d;
        d["frame_name"] = py::cast(std::move(t.frame_name));
        d["frame_file"] = py::cast(std::move(t.frame_file));
        d["frame_line"] = move_to_numpy(std::move(t.frame_line));
        d["frame_self"] = move_to_numpy(std::move(t.frame_self));
        d["frame_total"] = move_to_numpy(std::move(t.frame_total));
        d["ellipsis_frame"] = t.ellipsis_frame;
        d["parent"] = move_to_numpy(std::move(t.parent));
        d["frame"] = move_to_numpy(std::move(t.frame));
        d["depth"] = move_to_numpy(std::move(t.depth));
        d["self"] = move_to_numpy(std::move(t.self));
        d["total"] = move_to_numpy(std::move(t.total));
        if (t.with_base) {
          d["frame_base_self"] = move_to_numpy(std::move(t.frame_base_self));
          d["frame_base_total"] = move_to_numpy(std::move(t.frame_base_total));
          d["base_self"] = move_to_numpy(std::move(t.base_self));
          d["base_total"] = move_to_numpy(std::move(t.base_total));
        }
        return d;
      },
      py::arg("profile"), py::arg("nodes"), py::arg("type"), py::arg("base") = nullptr, py::arg("base_nodes") = nullptr,
      py::arg("base_type") = 0, py::arg("inverted") = false, py::arg("min_fraction") = 0.0, py::arg("method") = "auto",
      py::arg("sums") = nullptr, py::arg("kept") = nullptr,
      "Flame graph call tree: nodes in pre-order (parent, frame, depth, self, total[, base_*]) and frames. "
      "method: 'trie' builds every node then trims (the reference), 'pruned' never builds trimmed nodes, "
      "'auto' is 'pruned' when min_fraction > 0. sums: _core.path_sums of the same profile, nodes and "
      "direction (used by the pruned build without a base). kept: _core.kept_tree of the same profile, nodes and "
      "direction: a type it covers is read off it, others split from its sums.");
}

}  // namespace pprofcore::bindings
