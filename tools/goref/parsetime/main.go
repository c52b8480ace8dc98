// parsetime reports how long google/pprof's profile.Parse takes on a file:
// the minimum over -n runs, in seconds, as JSON {"parse_seconds": ..., "samples": ...}.
// The file is read into memory first, so only decompression + decoding is timed.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/google/pprof/profile"
)

func main() {
	n := flag.Int("n", 3, "runs")
	flag.Parse()
	data, err := os.ReadFile(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	best := time.Duration(1 << 62)
	samples := 0
	for i := 0; i < *n; i++ {
		t := time.Now()
		p, err := profile.Parse(bytes.NewReader(data))
		d := time.Since(t)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		samples = len(p.Sample)
		if d < best {
			best = d
		}
	}
	json.NewEncoder(os.Stdout).Encode(map[string]interface{}{"parse_seconds": best.Seconds(), "samples": samples})
}
