// Package gobench is a small workload for pprofcore's end-to-end test: a
// request pipeline that parses, checksums, ranks and renders records.
// GOBENCH_SLOW_RENDER=N makes render do its work N times, the kind of
// regression a profile baseline should catch.
package gobench

import (
	"crypto/sha256"
	"os"
	"sort"
	"strconv"
	"strings"
)

var renderRounds = rounds(os.Getenv("GOBENCH_SLOW_RENDER"))

func rounds(s string) int {
	if n, err := strconv.Atoi(s); err == nil && n > 1 {
		return n
	}
	return 1
}

// Record is one parsed input line.
type Record struct {
	Key   string
	Score float64
}

//go:noinline
func parse(lines []string) []Record {
	out := make([]Record, 0, len(lines))
	for _, ln := range lines {
		k, v, _ := strings.Cut(ln, "=")
		f, _ := strconv.ParseFloat(v, 64)
		out = append(out, Record{Key: k, Score: f})
	}
	return out
}

//go:noinline
func checksum(rs []Record) [32]byte {
	h := sha256.New()
	for _, r := range rs {
		h.Write([]byte(r.Key))
	}
	return *(*[32]byte)(h.Sum(nil))
}

//go:noinline
func rank(rs []Record) {
	sort.Slice(rs, func(i, j int) bool { return rs[i].Score < rs[j].Score })
}

//go:noinline
func render(rs []Record) string {
	var s string
	for i := 0; i < renderRounds; i++ {
		var b strings.Builder
		for _, r := range rs {
			b.WriteString(r.Key)
			b.WriteByte(':')
			b.WriteString(strconv.FormatFloat(r.Score, 'f', 3, 64))
			b.WriteByte('\n')
		}
		s = b.String()
	}
	return s
}

// Handle runs the whole pipeline on one batch.
func Handle(lines []string) (string, [32]byte) {
	rs := parse(lines)
	sum := checksum(rs)
	rank(rs)
	return render(rs), sum
}
