// Command goseries writes a series of CPU profiles of one process running a
// steady mix of work, for the statistical tests of pprofcore.compare.
//
//	go run main.go OUTDIR COUNT SAMPLES HZ WORKERS
//
// Each profile covers enough CPU time for about SAMPLES samples at HZ, spent
// by WORKERS goroutines doing the same work. The rate is set before
// StartCPUProfile (which then keeps it and warns); the kernel checks CPU
// timers on its tick, so rates above the tick rate give fewer samples.
package main

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

var sink uint64

//go:noinline
func mixLeaf(n int) uint64 {
	x := uint64(88172645463325252)
	for i := 0; i < n; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

//go:noinline
func sumLeaf(xs []uint64) uint64 {
	var s uint64
	for _, v := range xs {
		s += v * 31
	}
	return s
}

//go:noinline
func hashWork(buf []byte) {
	for i := 0; i < 4; i++ {
		h := sha256.Sum256(buf)
		sink += uint64(h[0])
	}
}

//go:noinline
func sortWork(xs []float64, seed uint64) {
	for i := range xs {
		seed = seed*6364136223846793005 + 1442695040888963407
		xs[i] = float64(seed >> 11)
	}
	sort.Float64s(xs)
}

//go:noinline
func textWork(n int) {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(strconv.Itoa(i))
		b.WriteByte(',')
	}
	sink += uint64(len(strings.Split(b.String(), ",")))
}

//go:noinline
func mapWork(n int) {
	m := make(map[int]int, 16)
	for i := 0; i < n; i++ {
		m[i*7919%1024] += i
	}
	sink += uint64(len(m))
}

func step(buf []byte, xs []float64, ys []uint64, i uint64) {
	sink += mixLeaf(20000)
	sink += sumLeaf(ys)
	hashWork(buf)
	sortWork(xs, i)
	textWork(400)
	mapWork(3000)
}

// work runs steps with its own buffers while more() holds.
func work(seed uint64, more func() bool) {
	buf := make([]byte, 8192)
	xs := make([]float64, 2000)
	ys := make([]uint64, 30000)
	for i := range ys {
		ys[i] = uint64(i) + seed
	}
	for i := seed << 32; more(); i++ {
		step(buf, xs, ys, i)
	}
}

func main() {
	if len(os.Args) != 6 {
		fmt.Fprintln(os.Stderr, "usage: goseries OUTDIR COUNT SAMPLES HZ WORKERS")
		os.Exit(2)
	}
	dir := os.Args[1]
	count, _ := strconv.Atoi(os.Args[2])
	samples, _ := strconv.Atoi(os.Args[3])
	hz, _ := strconv.Atoi(os.Args[4])
	workers, _ := strconv.Atoi(os.Args[5])
	want := time.Duration(float64(samples) * 1.1 / float64(hz) * float64(time.Second))
	for p := 0; p < count; p++ {
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("cpu-%03d.pb.gz", p)))
		if err != nil {
			panic(err)
		}
		runtime.SetCPUProfileRate(hz)
		if err := pprof.StartCPUProfile(f); err != nil {
			panic(err)
		}
		start := cpuTime()
		var wg sync.WaitGroup
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func(seed uint64) {
				defer wg.Done()
				work(seed, func() bool { return cpuTime()-start < want })
			}(uint64(w))
		}
		wg.Wait()
		pprof.StopCPUProfile()
		f.Close()
	}
}
