// names: a CPU-bound C++ program whose hot functions have the names that
// demangling modes shorten differently: a class template's member function
// template, an operator, a lambda and a function in an anonymous namespace.
#include <cstdio>
#include <vector>

namespace work {

template <class T>
struct Acc {
  T h = 1469598103934665603UL;
  template <class U>
  __attribute__((noinline)) T fold(const std::vector<U>& v, int rounds) {
    for (int r = 0; r < rounds; ++r)
      for (U x : v) h = (h ^ static_cast<T>(x)) * 1099511628211UL;
    return h;
  }
  __attribute__((noinline)) Acc& operator+=(unsigned long n) {
    for (unsigned long i = 0; i < n; ++i) h = (h ^ i) * 1099511628211UL;
    return *this;
  }
};

}  // namespace work

namespace {
__attribute__((noinline)) unsigned long churn(unsigned long n) {
  auto step = [](unsigned long h, unsigned long i) __attribute__((noinline)) { return (h ^ i) * 31; };
  unsigned long h = 7;
  for (unsigned long i = 0; i < n; ++i) h = step(h, i);
  return h;
}
}  // namespace

int main() {
  std::vector<int> v(1000, 3);
  work::Acc<unsigned long> acc;
  unsigned long out = 0;
  for (int r = 0; r < 3; ++r) {
    out += acc.fold(v, 8000);
    acc += 10000000;
    out += churn(10000000);
  }
  std::printf("%lu\n", out + acc.h);
  return 0;
}
