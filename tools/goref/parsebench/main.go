// parsebench: times google/pprof's profile.Parse on in-memory bytes, for bench/.
//
// Usage: parsebench [-reps N] [-min-time SECONDS] FILE...
//
// For each file: reads it into memory once, parses once to warm up (and to
// measure peak heap, by sampling the live heap every 200us on a side goroutine),
// then times N parses of bytes.NewReader(data). Prints one JSON object per file:
// best/median wall-clock seconds, best CPU seconds (all threads), allocated bytes per parse (MemStats.TotalAlloc delta / N),
// the live heap of one parsed profile after a GC, the sampled peak heap, and the
// process's peak RSS after the first parse (meaningful with one file per process).
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/google/pprof/profile"
)

type result struct {
	File               string    `json:"file"`
	Bytes              int       `json:"bytes"`
	Samples            int       `json:"samples"`
	Reps               int       `json:"reps"`
	BestS              float64   `json:"best_s"`
	MedianS            float64   `json:"median_s"`
	TimesS             []float64 `json:"times_s"`
	BestCPUS           float64   `json:"best_cpu_s"`
	CPUTimesS          []float64 `json:"cpu_times_s"`
	AllocBytesPerParse uint64    `json:"alloc_bytes_per_parse"`
	LiveHeapBytes      uint64    `json:"live_heap_bytes"`
	PeakHeapBytes      uint64    `json:"peak_heap_bytes"`
	MaxRSSBytes        int64     `json:"max_rss_bytes"`
	GoVersion          string    `json:"go_version"`
	Error              string    `json:"error,omitempty"`
}

func heapObjects() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

func heapAlloc() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// peakDuring runs f while sampling the heap; returns the max sampled live heap.
func peakDuring(f func()) uint64 {
	var peak uint64
	var stop int32
	done := make(chan struct{})
	go func() {
		for atomic.LoadInt32(&stop) == 0 {
			if h := heapObjects(); h > peak {
				peak = h
			}
			time.Sleep(200 * time.Microsecond)
		}
		close(done)
	}()
	f()
	if h := heapObjects(); h > peak {
		peak = h
	}
	atomic.StoreInt32(&stop, 1)
	<-done
	return peak
}

// maxRSS is the process's peak RSS: VmHWM from /proc/self/status on Linux
// (getrusage's ru_maxrss there also counts the parent's RSS copied by fork when
// this program runs as a subprocess of a big process), else ru_maxrss.
func maxRSS() int64 {
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "VmHWM:") {
				f := strings.Fields(line)
				if len(f) >= 2 {
					if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil {
						return kb * 1024
					}
				}
			}
		}
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return ru.Maxrss * 1024 // kilobytes on Linux
}

// cpuSeconds is the user+system CPU time of the whole process (all threads,
// so the garbage collector's background work is included).
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

func bench(path string, reps int, minTime float64) result {
	r := result{File: path, GoVersion: runtime.Version()}
	data, err := os.ReadFile(path)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	r.Bytes = len(data)
	runtime.GC()
	base := heapAlloc()
	var p *profile.Profile
	r.PeakHeapBytes = peakDuring(func() { p, err = profile.Parse(bytes.NewReader(data)) })
	if err != nil {
		r.Error = err.Error()
		return r
	}
	if r.PeakHeapBytes > base {
		r.PeakHeapBytes -= base
	} else {
		r.PeakHeapBytes = 0
	}
	runtime.GC()
	if h := heapAlloc(); h > base {
		r.LiveHeapBytes = h - base
	}
	r.Samples = len(p.Sample)
	r.MaxRSSBytes = maxRSS()
	p = nil
	runtime.GC()

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	for i := 0; i < reps || time.Since(start).Seconds() < minTime; i++ {
		c0 := cpuSeconds()
		t0 := time.Now()
		q, err := profile.Parse(bytes.NewReader(data))
		r.TimesS = append(r.TimesS, time.Since(t0).Seconds())
		r.CPUTimesS = append(r.CPUTimesS, cpuSeconds()-c0)
		if err != nil || q == nil {
			r.Error = fmt.Sprint(err)
			return r
		}
	}
	runtime.ReadMemStats(&after)
	r.Reps = len(r.TimesS)
	r.AllocBytesPerParse = (after.TotalAlloc - before.TotalAlloc) / uint64(r.Reps)
	sorted := append([]float64(nil), r.TimesS...)
	sort.Float64s(sorted)
	r.BestS = sorted[0]
	r.BestCPUS = r.CPUTimesS[0]
	for _, c := range r.CPUTimesS {
		if c < r.BestCPUS {
			r.BestCPUS = c
		}
	}
	r.MedianS = sorted[len(sorted)/2]
	if len(sorted)%2 == 0 {
		r.MedianS = (sorted[len(sorted)/2-1] + sorted[len(sorted)/2]) / 2
	}
	return r
}

func main() {
	reps := flag.Int("reps", 5, "timed parses per file (at least)")
	minTime := flag.Float64("min-time", 0, "keep repeating until this many seconds have passed")
	flag.Parse()
	enc := json.NewEncoder(os.Stdout)
	status := 0
	for _, path := range flag.Args() {
		r := bench(path, *reps, *minTime)
		if r.Error != "" {
			status = 1
		}
		enc.Encode(r)
	}
	os.Exit(status)
}
