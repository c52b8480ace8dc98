// module: table of contents of the pprofcore._core extension.
#include "pybind.hpp"

PYBIND11_MODULE(_core, m) {
  m.doc() = "pprofcore's compiled core. Use the pprofcore package, not this module.";
  m.attr("DEFAULT_MAX_DECOMPRESSED_SIZE") = pprofcore::bindings::kDefaultMaxSize;
  pprofcore::bindings::bind_errors(m);
  pprofcore::bindings::bind_profile(m);
  pprofcore::bindings::bind_codec(m);
  pprofcore::bindings::bind_filter(m);
  pprofcore::bindings::bind_merge(m);
  pprofcore::bindings::bind_aggregate(m);
  pprofcore::bindings::bind_tables(m);
  pprofcore::bindings::bind_stacks(m);
  pprofcore::bindings::bind_callgraph(m);
  pprofcore::bindings::bind_graph_layout(m);
  pprofcore::bindings::bind_symbolize(m);
  pprofcore::bindings::bind_series(m);
  pprofcore::bindings::bind_go_repairs(m);
  pprofcore::bindings::bind_otlp(m);
  pprofcore::bindings::bind_jfr(m);
}
