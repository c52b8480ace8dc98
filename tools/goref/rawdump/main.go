// rawdump: prints profile.Parse's verdict and the String() dump of each file
// (the same text as `go tool pprof -raw`), used as a test oracle.
//
// Flags (for one process handling many files):
//
//	-sep     print "=== rawdump: <path>" before each file's output
//	-digest  print the SHA-256 of the dump instead of the dump itself
package main

import (
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"

	"../common"
)

func main() {
	sep := flag.Bool("sep", false, "print a separator line naming each file")
	digest := flag.Bool("digest", false, "print the SHA-256 of each dump instead of the dump")
	flag.Parse()
	for _, path := range flag.Args() {
		if *sep {
			fmt.Printf("=== rawdump: %s\n", path)
		}
		p, err := common.ParseFile(path)
		var pathErr *fs.PathError
		if errors.As(err, &pathErr) && pathErr.Op == "open" {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		if err != nil {
			fmt.Printf("ERROR %s\n", err)
			continue
		}
		if *digest {
			fmt.Printf("sha256 %x\n", sha256.Sum256([]byte(p.String())))
		} else {
			fmt.Print(p.String())
		}
	}
}
