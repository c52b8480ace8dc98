// labelseries: the google/pprof baseline of pprofcore's label series
// (ProfileSet.series(by="label:KEY")). For each file: profile.Parse, then the
// value of the default sample type summed per value of each label key given
// (the first value a sample carries; numbers in power-of-two buckets, as
// pprofcore's default), kept as one (profile, key, value, sum) row per
// non-zero sum.
//
//	labelseries [-t] -k KEY[,KEY...] FILE...
//
// Prints the number of rows; with -t the CPU seconds of the process during the
// work ("cpu S", garbage collector included) then the elapsed seconds on
// stdout, and the number of rows on stderr (the benchmark reads the last
// stdout line, and the CPU line where it compares CPU time).
package main

import (
	"fmt"
	"math/bits"
	"os"
	"strings"
	"syscall"
	"time"

	"../common"
)

type row struct {
	profile int
	key     string
	label   string
	value   int64
}

// bucketOf is a number's power-of-two bucket as pprofcore numbers it:
// 0 alone, k+1 for [2^k, 2^(k+1)), negatives mirrored.
func bucketOf(v int64) int {
	if v == 0 {
		return 0
	}
	m := uint64(v)
	if v < 0 {
		return -(64 - bits.LeadingZeros64(-m))
	}
	return 64 - bits.LeadingZeros64(m)
}

// bucketName names a bucket as pprofcore does: "[1024, 2048)", "(-2048, -1024]".
func bucketName(b int) string {
	if b == 0 {
		return "0"
	}
	k := b - 1
	if b < 0 {
		k = -b - 1
	}
	lo, hi := uint64(1)<<k, fmt.Sprint(uint64(1)<<k*2)
	if k == 63 {
		hi = "9223372036854775808"
	}
	if b < 0 {
		return fmt.Sprintf("(-%s, -%d]", hi, lo)
	}
	return fmt.Sprintf("[%d, %s)", lo, hi)
}

// cpuSeconds is the user and system time of the process so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

func main() {
	args := os.Args[1:]
	timing := false
	var keys []string
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		switch args[0] {
		case "-t":
			timing, args = true, args[1:]
		case "-k":
			keys, args = strings.Split(args[1], ","), args[2:]
		default:
			fmt.Fprintln(os.Stderr, "usage: labelseries [-t] -k KEY[,KEY...] FILE...")
			os.Exit(2)
		}
	}
	start, cpu0 := time.Now(), cpuSeconds()
	var rows []row
	for i, path := range args {
		p := common.MustParseFile(path)
		idx := common.DefaultSampleIndex(p)
		for _, key := range keys {
			sums := map[string]int64{}
			nums := map[int]int64{} // by bucket, named once per profile
			for _, s := range p.Sample {
				if v, ok := s.Label[key]; ok && len(v) > 0 {
					sums[v[0]] += s.Value[idx]
				} else if n, ok := s.NumLabel[key]; ok && len(n) > 0 {
					nums[bucketOf(n[0])] += s.Value[idx]
				} else {
					sums["(none)"] += s.Value[idx]
				}
			}
			for b, v := range nums {
				sums[bucketName(b)] += v
			}
			for name, v := range sums {
				if v != 0 {
					rows = append(rows, row{i, key, name, v})
				}
			}
		}
	}
	if timing {
		elapsed := time.Since(start).Seconds()
		fmt.Fprintln(os.Stderr, len(rows))
		fmt.Printf("cpu %.6f\n%.6f\n", cpuSeconds()-cpu0, elapsed)
		return
	}
	fmt.Println(len(rows))
}
