// rawdump: prints profile.Parse's verdict and the String() dump of each file
// (the same text as `go tool pprof -raw`), used as a test oracle.
package main

import (
	"fmt"
	"os"

	"github.com/google/pprof/profile"
)

func main() {
	for _, path := range os.Args[1:] {
		f, err := os.Open(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		p, err := profile.Parse(f)
		f.Close()
		if err != nil {
			fmt.Printf("ERROR %s\n", err)
			continue
		}
		fmt.Print(p.String())
	}
}
