// legacy: the dispatch between the legacy readers, in pprof's order (see
// legacy.hpp).
#include "pprofcore/legacy.hpp"

#include "pprofcore/goroutine_dump.hpp"
#include "pprofcore/legacy_go.hpp"
#include "pprofcore/legacy_gperftools.hpp"
#include "pprofcore/legacy_java.hpp"
#include "pprofcore/legacy_jemalloc.hpp"
#include "pprofcore/legacy_threadz.hpp"

namespace pprofcore {

bool decode_legacy(const uint8_t* data, size_t n, Profile& out) {
  // pprof's order: the binary CPU header first, then each text header.
  const char* text = reinterpret_cast<const char*>(data);
  return legacy::parse_gperftools_cpu(data, n, out) || legacy::parse_heap_text(text, n, out) ||
         legacy::parse_go_count(text, n, out) || legacy::parse_threadz(text, n, out) ||
         legacy::parse_contention(text, n, out) || legacy::parse_java_text(text, n, out) ||
         // Not pprof's: it reads neither jemalloc's heap profiles nor goroutine dumps.
         legacy::parse_jemalloc_heap(text, n, out) || decode_goroutine_dump(text, n, out);
}

}  // namespace pprofcore
