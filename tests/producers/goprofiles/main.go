// goprofiles: a small Go workload that writes real runtime/pprof profiles of
// every kind into a directory, so the tests have real producer output to check
// against google/pprof when no shared corpus is present.
//
// Usage: goprofiles OUTDIR
//
// It writes go/cpu-labels.pb.gz (CPU with pprof.Do labels), go/{heap,allocs,
// mutex,block,goroutine,threadcreate}.pb.gz, fleet/cpu/host-N.pb.gz (short CPU
// windows of one process), fleet/heapseries/heap-N.pb.gz (cumulative heap
// profiles over time, for delta) and legacy/*.debug1.txt (the debug=1 text that
// pprof reads with its legacy parsers: heap, allocs, mutex, block, goroutine,
// threadcreate and a custom pprof.NewProfile count profile).
package main

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

var sink []byte

//go:noinline
func hashLoop(n int) byte {
	h := sha256.New()
	buf := make([]byte, 4096)
	for i := 0; i < n; i++ {
		buf[i%len(buf)] = byte(i)
		h.Write(buf)
	}
	return h.Sum(nil)[0]
}

//go:noinline
func sortWork(n int) int {
	xs := make([]int, n)
	for i := range xs {
		xs[i] = (i * 7919) % n
	}
	sort.Ints(xs)
	return xs[n/2]
}

//go:noinline
func buildStrings(n int) int {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "item-%d,", i)
	}
	return b.Len()
}

//go:noinline
func allocSmall(n int) {
	for i := 0; i < n; i++ {
		sink = make([]byte, 64+i%512)
	}
}

//go:noinline
func allocLarge(n int) {
	for i := 0; i < n; i++ {
		sink = make([]byte, 1<<16)
	}
}

// cpuTime is the CPU time this process has used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	check(syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// work burns about d of CPU time (not wall time: the sample count must not
// depend on how busy the machine is) in a few distinct functions.
func work(d time.Duration) {
	deadline := cpuTime() + d
	for cpuTime() < deadline {
		hashLoop(200)
		sortWork(20000)
		buildStrings(2000)
		allocSmall(200)
	}
}

// labelledWork runs work under pprof labels on two goroutines.
func labelledWork(d time.Duration) {
	var wg sync.WaitGroup
	for _, tenant := range []string{"alpha", "beta"} {
		wg.Add(1)
		go func(tenant string) {
			defer wg.Done()
			pprof.Do(context.Background(), pprof.Labels("tenant", tenant, "endpoint", "/api/"+tenant), func(context.Context) {
				work(d)
			})
		}(tenant)
	}
	wg.Wait()
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "goprofiles:", err)
		os.Exit(1)
	}
}

func create(dir, name string) *os.File {
	path := filepath.Join(dir, name)
	check(os.MkdirAll(filepath.Dir(path), 0o755))
	f, err := os.Create(path)
	check(err)
	return f
}

func cpuProfile(dir, name string, run func()) {
	f := create(dir, name)
	check(pprof.StartCPUProfile(f))
	run()
	pprof.StopCPUProfile()
	check(f.Close())
}

func lookup(dir, kind, name string, debug int) {
	f := create(dir, name)
	check(pprof.Lookup(kind).WriteTo(f, debug))
	check(f.Close())
}

// contention makes mutex and block events on a few goroutines.
func contention() {
	var mu sync.Mutex
	var wg sync.WaitGroup
	ch := make(chan int)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				mu.Lock()
				sortWork(500)
				mu.Unlock()
			}
		}()
	}
	go func() {
		for i := 0; i < 200; i++ {
			ch <- i
			time.Sleep(10 * time.Microsecond)
		}
		close(ch)
	}()
	for range ch {
	}
	wg.Wait()
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: goprofiles OUTDIR")
		os.Exit(2)
	}
	dir := os.Args[1]
	runtime.MemProfileRate = 4096
	runtime.SetMutexProfileFraction(1)
	runtime.SetBlockProfileRate(1)

	cpuProfile(dir, "go/cpu-labels.pb.gz", func() { labelledWork(500 * time.Millisecond) })
	for i := 0; i < 8; i++ {
		cpuProfile(dir, fmt.Sprintf("fleet/cpu/host-%d.pb.gz", i), func() { work(200 * time.Millisecond) })
	}
	for i := 0; i < 12; i++ {
		allocSmall(500 * (i + 1))
		if i%3 == 1 {
			allocLarge(50)
		}
		runtime.GC()
		lookup(dir, "heap", fmt.Sprintf("fleet/heapseries/heap-%d.pb.gz", i), 0)
	}
	contention()
	// Goroutines parked on a channel, so the goroutine profile has stacks.
	park := make(chan struct{})
	for i := 0; i < 3; i++ {
		go func() { <-park }()
	}
	runtime.GC()
	for _, kind := range []string{"heap", "allocs", "mutex", "block", "goroutine", "threadcreate"} {
		lookup(dir, kind, "go/"+kind+".pb.gz", 0)
	}
	// A custom profile (pprof.NewProfile) holding a few open "connections".
	conns := pprof.NewProfile("pprofcore.test/connections")
	for i := 0; i < 3; i++ {
		conns.Add(new(int), 1)
	}
	for _, kind := range []string{"heap", "allocs", "mutex", "block", "goroutine", "threadcreate", "pprofcore.test/connections"} {
		lookup(dir, kind, "legacy/go-"+strings.ReplaceAll(kind, "/", "-")+".debug1.txt", 1)
	}
	close(park)
}
