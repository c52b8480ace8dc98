// packages: the package a function belongs to, read from its name (and its
// file's extension when the name alone is ambiguous): a Go import path, a Java
// package, a C++ or Rust namespace path, a Python module. The `packages`
// granularity of aggregate() groups nodes by it. Does not look at binaries or
// debug info; a name with no package part (a C function) gives "".
#pragma once
#include <string>
#include <string_view>

namespace pprofcore {

// The package of function `name` defined in `file` ("" when unknown):
//   github.com/x/y/pkg.(*T[...]).M.func1 -> github.com/x/y/pkg   (Go; %2e unescaped)
//   com.foo.Bar$Inner.method(I)V         -> com.foo               (Java, also com/foo/Bar)
//   ns::sub::Class<T>::fn(int)           -> ns::sub               (C++, Rust; hashes dropped)
//   pkg/mod.py:func, or func in pkg/mod.py -> pkg.mod            (Python)
//   pkg.mod.Class.meth                   -> pkg.mod               (dotted names)
std::string package_of(std::string_view name, std::string_view file);

}  // namespace pprofcore
