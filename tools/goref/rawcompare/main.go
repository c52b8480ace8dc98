// rawcompare: for each pair of paths (a b) on the command line, parses both with
// google/pprof's profile package and prints one line: "SAME", "DIFF <first
// differing line of a> | <of b>", or "ERROR <message>". Used by
// tests/oracles/test_nothing_lost.py to check a re-encoded profile against its original
// with pprof's own reader, in one process for the whole corpus.
package main

import (
	"fmt"
	"os"
	"strings"

	"../common"
)

func dump(path string) (string, error) {
	p, err := common.ParseFile(path)
	if err != nil {
		return "", err
	}
	return p.String(), nil
}

func main() {
	args := os.Args[1:]
	for i := 0; i+1 < len(args); i += 2 {
		a, err := dump(args[i])
		if err != nil {
			fmt.Printf("ERROR %s: %v\n", args[i], err)
			continue
		}
		b, err := dump(args[i+1])
		if err != nil {
			fmt.Printf("ERROR %s: %v\n", args[i+1], err)
			continue
		}
		if a == b {
			fmt.Println("SAME")
			continue
		}
		la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
		for j := 0; j < len(la) || j < len(lb); j++ {
			x, y := "", ""
			if j < len(la) {
				x = la[j]
			}
			if j < len(lb) {
				y = lb[j]
			}
			if x != y {
				fmt.Printf("DIFF line %d: %q | %q\n", j+1, x, y)
				break
			}
		}
	}
}
