// bind_graph_layout: _core.graph_layout() -> dict of a layered drawing's
// positions (node centres, layers, edge routes) for the explorer's call graph.
#include "pybind.hpp"
#include "pprofcore/graph_layout.hpp"

namespace pprofcore::bindings {

namespace {

template <typename T>
std::vector<T> to_vector(const py::array_t<T, py::array::c_style | py::array::forcecast>& a) {
  return std::vector<T>(a.data(), a.data() + a.size());
}

}  // namespace

void bind_graph_layout(py::module_& m) {
  m.def(
      "graph_layout",
      [](const py::array_t<double, py::array::c_style | py::array::forcecast>& width,
         const py::array_t<double, py::array::c_style | py::array::forcecast>& height,
         const py::array_t<int32_t, py::array::c_style | py::array::forcecast>& src,
         const py::array_t<int32_t, py::array::c_style | py::array::forcecast>& dst, double rank_gap, double node_gap) {
        const auto w = to_vector(width), h = to_vector(height);
        const auto s = to_vector(src), d = to_vector(dst);
        LayoutOptions options;
        options.rank_gap = rank_gap;
        options.node_gap = node_gap;
        GraphLayout g;
        {
          py::gil_scoped_release nogil;  // works on its own copies of the arrays
          g = layered_layout(w, h, s, d, options);
        }
        using namespace pybind11::literals;
        return py::dict("x"_a = move_to_numpy(std::move(g.x)), "y"_a = move_to_numpy(std::move(g.y)),
                        "rank"_a = move_to_numpy(std::move(g.rank)), "upward"_a = move_to_numpy(std::move(g.upward)),
                        "point_offsets"_a = move_to_numpy(std::move(g.point_offsets)),
                        "px"_a = move_to_numpy(std::move(g.px)), "py"_a = move_to_numpy(std::move(g.py)),
                        "width"_a = g.width, "height"_a = g.height);
      },
      py::arg("width"), py::arg("height"), py::arg("src"), py::arg("dst"), py::arg("rank_gap") = 48.0,
      py::arg("node_gap") = 18.0,
      "A layered (Sugiyama) drawing, top-down: node centres x, y, rank; per edge upward (closes a cycle) and "
      "its route (point_offsets into px, py, from the caller's box to the callee's); width, height.");
}

}  // namespace pprofcore::bindings
