/* work: a small C workload for gperftools' CPU and heap profilers (run with
   CPUPROFILE=... and libprofiler, or HEAPPROFILE=... and libtcmalloc). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile unsigned long sink;

static unsigned long spin(unsigned long n) {
  unsigned long h = 1469598103934665603UL;
  for (unsigned long i = 0; i < n; ++i) h = (h ^ i) * 1099511628211UL;
  return h;
}

__attribute__((noinline)) static void hot(void) { sink += spin(40000000); }
__attribute__((noinline)) static void warm(void) { sink += spin(15000000); }

__attribute__((noinline)) static char* keep(size_t size) {
  char* p = malloc(size);
  memset(p, 1, size);
  return p;
}

int main(void) {
  char* kept[64];
  for (int i = 0; i < 64; ++i) kept[i] = keep((size_t)(i + 1) * 4096);
  for (int r = 0; r < 6; ++r) {
    hot();
    warm();
  }
  for (int i = 0; i < 64; i += 2) free(kept[i]);
  printf("%lu\n", sink);
  return 0;
}
