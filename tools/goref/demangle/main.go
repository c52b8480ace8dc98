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

	"../common"
)

func main() {
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	common.EachLine(func(line []byte) {
		name := string(line)
		fmt.Fprintf(out, "%s\t%s\t%s\n",
			demangle.Filter(name, demangle.NoParams, demangle.NoTemplateParams),
			demangle.Filter(name, demangle.NoParams),
			demangle.Filter(name, demangle.NoClones))
	})
}
