/* inline: a CPU-bound C program for symbolization tests: mix() is inlined
   into spin(), spin() into hot() and warm(), so samples carry inline frames. */
#include <stdio.h>

static volatile unsigned long sink;

static inline unsigned long mix(unsigned long h, unsigned long i) { return (h ^ i) * 1099511628211UL; }

static unsigned long spin(unsigned long n) {
  unsigned long h = 1469598103934665603UL;
  for (unsigned long i = 0; i < n; ++i) h = mix(h, i);
  return h;
}

__attribute__((noinline)) static void hot(void) { sink += spin(30000000); }
__attribute__((noinline)) static void warm(void) { sink += spin(12000000); }

int main(void) {
  for (int r = 0; r < 4; ++r) {
    hot();
    warm();
  }
  printf("%lu\n", sink);
  return 0;
}
