// bind_merge: merge, compact, the incremental Merger, parallel merge of files,
// DeltaComputer, and the value transforms of scale.hpp. Arguments are converted
// first; the GIL is released around all per-sample work.
#include <mutex>

#include "pybind.hpp"
#include "pprofcore/delta.hpp"
#include "pprofcore/encode.hpp"
#include "pprofcore/errors.hpp"
#include "pprofcore/gzip.hpp"
#include "pprofcore/io.hpp"
#include "pprofcore/merge.hpp"
#include "pprofcore/scale.hpp"

namespace pprofcore::bindings {

namespace {

using PP = std::shared_ptr<Profile>;

DecodeOptions decode_options(size_t max_size) {
  DecodeOptions o;
  o.max_decompressed_size = max_size;
  return o;
}

// A Merger is not thread-safe; the mutex makes concurrent add() calls from
// Python threads (which run with the GIL released) serialize instead of race.
struct PyMerger {
  Merger m;
  std::mutex mu;
};

struct PyDelta {
  explicit PyDelta(std::vector<std::string> types) : dc(std::move(types)) {}
  DeltaComputer dc;
  Profile scratch;  // delta_bytes' output, its samples taken over from the input
  std::string raw;  // delta_bytes' encoded output before deflate, its storage reused
  std::mutex mu;
};

}  // namespace

void bind_merge(py::module_& m) {
  m.def(
      "merge",
      [](const std::vector<PP>& profiles) {
        std::vector<const Profile*> ptrs;
        for (auto& p : profiles) ptrs.push_back(p.get());
        py::gil_scoped_release nogil;  // inputs are immutable and kept alive by `profiles`
        return std::make_shared<Profile>(merge(ptrs));
      },
      py::arg("profiles"));
  m.def("compact", [](const PP& p) {
    py::gil_scoped_release nogil;  // p is immutable
    return std::make_shared<Profile>(compact(*p));
  });
  m.def(
      "merge_files",
      [](const std::vector<std::string>& paths, unsigned threads, size_t max_size, py::object progress) {
        DecodeOptions o = decode_options(max_size);
        std::function<void(size_t)> cb;
        size_t done = 0;
        if (!progress.is_none()) {
          if (!PyCallable_Check(progress.ptr()))
            throw py::type_error("progress must be a callable progress(done, total) or None, not " +
                                 std::string(Py_TYPE(progress.ptr())->tp_name));
          // Called from this thread between merges (GIL released meanwhile); takes
          // the GIL. What it raises stops the merge (merge_files joins its workers).
          cb = [&](size_t) {
            py::gil_scoped_acquire gil;
            ++done;
            progress(done, paths.size());
          };
        }
        py::gil_scoped_release nogil;  // workers decode into their own buffers; only `paths` is shared, read-only
        return std::make_shared<Profile>(merge_files(paths, threads, o, cb, check_signals));
      },
      py::arg("paths"), py::arg("threads") = 0, py::arg("max_size") = kDefaultMaxSize,
      py::arg("progress") = py::none());

  py::class_<PyMerger>(m, "Merger")
      .def(py::init<>())
      .def("add",
           [](PyMerger& self, const PP& p) {
             py::gil_scoped_release nogil;  // p is immutable; self is locked
             std::lock_guard<std::mutex> lock(self.mu);
             self.m.add(*p);
           })
      .def(
          "add_file",
          [](PyMerger& self, const std::string& path, size_t max_size) {
            DecodeOptions o = decode_options(max_size);
            py::gil_scoped_release nogil;    // decoding is local; self is locked for the merge
            Profile p = load_file(path, o);  // errors name the path, as load() does
            std::lock_guard<std::mutex> lock(self.mu);
            self.m.add(p);
          },
          py::arg("path"), py::arg("max_size") = kDefaultMaxSize)
      .def("result",
           [](PyMerger& self) {
             py::gil_scoped_release nogil;
             std::lock_guard<std::mutex> lock(self.mu);
             if (self.m.num_inputs() == 0) throw ProfileError("no profiles to merge");
             return std::make_shared<Profile>(self.m.result());
           })
      // Reads take the lock too: add() mutates the tables with the GIL released.
      .def_property_readonly("num_inputs",
                             [](PyMerger& self) { return locked(self.mu, [&] { return self.m.num_inputs(); }); })
      .def_property_readonly("num_samples",
                             [](PyMerger& self) { return locked(self.mu, [&] { return self.m.num_samples(); }); })
      .def("memory_bytes", [](PyMerger& self) { return locked(self.mu, [&] { return self.m.memory_bytes(); }); });

  py::class_<PyDelta>(m, "DeltaComputer")
      .def(py::init<std::vector<std::string>>(), py::arg("sample_types"))
      .def("delta",
           [](PyDelta& self, const PP& p) {
             py::gil_scoped_release nogil;  // p is immutable; self is locked
             std::lock_guard<std::mutex> lock(self.mu);
             return std::make_shared<Profile>(self.dc.delta(*p));
           })
      .def(
          "delta_bytes",
          [](PyDelta& self, const py::buffer& data, bool compress, int level, size_t max_size) {
            ByteView view(data);
            DecodeOptions o = decode_options(max_size);
            std::string out;
            {
              py::gil_scoped_release nogil;  // the buffer stays pinned by `view`; self is locked
              std::lock_guard<std::mutex> lock(self.mu);
              {
                // The delta takes the decoded input over (its samples become
                // the output's), and the output is freed once encoded, before
                // deflate: input, output and encoded bytes are never all held.
                Profile cur = decode(view.data(), view.size(), o);
                self.dc.delta_into(std::move(cur), self.scratch);
              }
              encode_raw_into(self.scratch, self.raw);
              self.scratch = Profile();
              if (compress)
                out = gzip::deflate(reinterpret_cast<const uint8_t*>(self.raw.data()), self.raw.size(), level);
              else
                out.swap(self.raw);  // handed out whole: self.raw is not to be read once the lock is released
            }
            return to_bytes(std::move(out));
          },
          py::arg("data"), py::arg("compress") = true, py::arg("level") = -1, py::arg("max_size") = kDefaultMaxSize)
      // Reads take the lock too: delta() mutates the state with the GIL released.
      .def_property_readonly("num_calls",
                             [](PyDelta& self) { return locked(self.mu, [&] { return self.dc.num_calls(); }); })
      .def_property_readonly("num_states",
                             [](PyDelta& self) { return locked(self.mu, [&] { return self.dc.num_states(); }); })
      .def("memory_bytes", [](PyDelta& self) { return locked(self.mu, [&] { return self.dc.memory_bytes(); }); });

  m.def("scale_n", [](const PP& p, const std::vector<double>& ratios) {
    py::gil_scoped_release nogil;  // p is immutable
    return std::make_shared<Profile>(scale_n(*p, ratios));
  });
  m.def("rename_units",
        [](const PP& p, const std::vector<std::string>& units, const std::string& period_unit, int64_t period) {
          return std::make_shared<Profile>(rename_units(*p, units, period_unit, period));
        });
}

}  // namespace pprofcore::bindings
