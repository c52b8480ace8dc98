// packages: a function's package from its name. The language comes from the
// file's extension when there is one, else from the name's shape ("::" for
// C++ and Rust, ".py:" for Python, '$' for Java, '/' or ".(" for Go, plain dots
// otherwise). Each rule reads the name once; nothing here allocates per frame,
// since aggregate() calls it once per function.
#include "pprofcore/packages.hpp"

#include <vector>

namespace pprofcore {

namespace {

enum class Lang { Unknown, Go, Java, Colons, Python };

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

bool starts_with(std::string_view s, std::string_view head) { return s.substr(0, head.size()) == head; }

bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
// A class or type: capitalised after any leading underscores (_Iter_less_iter).
bool is_type_name(std::string_view c) {
  size_t i = 0;
  while (i < c.size() && c[i] == '_') ++i;
  return i < c.size() && is_upper(c[i]);
}

// The name without a compiler's clone suffix: GCC's "f.cold", "f.constprop.0",
// "f.isra.0", "f.part.1", "f.lto_priv.0", LLVM's "f.llvm.123", and the
// demangled "f(int) [clone .cold]".
std::string_view drop_clone_suffix(std::string_view name) {
  const size_t clone = name.find(" [clone ");
  if (clone != std::string_view::npos) name = name.substr(0, clone);
  // a suffix counts only where it ends the name or a number follows it, so
  // that a package named "part" or "cold" stays
  for (std::string_view suffix : {".cold", ".localalias", ".constprop.", ".isra.", ".part.", ".lto_priv.", ".llvm."}) {
    for (size_t at = name.find(suffix); at != std::string_view::npos && at > 0; at = name.find(suffix, at + 1)) {
      const size_t end = at + suffix.size();
      const bool numbered = suffix.back() == '.' && end < name.size() && is_digit(name[end]);
      const bool last = suffix.back() != '.' && (end == name.size() || name[end] == '.');
      if (numbered || last) {
        name = name.substr(0, at);
        break;
      }
    }
  }
  return name;
}

bool is_ident(char c) {
  return (c >= 'a' && c <= 'z') || is_upper(c) || is_digit(c) || c == '_' || c == '-' || c == '$';
}

Lang lang_of_file(std::string_view file) {
  const size_t dot = file.rfind('.');
  if (dot == std::string_view::npos || file.find('/', dot) != std::string_view::npos) return Lang::Unknown;
  const std::string_view ext = file.substr(dot + 1);
  if (ext == "go") return Lang::Go;
  if (ext == "java" || ext == "kt" || ext == "scala") return Lang::Java;
  if (ext == "py" || ext == "pyx") return Lang::Python;
  for (std::string_view c : {"rs", "c", "cc", "cpp", "cxx", "h", "hh", "hpp", "hxx", "inl"})
    if (ext == c) return Lang::Colons;
  return Lang::Unknown;
}

// "pkg/mod.py" -> "pkg.mod": the import name under site-packages or the
// interpreter's lib/pythonX.Y, else the path as written, with slashes as dots.
std::string python_module(std::string_view path) {
  if (ends_with(path, ".py")) path.remove_suffix(3);
  if (ends_with(path, ".pyx")) path.remove_suffix(4);
  for (std::string_view root : {"site-packages/", "dist-packages/"}) {
    const size_t at = path.rfind(root);
    if (at != std::string_view::npos) path = path.substr(at + root.size());
  }
  for (size_t at = path.find("/python"); at != std::string_view::npos; at = path.find("/python", at + 1)) {
    size_t i = at + 7;  // after "/python": digits.digits/ is the standard library root
    while (i < path.size() && (is_digit(path[i]) || path[i] == '.')) ++i;
    if (i > at + 7 && i < path.size() && path[i] == '/') path = path.substr(i + 1);
  }
  std::string out;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    const std::string_view part = path.substr(start, end - start);
    if (!part.empty() && part != ".") {
      if (!out.empty()) out.push_back('.');
      out.append(part);
    }
    start = end + 1;
  }
  if (ends_with(out, ".__init__")) out.resize(out.size() - 9);
  return out;
}

// Dotted names (Java, Python, and Go without a slash): the leading lower-case
// components before the class (first capitalised one) or the last component;
// a Go closure suffix (func1, gowrap2, 1) means the package is the first one.
std::string dotted_package(std::string_view name) {
  const size_t paren = name.find('(');
  if (paren != std::string_view::npos) name = name.substr(0, paren);
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (start <= name.size()) {
    size_t end = name.find('.', start);
    if (end == std::string_view::npos) end = name.size();
    parts.push_back(name.substr(start, end - start));
    start = end + 1;
  }
  if (parts.size() < 2) return "";
  auto closure = [](std::string_view c) {
    for (std::string_view pre : {"func", "gowrap", "deferwrap", ""})
      if (starts_with(c, pre) && c.size() > pre.size()) {
        bool digits = true;
        for (char ch : c.substr(pre.size())) digits &= is_digit(ch);
        if (digits) return true;
      }
    return false;
  };
  size_t keep = parts.size() - 1;
  for (size_t i = 1; i < parts.size(); ++i)
    if (closure(parts[i])) keep = 1;
  std::string out;
  for (size_t i = 0; i < keep; ++i) {
    const std::string_view c = parts[i];
    if (c.empty() || is_type_name(c) || c[0] == '$') break;
    for (char ch : c)
      if (!is_ident(ch)) return "";
    if (!out.empty()) out.push_back('.');
    out.append(c);
  }
  return out;
}

// Java names with slashes (com/foo/Bar.m) or hidden classes (Bar$$Lambda/0x...).
std::string java_package(std::string_view name) {
  std::string dotted;
  dotted.reserve(name.size());
  for (size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '/' && starts_with(name.substr(i + 1), "0x")) {  // hidden class suffix
      while (i + 1 < name.size() && name[i + 1] != '.') ++i;
      continue;
    }
    dotted.push_back(name[i] == '/' ? '.' : name[i]);
  }
  return dotted_package(dotted);
}

// Where an argument list starts (Java's "(I)V", C's "(int)"), or the end: a
// '(' right after '.' is Go's "(*T)" receiver, part of the name.
size_t argument_list(std::string_view name) {
  for (size_t i = name.find('('); i != std::string_view::npos; i = name.find('(', i + 1))
    if (i == 0 || name[i - 1] != '.') return i;
  return name.size();
}

// Go: the import path is everything before the first '.' after the last '/'
// (type parameters in [...] come after it and may hold slashes of their own).
std::string go_package(std::string_view name) {
  const size_t bracket = name.find('[');
  if (bracket != std::string_view::npos) name = name.substr(0, bracket);
  name = name.substr(0, argument_list(name));
  const size_t slash = name.rfind('/');
  const size_t from = slash == std::string_view::npos ? 0 : slash + 1;
  const size_t dot = name.find('.', from);
  if (dot == std::string_view::npos || dot == from) return "";
  if (slash != std::string_view::npos && is_upper(name[from])) return java_package(name);  // com/foo/Bar.m
  std::string out;
  const std::string_view path = name.substr(0, dot);
  for (size_t i = 0; i < path.size(); ++i) {
    if (path[i] == '%' && (path.substr(i, 3) == "%2e" || path.substr(i, 3) == "%2E")) {
      out.push_back('.');
      i += 2;
    } else {
      out.push_back(path[i]);
    }
  }
  return out;
}

// C++ and Rust: the leading components of the path that are namespaces (or
// modules): lower-case, no template or argument list, not the function itself.
std::string colon_package(std::string_view name) {
  // Rust's <Type as Trait>::method: the type's path is the package.
  if (!name.empty() && name[0] == '<') {
    int depth = 0;
    size_t end = 1;
    for (; end < name.size(); ++end) {
      const char c = name[end];
      if (c == '<') ++depth;
      if (c == '>' && depth-- == 0) break;
      if (depth == 0 && name.substr(end, 4) == " as ") break;
    }
    std::string type(name.substr(1, end - 1));
    type += "::x";  // the type's last component is a type, not a namespace
    return colon_package(type);
  }
  if (starts_with(name, "(anonymous namespace)::")) {
    const std::string rest = colon_package(name.substr(23));
    return "(anonymous namespace)" + (rest.empty() ? "" : "::" + rest);
  }
  // Skip a return type: the text before the last space outside brackets
  // ahead of the argument list.
  {
    int depth = 0;
    size_t start = 0;
    for (size_t i = 0; i < name.size(); ++i) {
      const char c = name[i];
      if (c == '<' || c == '[' || c == '{') ++depth;
      if ((c == '>' || c == ']' || c == '}') && depth > 0) --depth;
      if (c == '(' && depth == 0) break;
      if (c == ' ' && depth == 0) start = i + 1;
    }
    name = name.substr(start);
  }
  std::vector<std::string_view> parts;
  {
    int depth = 0;
    size_t start = 0, i = 0;
    for (; i < name.size(); ++i) {
      const char c = name[i];
      if (depth == 0 && c == '(') break;                                               // arguments
      if (depth == 0 && i == start && starts_with(name.substr(i), "operator")) break;  // operator<, operator()
      if (c == '<' || c == '[' || c == '{' || c == '(') ++depth;
      if ((c == '>' || c == ']' || c == '}' || c == ')') && depth > 0) --depth;
      if (depth == 0 && c == ':' && i + 1 < name.size() && name[i + 1] == ':') {
        const std::string_view part = name.substr(start, i - start);
        if (!part.empty() && part[0] == '<' && !parts.empty()) {
          // Rust's turbofish f::<T>: arguments of the previous component
        } else {
          parts.push_back(part);
        }
        start = i + 2;
        ++i;
      }
    }
    parts.push_back(name.substr(start, i - start));
  }
  // Rust's symbol hash (h + 16 hex digits) and closures are not components.
  auto noise = [](std::string_view c) {
    if (c.size() == 17 && c[0] == 'h') {
      bool hex = true;
      for (char ch : c.substr(1)) hex &= is_digit(ch) || (ch >= 'a' && ch <= 'f');
      if (hex) return true;
    }
    return starts_with(c, "{{closure}}") || starts_with(c, "{closure") || starts_with(c, "{lambda") ||
           starts_with(c, "{async");
  };
  while (!parts.empty() && noise(parts.back())) parts.pop_back();
  if (parts.size() < 2) return "";
  std::string out;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    const std::string_view c = parts[i];
    if (c.empty() || is_type_name(c) || noise(c)) break;
    bool plain = true;
    for (char ch : c) plain &= is_ident(ch);
    if (!plain) break;
    if (!out.empty()) out += "::";
    out.append(c);
  }
  return out;
}

// Native frames of JVM profilers: "libjvm.so.Unsafe_Park" and the bare
// "./lib/x86_64-linux-gnu/libc-2.31.so" belong to the shared library.
std::string shared_library(std::string_view name) {
  for (size_t so = name.find(".so"); so != std::string_view::npos; so = name.find(".so", so + 1)) {
    size_t end = so + 3;
    while (end + 1 < name.size() && name[end] == '.' && is_digit(name[end + 1])) {  // .so.6.0
      ++end;
      while (end < name.size() && is_digit(name[end])) ++end;
    }
    if (end != name.size() && name[end] != '.') continue;
    std::string_view lib = name.substr(0, end);
    const size_t slash = lib.rfind('/');
    if (slash != std::string_view::npos) lib = lib.substr(slash + 1);
    for (char c : lib)
      if (!is_ident(c) && c != '.' && c != '+') return "";
    return std::string(lib);
  }
  return "";
}

}  // namespace

std::string package_of(std::string_view name, std::string_view file) {
  const Lang lang = lang_of_file(file);
  name = drop_clone_suffix(name);
  const size_t py = name.find(".py:");
  if (py != std::string_view::npos && lang != Lang::Go && lang != Lang::Java)
    return python_module(name.substr(0, py + 3));
  switch (lang) {
    case Lang::Go:
      return go_package(name);
    case Lang::Java:
      return java_package(name);
    case Lang::Python:
      return python_module(file);
    case Lang::Colons:
      return colon_package(name);
    case Lang::Unknown:
      break;
  }
  if (std::string lib = shared_library(name); !lib.empty()) return lib;
  if (name.find("::") != std::string_view::npos) return colon_package(name);
  if (name.find('$') != std::string_view::npos) return java_package(name);
  const std::string_view head = name.substr(0, argument_list(name));
  if (head.find('/') != std::string_view::npos || head.find(".(") != std::string_view::npos ||
      head.find('[') != std::string_view::npos)
    return go_package(name);
  return dotted_package(name);
}

}  // namespace pprofcore
