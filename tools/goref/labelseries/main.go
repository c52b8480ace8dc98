// labelseries: the google/pprof baseline of pprofcore's label series
// (ProfileSet.series(by="label:KEY")). For each file: profile.Parse, then the
// value of the default sample type summed per value of each label key given
// (the first value a sample carries; numbers in power-of-two buckets, as
// pprofcore's default), kept as one (profile, key, value, sum) row per
// non-zero sum.
//
//	labelseries [-t] -k KEY[,KEY...] FILE...
//
// Prints the number of rows; with -t the elapsed seconds of the work on stdout
// and the number of rows on stderr (the benchmark reads the last stdout line).
package main

import (
	"fmt"
	"math/bits"
	"os"
	"strings"
	"time"

	"github.com/google/pprof/profile"
)

type row struct {
	profile int
	key     string
	label   string
	value   int64
}

// bucket names a number's power-of-two bucket as pprofcore does: [2^k,
// 2^(k+1)), 0 alone, negatives mirrored.
func bucket(v int64) string {
	if v == 0 {
		return "0"
	}
	m := uint64(v)
	if v < 0 {
		m = -m
	}
	k := 63 - bits.LeadingZeros64(m)
	lo, hi := uint64(1)<<k, uint64(1)<<k*2
	if k == 63 {
		return fmt.Sprintf("(-9223372036854775808, -%d]", lo)
	}
	if v < 0 {
		return fmt.Sprintf("(-%d, -%d]", hi, lo)
	}
	return fmt.Sprintf("[%d, %d)", lo, hi)
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
	start := time.Now()
	var rows []row
	for i, path := range args {
		f, err := os.Open(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		p, err := profile.Parse(f)
		f.Close()
		if err != nil {
			fmt.Fprintln(os.Stderr, path, err)
			os.Exit(1)
		}
		idx := len(p.SampleType) - 1
		if p.DefaultSampleType != "" {
			for j, st := range p.SampleType {
				if st.Type == p.DefaultSampleType {
					idx = j
				}
			}
		}
		for _, key := range keys {
			sums := map[string]int64{}
			for _, s := range p.Sample {
				name := "(none)"
				if v, ok := s.Label[key]; ok && len(v) > 0 {
					name = v[0]
				} else if n, ok := s.NumLabel[key]; ok && len(n) > 0 {
					name = bucket(n[0])
				}
				sums[name] += s.Value[idx]
			}
			for name, v := range sums {
				if v != 0 {
					rows = append(rows, row{i, key, name, v})
				}
			}
		}
	}
	if timing {
		fmt.Fprintln(os.Stderr, len(rows))
		fmt.Printf("%.6f\n", time.Since(start).Seconds())
		return
	}
	fmt.Println(len(rows))
}
