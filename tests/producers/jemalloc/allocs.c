/* allocs: a small C workload for jemalloc's heap profiler (run with
   LD_PRELOAD=libjemalloc.so.2 MALLOC_CONF=prof:true,prof_final:true,...): two
   allocation sites of different sizes under two callers, frees that make the
   accumulated counts differ from the in-use ones, and a second thread. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void* kept[40000];
int n_kept;
void* volatile churned; /* keeps the compiler from eliding malloc/free pairs */

__attribute__((noinline)) void small_blocks(int n) {
  for (int i = 0; i < n; ++i) {
    kept[n_kept] = malloc(48);
    memset(kept[n_kept++], 1, 48);
  }
}

__attribute__((noinline)) void big_blocks(int n) {
  for (int i = 0; i < n; ++i) {
    kept[n_kept] = malloc(40000);
    memset(kept[n_kept++], 2, 40000);
  }
}

__attribute__((noinline)) void build(int n) {
  small_blocks(n);
  big_blocks(n / 50);
}

__attribute__((noinline)) void churn(int rounds) {
  for (int r = 0; r < rounds; ++r) {
    void* p = malloc(4096);
    memset(p, 3, 4096);
    churned = p;
    free(churned);
  }
}

static void* worker(void* arg) {
  (void)arg;
  churn(3000);
  big_blocks(40);
  return NULL;
}

int main(void) {
  pthread_t t;
  build(20000);
  pthread_create(&t, NULL, worker, NULL);
  pthread_join(t, NULL);
  for (int i = 0; i < n_kept; i += 3) free(kept[i]);
  printf("%d\n", n_kept);
  return 0;
}
