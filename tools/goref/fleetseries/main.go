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
	"os"
	"time"

	"../common"
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
		p := common.MustParseFile(path)
		idx := common.DefaultSampleIndex(p)
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
	common.PrintCount(timing, start, len(rows))
}
