// pprofbatch runs many `pprof` command lines in one process through google/pprof's
// public driver package, so tests can compare against pprof's own filter code
// without paying process start-up per call.
//
// Input (stdin): one JSON array of pprof arguments per line, e.g.
//
//	["-proto", "-focus=main", "-output=/tmp/o.pb", "cpu.pb.gz"]
//
// Output (stdout): one JSON object per input line:
//
//	{"ok": true|false, "error": "...", "messages": ["...", ...]}
//
// where messages are what pprof printed to stderr (warnings such as
// "Focus expression matched no samples").
package main

import (
	"encoding/json"
	"os"

	"github.com/google/pprof/driver"

	"../common"
)

// flags: a list flag takes one value here.
type flags struct{ *common.Flags }

func (f flags) StringList(o, d, c string) *[]*string {
	return &[]*string{f.String(o, d, c)}
}

type result struct {
	OK       bool     `json:"ok"`
	Error    string   `json:"error,omitempty"`
	Messages []string `json:"messages"`
}

func main() {
	out := json.NewEncoder(os.Stdout)
	common.EachRequest(func(args []string, err error) {
		if err != nil {
			out.Encode(result{Error: "bad input line: " + err.Error()})
			return
		}
		// pprof keeps its configuration in a global that each run starts from:
		// reset every filter option so earlier jobs do not leak into this one.
		reset := []string{"-focus=", "-ignore=", "-hide=", "-show=", "-show_from=", "-tagfocus=", "-tagignore=",
			"-tagshow=", "-taghide=", "-prune_from=", "-tagroot=", "-tagleaf=", "-output="}
		args = append(reset, args...)
		u := &common.UI{Printed: []string{}}
		err = driver.PProf(&driver.Options{Flagset: flags{common.NewFlags(args)}, UI: u})
		r := result{OK: err == nil, Messages: u.Printed}
		if err != nil {
			r.Error = err.Error()
		}
		out.Encode(r)
	})
}
