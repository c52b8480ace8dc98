// bind_jfr: Java Flight Recorder recordings read by the core (cpp/src/jfr).
#include "pprofcore/jfr.hpp"
#include "pybind.hpp"

namespace pprofcore::bindings {

void bind_jfr(py::module_& m) {
  m.def(
      "read_jfr",
      [](const py::buffer& data) {
        ByteView view(data);
        Profile p;
        {
          py::gil_scoped_release nogil;  // the buffer stays exported (and pinned) while `view` lives
          p = jfr::read(view.data(), view.size());
        }
        return ProfilePtr(std::make_shared<Profile>(std::move(p)));
      },
      py::arg("data"), "The profile of a JFR recording (every event kind read, side by side).");
}

}  // namespace pprofcore::bindings
