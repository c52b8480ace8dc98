// fleetseries: the google/pprof baseline of pprofcore's ProfileSet.series
// benchmark. For each file: profile.Parse, then the flat value per function
// name of the default sample type (the leaf frame of each sample, pprof's
// "flat"), kept as one (profile, function, value) row per non-zero sum.
//
//	fleetseries [-t] FILE...
//
// Prints the number of rows; with -t the elapsed seconds of the work on stdout
// and the number of rows on stderr (the benchmark reads the last stdout line).
package main

import (
	"fmt"
	"os"
	"time"

	"github.com/google/pprof/profile"
)

type row struct {
	profile int
	name    string
	value   int64
}

func main() {
	args := os.Args[1:]
	timing := false
	if len(args) > 0 && args[0] == "-t" {
		timing, args = true, args[1:]
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
		sums := map[string]int64{}
		for _, s := range p.Sample {
			if len(s.Location) == 0 || len(s.Location[0].Line) == 0 {
				continue
			}
			sums[s.Location[0].Line[0].Function.Name] += s.Value[idx]
		}
		for name, v := range sums {
			if v != 0 {
				rows = append(rows, row{i, name, v})
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
