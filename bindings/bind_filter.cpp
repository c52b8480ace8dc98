// bind_filter: filters, pruning and label rewriting (cpp filter/prune/labels).
// Masks arrive as NumPy uint8/bool arrays computed in Python (one regex
// evaluation per unique name); each entry point copies them into vectors, then
// releases the GIL: the input Profile is immutable and the output is new.
#include <string>
#include <vector>

#include "pybind.hpp"
#include "pprofcore/filter.hpp"
#include "pprofcore/labels.hpp"
#include "pprofcore/prune.hpp"

namespace pprofcore::bindings {

namespace {

using Mask = py::array_t<uint8_t, py::array::c_style | py::array::forcecast>;

std::vector<uint8_t> to_vec(const Mask& a) {
  const uint8_t* d = a.data();
  return std::vector<uint8_t>(d, d + a.size());
}

// None -> inactive; otherwise a (function_mask, mapping_mask) pair.
NameMatch name_match(const py::object& o) {
  NameMatch m;
  if (o.is_none()) return m;
  auto t = o.cast<py::tuple>();
  if (t.size() != 2) throw py::value_error("a name match is a (function_mask, mapping_mask) pair");
  m.active = true;
  m.function = to_vec(t[0].cast<Mask>());
  m.mapping = to_vec(t[1].cast<Mask>());
  return m;
}

using ProfileSP = std::shared_ptr<Profile>;

// None -> no universe (nullptr); otherwise a per-location mask.
std::pair<bool, std::vector<uint8_t>> optional_mask(const py::object& o) {
  if (o.is_none()) return {false, {}};
  return {true, to_vec(o.cast<Mask>())};
}

}  // namespace

// Binds `f(profile, mask) -> Profile`: the mask is copied while the GIL is held,
// then f runs without it (the profile is immutable).
template <class F>
void def_mask_transform(py::module_& m, const char* name, const char* mask_name, F f) {
  m.def(
      name,
      [f](const Profile& p, const Mask& mask) {
        auto v = to_vec(mask);
        py::gil_scoped_release nogil;
        return std::make_shared<Profile>(f(p, v));
      },
      py::arg("profile"), py::arg(mask_name));
}

void bind_filter(py::module_& m) {
  m.def(
      "filter_by_name",
      [](const Profile& p, const py::object& focus, const py::object& ignore, const py::object& hide,
         const py::object& show, const py::object& universe, bool defer_unchanged, bool defer_changed) {
        NameMatch f = name_match(focus), i = name_match(ignore), h = name_match(hide), s = name_match(show);
        auto u = optional_mask(universe);
        NameFilterResult r;
        {
          py::gil_scoped_release nogil;  // p is immutable; masks were copied above
          r = filter_by_name(p, f, i, h, s, u.first ? &u.second : nullptr, defer_unchanged, defer_changed);
        }
        // What the filter kept and hid, from which a report's node table is derived.
        py::object kept = move_to_numpy(std::move(r.kept)), hidden = py::none();
        if (!r.hidden.empty()) hidden = move_to_numpy(std::move(r.hidden));
        // Deferred: None (the input's tables) or the output's tables, its
        // samples kept_output(profile, kept, hidden, tables) when asked for.
        py::object out = py::none();
        if (!r.deferred || r.own_tables) out = py::cast(std::make_shared<Profile>(std::move(r.profile)));
        return py::make_tuple(out, r.focus_matched, r.ignore_matched, r.hide_matched, r.show_matched, kept, hidden);
      },
      py::arg("profile"), py::arg("focus"), py::arg("ignore"), py::arg("hide"), py::arg("show"),
      py::arg("universe") = py::none(), py::arg("defer_unchanged") = false, py::arg("defer_changed") = false,
      "pprof's FilterSamplesByName on per-function and per-mapping masks: (profile, focus_matched, "
      "ignore_matched, hide_matched, show_matched, kept, hidden). defer_unchanged: a result that removed no line "
      "is not copied (profile None); with defer_changed, no result is: profile is then None or the result's "
      "tables without samples, and kept_output makes the result.");

  m.def(
      "kept_output",
      [](const Profile& p, const Mask& kept, const py::object& hidden, const Profile* tables) {
        auto k = to_vec(kept);
        auto h = optional_mask(hidden);
        py::gil_scoped_release nogil;  // p and tables are immutable; the masks were copied above
        return std::make_shared<Profile>(kept_output(p, k, h.second, tables));
      },
      py::arg("profile"), py::arg("kept"), py::arg("hidden") = py::none(), py::arg("tables") = nullptr,
      "The result a deferred filter_by_name stands for: profile's kept samples, the hidden locations (one byte "
      "per location, None: none) taken out of their stacks, over tables' header and tables (None: profile's).");

  m.def(
      "show_from",
      [](const Profile& p, const py::object& match, const py::object& universe) {
        NameMatch sf = name_match(match);
        auto u = optional_mask(universe);
        bool matched = false;
        ProfileSP out;
        {
          py::gil_scoped_release nogil;  // p is immutable; the masks were copied above
          out = std::make_shared<Profile>(show_from(p, sf, &matched, u.first ? &u.second : nullptr));
        }
        return py::make_tuple(out, matched);
      },
      py::arg("profile"), py::arg("match"), py::arg("universe") = py::none());

  def_mask_transform(m, "prune_from", "function_match",
                     [](const Profile& p, const std::vector<uint8_t>& f) { return prune_from(p, f); });

  def_mask_transform(m, "prune", "drop", [](const Profile& p, const std::vector<uint8_t>& d) { return prune(p, d); });

  def_mask_transform(m, "keep_samples", "keep",
                     [](const Profile& p, const std::vector<uint8_t>& k) { return keep_samples(p, k); });

  m.def(
      "used_locations",
      [](const Profile& p) {
        std::vector<uint8_t> out;
        {
          py::gil_scoped_release nogil;  // p is immutable
          out = used_locations(p);
        }
        return move_to_numpy(std::move(out));
      },
      py::arg("profile"));

  m.def(
      "samples_with_label",
      [](const Profile& p, const Mask& rows) {
        auto r = to_vec(rows);
        std::vector<uint8_t> out;
        {
          py::gil_scoped_release nogil;  // p is immutable; the mask was copied above
          out = samples_with_label(p, r);
        }
        return move_to_numpy(std::move(out));
      },
      py::arg("profile"), py::arg("row_match"));

  def_mask_transform(m, "keep_labels", "keep",
                     [](const Profile& p, const std::vector<uint8_t>& k) { return keep_labels(p, k); });

  m.def(
      "add_label_frames",
      [](const Profile& p, const std::vector<int32_t>& root_keys, const std::vector<int32_t>& leaf_keys,
         const py::array_t<int32_t, py::array::c_style | py::array::forcecast>& row_text,
         const std::vector<std::string>& extra) {
        std::vector<int32_t> rt(row_text.data(), row_text.data() + row_text.size());
        bool rm = false, lm = false;
        ProfileSP out;
        {
          py::gil_scoped_release nogil;  // p is immutable; arguments were copied above
          out = std::make_shared<Profile>(add_label_frames(p, root_keys, leaf_keys, rt, extra, &rm, &lm));
        }
        return py::make_tuple(out, rm, lm);
      },
      py::arg("profile"), py::arg("root_keys"), py::arg("leaf_keys"), py::arg("row_text"), py::arg("extra_strings"));

  m.def(
      "set_label",
      [](const Profile& p, const std::string& key, const std::vector<std::string>& values) {
        py::gil_scoped_release nogil;  // p is immutable; arguments were converted above
        return std::make_shared<Profile>(set_label(p, key, values));
      },
      py::arg("profile"), py::arg("key"), py::arg("values"));

  m.def(
      "rename_label",
      [](const Profile& p, const std::string& from, const std::string& to) {
        py::gil_scoped_release nogil;  // p is immutable; arguments were converted above
        return std::make_shared<Profile>(rename_label(p, from, to));
      },
      py::arg("profile"), py::arg("from_key"), py::arg("to_key"));

  m.def(
      "select_sample_types",
      [](const Profile& p, const std::vector<int64_t>& indices) {
        py::gil_scoped_release nogil;  // p is immutable; arguments were converted above
        return std::make_shared<Profile>(select_sample_types(p, indices));
      },
      py::arg("profile"), py::arg("indices"));
}

}  // namespace pprofcore::bindings
