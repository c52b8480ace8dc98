// bind_codec: decoding from buffers and files, batch loading, gzip helpers.
// Every entry point converts its arguments first, then releases the GIL.
#include "pybind.hpp"
#include "pprofcore/decode.hpp"
#include "pprofcore/gzip.hpp"
#include "pprofcore/zstd.hpp"
#include "pprofcore/io.hpp"

namespace pprofcore::bindings {

namespace {

gzip::Backend backend_from(const std::string& name) {
  if (name == "auto") return gzip::Backend::Auto;
  if (name == "zlib") return gzip::Backend::Zlib;
  if (name == "libdeflate") {
    if (!gzip::have_libdeflate()) throw py::value_error("this pprofcore build has no libdeflate");
    return gzip::Backend::Libdeflate;
  }
  if (name == "isal") {
    if (!gzip::have_isal()) throw py::value_error("this pprofcore build has no ISA-L");
    return gzip::Backend::Isal;
  }
  throw py::value_error("inflater must be 'auto', 'zlib', 'libdeflate' or 'isal', not '" + name + "'");
}

DecodeOptions options_from(size_t max_size, const std::string& inflater, unsigned threads = 0) {
  DecodeOptions o;
  o.threads = threads;
  o.max_decompressed_size = max_size;
  o.inflater = backend_from(inflater);
  return o;
}

// RepairReport as a dict of counters (Python wraps it in pprofcore.RepairReport).
py::dict report_dict(const RepairReport& r) {
  py::dict d;
  d["dangling_location_refs"] = r.dangling_location_refs;
  d["zero_location_refs"] = r.zero_location_refs;
  d["dangling_mapping_refs"] = r.dangling_mapping_refs;
  d["missing_function_refs"] = r.missing_function_refs;
  d["stub_functions"] = r.stub_functions;
  d["zero_ids"] = r.zero_ids;
  d["duplicate_ids"] = r.duplicate_ids;
  d["value_count_mismatch"] = r.value_count_mismatch;
  d["dropped_values_sum"] = r.dropped_values_sum;
  d["bad_first_string"] = r.bad_first_string;
  d["out_of_range_string_refs"] = r.out_of_range_string_refs;
  d["placeholder_strings"] = r.placeholder_strings;
  return d;
}

}  // namespace

void bind_codec(py::module_& m) {
  m.def(
      "decode_repair",
      [](const py::buffer& data, size_t max_size, const std::string& inflater) {
        ByteView view(data);
        DecodeOptions o = options_from(max_size, inflater);
        RepairReport report;  // passing it selects repair mode
        std::shared_ptr<Profile> p;
        {
          py::gil_scoped_release nogil;  // the buffer stays exported (and pinned) while `view` lives
          p = std::make_shared<Profile>(decode(view.data(), view.size(), o, &report));
        }
        return py::make_tuple(p, report_dict(report));
      },
      py::arg("data"), py::arg("max_size"), py::arg("inflater") = "auto",
      "Decodes in repair mode; returns (Profile, dict of repair counters).");

  m.def(
      "decode_file_repair",
      [](const std::string& path, size_t max_size, const std::string& inflater) {
        DecodeOptions o = options_from(max_size, inflater);
        RepairReport report;  // passing it selects repair mode
        std::shared_ptr<Profile> p;
        {
          py::gil_scoped_release nogil;  // only local buffers are touched
          p = std::make_shared<Profile>(load_file(path, o, &report));
        }
        return py::make_tuple(p, report_dict(report));
      },
      py::arg("path"), py::arg("max_size"), py::arg("inflater") = "auto");

  m.def(
      "decode",
      [](const py::buffer& data, size_t max_size, const std::string& inflater, unsigned threads) {
        ByteView view(data);
        DecodeOptions o = options_from(max_size, inflater, threads);
        py::gil_scoped_release nogil;  // the buffer stays exported (and pinned) while `view` lives
        return std::make_shared<Profile>(decode(view.data(), view.size(), o));
      },
      py::arg("data"), py::arg("max_size"), py::arg("inflater") = "auto", py::arg("threads") = 0);

  m.def(
      "decode_file",
      [](const std::string& path, size_t max_size, const std::string& inflater) {
        DecodeOptions o = options_from(max_size, inflater);
        py::gil_scoped_release nogil;  // only local buffers are touched
        return std::make_shared<Profile>(load_file(path, o));
      },
      py::arg("path"), py::arg("max_size"), py::arg("inflater") = "auto");

  m.def(
      "load_many",
      [](const std::vector<std::string>& paths, unsigned threads, size_t max_size, const std::string& inflater) {
        DecodeOptions o = options_from(max_size, inflater);
        std::vector<LoadResult> results;
        {
          py::gil_scoped_release nogil;  // workers touch only their own LoadResult
          results = load_many(paths, threads, o, check_signals);
        }
        py::list out;
        for (auto& r : results) {
          if (r.profile)
            out.append(py::cast(r.profile));
          else
            out.append(exception_object(r.error));
        }
        return out;
      },
      py::arg("paths"), py::arg("threads") = 0, py::arg("max_size") = kDefaultMaxSize, py::arg("inflater") = "auto",
      "Decodes files in parallel; Ctrl-C cancels between files. Each item is a Profile or the exception "
      "load of that file raises.");

  m.def(
      "gunzip",
      [](const py::buffer& data, size_t max_size, const std::string& backend) {
        ByteView view(data);
        gzip::Backend b = backend_from(backend);
        gzip::Buffer out;
        {
          py::gil_scoped_release nogil;
          out = gzip::inflate(view.data(), view.size(), max_size, b);
        }
        return py::bytes(reinterpret_cast<const char*>(out.data()), out.size());
      },
      py::arg("data"), py::arg("max_size") = kDefaultMaxSize, py::arg("backend") = "auto");

  m.def(
      "gzip",
      [](const py::buffer& data, int level, const std::string& backend) {
        ByteView view(data);
        gzip::Backend b = backend_from(backend);
        std::string out;
        {
          py::gil_scoped_release nogil;
          out = gzip::deflate(view.data(), view.size(), level, b);
        }
        return to_bytes(std::move(out));
      },
      py::arg("data"), py::arg("level") = -1, py::arg("backend") = "auto");

  m.def(
      "unzstd",
      [](const py::buffer& data, size_t max_size, bool prefix_only) {
        ByteView view(data);
        struct Enough {};  // the prefix is in: stop decompressing
        std::string prefix;
        gzip::Buffer out;
        bool stopped = false;
        {
          py::gil_scoped_release nogil;
          std::function<void(const uint8_t*, size_t)> keep;
          if (prefix_only)
            keep = [&prefix](const uint8_t* p, size_t n) {
              prefix.assign(reinterpret_cast<const char*>(p), n);
              throw Enough{};
            };
          try {
            out = zstd::decompress(view.data(), view.size(), max_size, keep);
          } catch (const Enough&) {
            stopped = true;
          }
        }
        if (stopped) return to_bytes(std::move(prefix));
        return py::bytes(reinterpret_cast<const char*>(out.data()), out.size());
      },
      py::arg("data"), py::arg("max_size") = kDefaultMaxSize, py::arg("prefix_only") = false,
      "zstd-compressed bytes decompressed (every frame); with prefix_only, the first 64 KiB only.");

  m.def("max_input_size", &max_input_size, py::arg("max_decompressed_size"), py::arg("gzip"),
        "The most input bytes accepted under a max_decompressed_size (gzip input may be somewhat larger).");
  m.def("have_libdeflate", &gzip::have_libdeflate);
  m.def("have_isal", &gzip::have_isal);
  m.def("have_zstd", &zstd::available);
}

}  // namespace pprofcore::bindings
