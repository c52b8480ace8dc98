// demangle: the names pprof shows for mangled symbols, for pprofcore's
// demangling tests. Reads one symbol per line on stdin and prints, tab
// separated, what google/pprof's demangler (github.com/ianlancetaylor/demangle,
// as pprof's symbolizer calls it) gives in pprof's three modes: the default
// (no parameters, no template arguments), "templates" (no parameters) and
// "full" (no clone suffixes).
package main

import (
	"bufio"
	"fmt"
	"os"

	"github.com/ianlancetaylor/demangle"
)

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for in.Scan() {
		name := in.Text()
		fmt.Fprintf(out, "%s\t%s\t%s\n",
			demangle.Filter(name, demangle.NoParams, demangle.NoTemplateParams),
			demangle.Filter(name, demangle.NoParams),
			demangle.Filter(name, demangle.NoClones))
	}
}
