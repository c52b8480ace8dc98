// bind_aggregate: _core.aggregate() -> _core.NodeTable (report nodes with flat/cum
// for all sample types), derived_aggregate() (a filtered profile's, from its input's),
// location_sums() and aggregate_from_locations() (a table from sums kept per location),
// its pprof row order and folded stacks; _core.package_of. Python formats the reports.
#include <optional>

#include "pybind.hpp"
#include "pprofcore/aggregate.hpp"
#include "pprofcore/aggregate_derived.hpp"
#include "pprofcore/aggregate_locations.hpp"
#include "pprofcore/folded.hpp"
#include "pprofcore/packages.hpp"

namespace pprofcore::bindings {

namespace {

using NodeTablePtr = std::shared_ptr<const NodeTable>;
using Mask = py::array_t<uint8_t, py::array::c_style | py::array::forcecast>;

py::dict columns(const py::object& self) {
  const NodeTable& t = self.cast<const NodeTable&>();
  py::dict d;
  const auto nn = static_cast<py::ssize_t>(t.size()), nt = static_cast<py::ssize_t>(t.n_types);
  d["flat"] = readonly_view<int64_t>(t.flat.data(), {nn, nt}, {nt * 8, 8}, self);
  d["cum"] = readonly_view<int64_t>(t.cum.data(), {nn, nt}, {nt * 8, 8}, self);
  d["function"] = readonly_view(t.function, self);
  d["name"] = readonly_view(t.name, self);
  d["start_line"] = readonly_view(t.start_line, self);
  d["lineno"] = readonly_view(t.lineno, self);
  d["address"] = readonly_view(t.address, self);
  d["objfile"] = readonly_view(t.objfile, self);
  d["inline_label"] = readonly_view(t.inline_label, self);
  const py::ssize_t nc = t.inline_labels_by_type.empty() ? 0 : 2 * nt + 1;
  d["inline_labels_by_type"] = readonly_view<uint8_t>(t.inline_labels_by_type.data(), {nc ? nn : 0, nc}, {nc, 1}, self);
  d["loc_node_offsets"] = readonly_view(t.loc_node_offsets, self);
  d["loc_nodes"] = readonly_view(t.loc_nodes, self);
  return d;
}

std::vector<int32_t> order_rows(const NodeTable& t, const Profile& p, size_t type, bool by_cum) {
  py::gil_scoped_release nogil;  // both objects are immutable
  return node_order(p, t, type, by_cum);
}

}  // namespace

void bind_aggregate(py::module_& m) {
  py::class_<NodeTable, std::shared_ptr<NodeTable>>(m, "NodeTable", "pprof report nodes with flat/cum sums.")
      .def("__len__", &NodeTable::size)
      .def_property_readonly("n_types", [](const NodeTable& t) { return t.n_types; })
      .def("columns", &columns, "Columns as read-only NumPy views.")
      .def("printable_names", [](const NodeTable& t) { return to_str_list(t.printable); })
      .def("files", [](const NodeTable& t) { return to_str_list(t.file); })
      .def(
          "order",
          [](const NodeTable& t, const Profile& p, size_t type, bool by_cum) {
            return move_to_numpy(order_rows(t, p, type, by_cum));
          },
          py::arg("profile"), py::arg("type"), py::arg("by_cum") = false,
          "Rows in pprof's report order for one sample type (zero rows left out).")
      .def("order_list", &order_rows, py::arg("profile"), py::arg("type"), py::arg("by_cum") = false,
           "order() as a list: the command line's quick reports import no NumPy.")
      .def(
          "type_sums",
          [](const NodeTable& t, size_t type) {
            if (type >= t.n_types) throw py::index_error("sample type index out of range");
            std::vector<int64_t> flat(t.size()), cum(t.size());
            for (size_t i = 0; i < t.size(); ++i) {
              flat[i] = t.flat[i * t.n_types + type];
              cum[i] = t.cum[i * t.n_types + type];
            }
            return py::make_tuple(flat, cum);
          },
          py::arg("type"), "(flat, cum) of every row for one sample type, as lists.")
      .def("inline_label_list", [](const NodeTable& t) { return t.inline_label; })
      .def(
          "edge_list",
          [](const NodeTable& t, const Profile& p, const std::string& mask, int label_type, int label_div_type,
             const std::string& keep, size_t type) {
            if (type >= t.n_types) throw py::index_error("sample type index out of range");
            std::vector<uint8_t> m(mask.begin(), mask.end()), k(keep.begin(), keep.end());
            EdgeTable e;
            {
              py::gil_scoped_release nogil;  // inputs immutable or copied
              e = aggregate_edges(p, t, m, label_type, label_div_type, k);
            }
            std::vector<int64_t> weight(e.size());
            for (size_t i = 0; i < e.size(); ++i) weight[i] = e.weight[i * e.n_types + type];
            return py::make_tuple(e.src, e.dst, weight, e.is_inline);
          },
          py::arg("profile"), py::arg("node_mask"), py::arg("label_type"), py::arg("label_div_type"),
          py::arg("node_keep"), py::arg("type"),
          "edges() with bytes masks, as lists (src, dst, weight of `type`, inline).")
      .def(
          "folded",
          [](const NodeTable& t, const Profile& p, size_t type, std::vector<int32_t> group,
             std::vector<std::vector<std::string>> prefix_frames) {
            std::string out;
            {
              py::gil_scoped_release nogil;  // inputs are immutable or local copies
              out = to_folded(p, t, type, group, prefix_frames);
            }
            return py::reinterpret_steal<py::str>(
                PyUnicode_DecodeUTF8(out.data(), static_cast<Py_ssize_t>(out.size()), "replace"));
          },
          py::arg("profile"), py::arg("type"), py::arg("group"), py::arg("prefix_frames"),
          "Collapsed stacks text, one line per distinct stack; prefix_frames[group[s]] go before sample s's frames.")
      .def(
          "edges",
          [](const NodeTable& t, const Profile& p, py::array_t<uint8_t, py::array::c_style | py::array::forcecast> mask,
             int label_type, int label_div_type,
             std::optional<py::array_t<uint8_t, py::array::c_style | py::array::forcecast>> keep,
             std::optional<py::array_t<uint8_t, py::array::c_style | py::array::forcecast>> sample_keep,
             std::optional<py::array_t<uint8_t, py::array::c_style | py::array::forcecast>> hidden) {
            std::vector<uint8_t> m(mask.data(), mask.data() + mask.size());
            std::vector<uint8_t> k, sk, h;
            if (keep) k.assign(keep->data(), keep->data() + keep->size());
            if (sample_keep) sk.assign(sample_keep->data(), sample_keep->data() + sample_keep->size());
            if (hidden) h.assign(hidden->data(), hidden->data() + hidden->size());
            EdgeTable e;
            {
              py::gil_scoped_release nogil;  // inputs immutable or copied
              e = aggregate_edges(p, t, m, label_type, label_div_type, k, sk, h);
            }
            const auto ne = static_cast<py::ssize_t>(e.size()), nt = static_cast<py::ssize_t>(e.n_types);
            py::dict d;
            d["src"] = move_to_numpy(std::move(e.src));
            d["dst"] = move_to_numpy(std::move(e.dst));
            d["inline"] = move_to_numpy(std::move(e.is_inline));
            d["weight"] = move_to_numpy(std::move(e.weight)).attr("reshape")(ne, nt);
            return d;
          },
          py::arg("profile"), py::arg("node_mask"), py::arg("label_type") = -1, py::arg("label_div_type") = -1,
          py::arg("node_keep") = py::none(), py::arg("sample_keep") = py::none(), py::arg("hidden") = py::none(),
          "Call edges touching the masked nodes (among the kept ones): src, dst, weight (n x types), inline; "
          "sample_keep (one byte per sample) walks only the samples it marks, hidden (one byte per location) "
          "passes over the locations it marks.");

  m.def(
      "aggregate",
      [](const Profile& p, const std::string& granularity, bool inline_frames, int label_type, int label_div_type,
         bool sums) {
        AggregateOptions opt;
        opt.sums = sums;
        opt.label_div_type = label_div_type;
        opt.granularity = parse_granularity(granularity);
        opt.inline_frames = inline_frames;
        opt.label_type = label_type;
        auto out = std::make_shared<NodeTable>();
        {
          py::gil_scoped_release nogil;  // p is immutable; out is not shared yet
          *out = aggregate(p, opt);
        }
        return out;
      },
      py::arg("profile"), py::arg("granularity") = "functions", py::arg("inline_frames") = true,
      py::arg("label_type") = -1, py::arg("label_div_type") = -1, py::arg("sums") = true,
      "Flat/cum per pprof report node, all sample types at once (sums=False: nodes and names only).");
  m.def(
      "derived_aggregate",
      [](const Profile* child, const Profile& parent, const NodeTable& parent_nodes, const Mask& kept,
         const std::optional<Mask>& hidden, const std::string& granularity, bool inline_frames, int label_type,
         int label_div_type, bool deferred) -> std::optional<std::shared_ptr<NodeTable>> {
        AggregateOptions opt;
        opt.granularity = parse_granularity(granularity);
        opt.inline_frames = inline_frames;
        opt.label_type = label_type;
        opt.label_div_type = label_div_type;
        const std::vector<uint8_t> k(kept.data(), kept.data() + kept.size());
        std::vector<uint8_t> h;
        if (hidden) h.assign(hidden->data(), hidden->data() + hidden->size());
        std::optional<NodeTable> t;
        {
          py::gil_scoped_release nogil;  // the profiles and the table are immutable; the masks were copied
          t = derived_aggregate(child ? *child : parent, deferred || !child, parent, parent_nodes, k, h, opt);
        }
        if (!t) return std::nullopt;
        return std::make_shared<NodeTable>(std::move(*t));
      },
      py::arg("profile"), py::arg("parent"), py::arg("parent_nodes"), py::arg("kept"), py::arg("hidden"),
      py::arg("granularity") = "functions", py::arg("inline_frames") = true, py::arg("label_type") = -1,
      py::arg("label_div_type") = -1, py::arg("deferred") = false,
      "aggregate() of a profile that filter_by_name made from `parent` (its kept and hidden masks), from parent's "
      "table built with the same arguments; None when it must be aggregated anew. deferred: `profile` holds only "
      "the tables of a deferred output (None: parent's), whose samples are read in parent's.");
  py::class_<LocationSums, std::shared_ptr<LocationSums>>(
      m, "LocationSums", "Per location of a profile: flat and cum of every sample type, and its frames.");
  m.def(
      "location_sums",
      [](const Profile& p) {
        auto out = std::make_shared<LocationSums>();
        py::gil_scoped_release nogil;  // p is immutable; out is not shared yet
        *out = location_sums(p);
        return out;
      },
      py::arg("profile"), "The sums aggregate_from_locations() builds node tables from, one pass over the samples.");
  m.def(
      "aggregate_from_locations",
      [](const Profile& p, const LocationSums& sums, const std::string& granularity, bool inline_frames, int label_type,
         int label_div_type, double max_walked_share) -> std::optional<std::shared_ptr<NodeTable>> {
        AggregateOptions opt;
        opt.granularity = parse_granularity(granularity);
        opt.inline_frames = inline_frames;
        opt.label_type = label_type;
        opt.label_div_type = label_div_type;
        std::optional<NodeTable> t;
        {
          py::gil_scoped_release nogil;  // the profile and the sums are immutable
          t = aggregate_from_locations(p, sums, opt, max_walked_share);
        }
        if (!t) return std::nullopt;
        return std::make_shared<NodeTable>(std::move(*t));
      },
      py::arg("profile"), py::arg("sums"), py::arg("granularity") = "functions", py::arg("inline_frames") = true,
      py::arg("label_type") = -1, py::arg("label_div_type") = -1, py::arg("max_walked_share") = 0.5,
      "aggregate() from the profile's location_sums(); None when the frames it would walk are more than "
      "max_walked_share of all.");
  m.attr("MAX_INLINE_LABEL_TYPES") = kMaxInlineLabelTypes;
  m.def("package_of", &package_of, py::arg("name"), py::arg("file") = "",
        "The package of a function from its name (and file): Go import path, Java package, C++/Rust namespace, "
        "Python module; '' when the name has none.");
}

}  // namespace pprofcore::bindings
