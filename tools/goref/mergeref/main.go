// mergeref: google/pprof's profile package as the oracle for pprofcore's merge,
// compact, scale and delta. Usage:
//
//	mergeref merge OUT FILE...            profile.Merge of the files, in order
//	mergeref compact OUT FILE             p.Compact()
//	mergeref compact-each OUTDIR FILE...  p.Compact() of each file -> OUTDIR/NNNN.pb.gz
//	mergeref scalen OUT FILE R1,R2,...    p.ScaleN(ratios)
//	mergeref delta OUTDIR TYPES FILE...   the pprof way of delta (as dd-trace-go did
//	                                      before fastdelta): the first file as is,
//	                                      then Merge(prev.ScaleN(-1 for TYPES
//	                                      (comma separated), 0 otherwise), cur)
//
// With -n (before the mode) output is encoded in memory but not written; with
// -t the elapsed time of the work is printed to stderr (benchmarks).
package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/google/pprof/profile"

	"../common"
)

var dryRun bool

func parse(path string) *profile.Profile {
	p, err := common.ParseFile(path)
	check(err)
	return p
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "mergeref:", err)
		os.Exit(1)
	}
}

func write(p *profile.Profile, out string) {
	var buf bytes.Buffer
	check(p.Write(&buf))
	if !dryRun {
		check(os.WriteFile(out, buf.Bytes(), 0o644))
	}
}

func main() {
	args := os.Args[1:]
	timed := false
	for len(args) > 0 && (args[0] == "-n" || args[0] == "-t") {
		if args[0] == "-n" {
			dryRun = true
		} else {
			timed = true
		}
		args = args[1:]
	}
	start := time.Now()
	defer func() {
		if timed {
			fmt.Fprintf(os.Stderr, "elapsed %.6f\n", time.Since(start).Seconds())
		}
	}()
	if len(args) < 3 {
		check(fmt.Errorf("usage: mergeref [-n] merge|compact|scalen|delta OUT ARGS..."))
	}
	mode, out, rest := args[0], args[1], args[2:]
	switch mode {
	case "merge":
		ps := make([]*profile.Profile, len(rest))
		for i, f := range rest {
			ps[i] = parse(f)
		}
		m, err := profile.Merge(ps)
		check(err)
		write(m, out)
	case "compact":
		write(parse(rest[0]).Compact(), out)
	case "compact-each": // OUT is a directory; writes NNNN.pb.gz per input
		for i, f := range rest {
			write(parse(f).Compact(), filepath.Join(out, fmt.Sprintf("%04d.pb.gz", i)))
		}
	case "scalen":
		p := parse(rest[0])
		var ratios []float64
		for _, r := range strings.Split(rest[1], ",") {
			x, err := strconv.ParseFloat(r, 64)
			check(err)
			ratios = append(ratios, x)
		}
		check(p.ScaleN(ratios))
		write(p, out)
	case "delta":
		types := map[string]bool{}
		for _, t := range strings.Split(rest[0], ",") {
			types[t] = true
		}
		var prev *profile.Profile
		for i, f := range rest[1:] {
			cur := parse(f)
			res := cur
			if prev != nil {
				ratios := make([]float64, len(prev.SampleType))
				for j, st := range prev.SampleType {
					if types[st.Type] {
						ratios[j] = -1
					}
				}
				check(prev.ScaleN(ratios))
				var err error
				res, err = profile.Merge([]*profile.Profile{prev, cur})
				check(err)
			}
			write(res, filepath.Join(out, fmt.Sprintf("%04d.pb.gz", i)))
			prev = cur
		}
	default:
		check(fmt.Errorf("unknown mode %q", mode))
	}
}
