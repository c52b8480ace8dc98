// bind_otlp: OpenTelemetry profiles (OTLP) in and out. Decoding returns each
// profile with a dict of where it came from (resource, scope, attributes);
// attribute values become str, bool, int, float, bytes, list or dict.
#include "pybind.hpp"
#include "pprofcore/gzip.hpp"
#include "pprofcore/io.hpp"
#include "pprofcore/otlp.hpp"

namespace pprofcore::bindings {

namespace {

py::object to_python(const otlp::Value& v);

// Text from the input, invalid UTF-8 replaced (as everywhere in the API).
py::str text(const std::string& s) {
  return py::reinterpret_steal<py::str>(PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace"));
}

py::dict to_python(const std::vector<otlp::KeyValue>& kvs) {
  py::dict d;
  for (const otlp::KeyValue& kv : kvs) d[text(kv.key)] = to_python(kv.value);
  return d;
}

py::object to_python(const otlp::Value& v) {
  switch (v.kind) {
    case otlp::Value::kString:
      return text(v.str);
    case otlp::Value::kBool:
      return py::bool_(v.i != 0);
    case otlp::Value::kInt:
      return py::int_(v.i);
    case otlp::Value::kDouble:
      return py::float_(v.d);
    case otlp::Value::kBytes:
      return py::bytes(v.str);
    case otlp::Value::kArray: {
      py::list l;
      for (const otlp::Value& e : v.array) l.append(to_python(e));
      return std::move(l);
    }
    case otlp::Value::kMap:
      return to_python(v.map);
    default:
      return py::none();
  }
}

py::dict origin_dict(const otlp::Origin& o) {
  py::dict d;
  d["resource_index"] = o.resource_index;
  d["scope_index"] = o.scope_index;
  d["profile_indices"] = o.profile_indices;
  d["resource_attributes"] = to_python(o.resource_attributes);
  d["resource_schema_url"] = text(o.resource_schema_url);
  d["scope_name"] = text(o.scope_name);
  d["scope_version"] = text(o.scope_version);
  d["scope_schema_url"] = text(o.scope_schema_url);
  d["scope_attributes"] = to_python(o.scope_attributes);
  d["profile_attributes"] = to_python(o.profile_attributes);
  d["profile_id"] = py::bytes(o.profile_id);
  d["original_payload_format"] = text(o.original_payload_format);
  d["original_payload"] = py::bytes(o.original_payload);
  d["dropped_attributes_count"] = o.dropped_attributes_count;
  return d;
}

py::list results(std::vector<otlp::Decoded>&& all) {
  py::list out;
  for (otlp::Decoded& d : all)
    out.append(py::make_tuple(std::make_shared<Profile>(std::move(d.profile)), origin_dict(d.origin)));
  return out;
}

// A Python attribute value as an OTLP one (str, bool, int, float, bytes, sequences, mappings).
otlp::Value from_python(const py::handle& h) {
  otlp::Value v;
  if (py::isinstance<py::bool_>(h)) {
    v.kind = otlp::Value::kBool;
    v.i = h.cast<bool>();
  } else if (py::isinstance<py::int_>(h)) {
    v.kind = otlp::Value::kInt;
    v.i = h.cast<int64_t>();
  } else if (py::isinstance<py::float_>(h)) {
    v.kind = otlp::Value::kDouble;
    v.d = h.cast<double>();
  } else if (py::isinstance<py::str>(h)) {
    v.kind = otlp::Value::kString;
    v.str = h.cast<std::string>();
  } else if (py::isinstance<py::bytes>(h)) {
    v.kind = otlp::Value::kBytes;
    v.str = h.cast<std::string>();
  } else if (py::isinstance<py::dict>(h)) {
    v.kind = otlp::Value::kMap;
    for (auto item : h.cast<py::dict>())
      v.map.push_back({py::str(item.first).cast<std::string>(), from_python(item.second), ""});
  } else if (py::isinstance<py::sequence>(h)) {
    v.kind = otlp::Value::kArray;
    for (auto item : h.cast<py::sequence>()) v.array.push_back(from_python(item));
  } else if (!h.is_none()) {
    throw py::type_error("an OTLP attribute value is str, bool, int, float, bytes, a list or a dict, not " +
                         py::str(py::type::handle_of(h)).cast<std::string>());
  }
  return v;
}

}  // namespace

void bind_otlp(py::module_& m) {
  m.def(
      "decode_otlp",
      [](const py::buffer& data, size_t max_size) {
        ByteView view(data);
        DecodeOptions o;
        o.max_decompressed_size = max_size;
        std::vector<otlp::Decoded> all;
        {
          py::gil_scoped_release nogil;  // the buffer stays exported (and pinned) while `view` lives
          all = otlp::decode(view.data(), view.size(), o);
        }
        return results(std::move(all));
      },
      py::arg("data"), py::arg("max_size"), "Every profile of an OTLP message: a list of (Profile, origin dict).");

  m.def(
      "decode_otlp_file",
      [](const std::string& path, size_t max_size) {
        DecodeOptions o;
        o.max_decompressed_size = max_size;
        std::vector<otlp::Decoded> all;
        {
          py::gil_scoped_release nogil;  // only local buffers are touched
          try {
            std::string bytes = read_file(path, o.max_decompressed_size);
            all = otlp::decode(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), o);
          } catch (const DecodeError&) {
            rethrow_with_path(path);
          }
        }
        return results(std::move(all));
      },
      py::arg("path"), py::arg("max_size"));

  m.def(
      "encode_otlp",
      [](const ProfilePtr& p, const py::dict& resource, const std::string& scope_name, const std::string& scope_version,
         bool compress, int level) {
        otlp::WriteOptions o;
        for (auto item : resource)
          o.resource_attributes.push_back({py::str(item.first).cast<std::string>(), from_python(item.second), ""});
        o.scope_name = scope_name;
        o.scope_version = scope_version;
        std::string out;
        {
          py::gil_scoped_release nogil;  // the profile is immutable
          out = otlp::write(*p, o);
          if (compress) out = gzip::deflate(reinterpret_cast<const uint8_t*>(out.data()), out.size(), level);
        }
        return to_bytes(std::move(out));
      },
      py::arg("profile"), py::arg("resource"), py::arg("scope_name"), py::arg("scope_version"),
      py::arg("compress") = false, py::arg("level") = -1, "The profile as OTLP ProfilesData protobuf bytes.");
}

}  // namespace pprofcore::bindings
