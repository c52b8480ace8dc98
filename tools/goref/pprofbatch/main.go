// pprofbatch runs many `pprof` command lines in one process through google/pprof's
// public driver package, so tests can compare against pprof's own filter code
// without paying process start-up per call.
//
// Input (stdin): one JSON array of pprof arguments per line, e.g.
//   ["-proto", "-focus=main", "-output=/tmp/o.pb", "cpu.pb.gz"]
// Output (stdout): one JSON object per input line:
//   {"ok": true|false, "error": "...", "messages": ["...", ...]}
// where messages are what pprof printed to stderr (warnings such as
// "Focus expression matched no samples").
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/google/pprof/driver"
)

type flags struct {
	fs   *flag.FlagSet
	args []string
}

func (f *flags) Bool(o string, d bool, c string) *bool          { return f.fs.Bool(o, d, c) }
func (f *flags) Int(o string, d int, c string) *int             { return f.fs.Int(o, d, c) }
func (f *flags) Float64(o string, d float64, c string) *float64 { return f.fs.Float64(o, d, c) }
func (f *flags) String(o, d, c string) *string                  { return f.fs.String(o, d, c) }
func (f *flags) StringList(o, d, c string) *[]*string {
	return &[]*string{f.fs.String(o, d, c)}
}
func (f *flags) ExtraUsage() string      { return "" }
func (f *flags) AddExtraUsage(eu string) {}
func (f *flags) Parse(usage func()) []string {
	f.fs.Usage = usage
	if err := f.fs.Parse(f.args); err != nil {
		return nil
	}
	return f.fs.Args()
}

type ui struct{ messages []string }

func (u *ui) ReadLine(string) (string, error) { return "", io.EOF }
func (u *ui) Print(a ...interface{})           { u.messages = append(u.messages, strings.TrimSpace(fmt.Sprint(a...))) }
func (u *ui) PrintErr(a ...interface{})        { u.messages = append(u.messages, strings.TrimSpace(fmt.Sprint(a...))) }
func (u *ui) IsTerminal() bool                 { return false }
func (u *ui) WantBrowser() bool                { return false }
func (u *ui) SetAutoComplete(func(string) string) {}

type result struct {
	OK       bool     `json:"ok"`
	Error    string   `json:"error,omitempty"`
	Messages []string `json:"messages"`
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<24)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var args []string
		if err := json.Unmarshal(in.Bytes(), &args); err != nil {
			out.Encode(result{Error: "bad input line: " + err.Error()})
			continue
		}
		// pprof keeps its configuration in a global that each run starts from:
		// reset every filter option so earlier jobs do not leak into this one.
		reset := []string{"-focus=", "-ignore=", "-hide=", "-show=", "-show_from=", "-tagfocus=", "-tagignore=",
			"-tagshow=", "-taghide=", "-prune_from=", "-tagroot=", "-tagleaf=", "-output="}
		args = append(reset, args...)
		u := &ui{messages: []string{}}
		fs := &flags{fs: flag.NewFlagSet("pprof", flag.ContinueOnError), args: args}
		fs.fs.SetOutput(io.Discard)
		err := driver.PProf(&driver.Options{Flagset: fs, UI: u})
		r := result{OK: err == nil, Messages: u.messages}
		if err != nil {
			r.Error = err.Error()
		}
		out.Encode(r)
	}
}
