// pprofreport: runs google/pprof's driver in-process on many command lines, so
// tests can compare reports (-top, -traces, -tags, -peek) without paying
// `go tool pprof`'s start-up per call. Reads one JSON array of arguments per
// stdin line (pprof flags and the profile path, no -output) and writes, per line,
// the report text followed by a line "\x00END <status>" (status "ok" or the error).
// Requests should name their granularity and sort (-functions, -flat ...): those
// choices persist from one request to the next inside the driver.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/google/pprof/driver"
)

type flagSet struct {
	*flag.FlagSet
	args []string
}

// The driver seeds each flag's default from its global "current config", which
// the previous request changed; defaults seen on the first request are pristine.
var pristine = map[string]interface{}{}

func pristineDefault(name string, def interface{}) interface{} {
	if v, ok := pristine[name]; ok {
		return v
	}
	pristine[name] = def
	return def
}

func (f *flagSet) Bool(name string, def bool, usage string) *bool {
	return f.FlagSet.Bool(name, pristineDefault(name, def).(bool), usage)
}
func (f *flagSet) Int(name string, def int, usage string) *int {
	return f.FlagSet.Int(name, pristineDefault(name, def).(int), usage)
}
func (f *flagSet) Float64(name string, def float64, usage string) *float64 {
	return f.FlagSet.Float64(name, pristineDefault(name, def).(float64), usage)
}
func (f *flagSet) String(name string, def string, usage string) *string {
	return f.FlagSet.String(name, pristineDefault(name, def).(string), usage)
}

func (f *flagSet) StringList(name, def, usage string) *[]*string {
	s := []*string{}
	f.Func(name, usage, func(v string) error { s = append(s, &v); return nil })
	return &s
}
func (f *flagSet) ExtraUsage() string      { return "" }
func (f *flagSet) AddExtraUsage(eu string) {}
func (f *flagSet) Parse(usage func()) []string {
	f.FlagSet.Usage = usage
	if err := f.FlagSet.Parse(f.args); err != nil {
		return nil
	}
	return f.FlagSet.Args()
}

type buf struct{ bytes.Buffer }

func (b *buf) Close() error { return nil }

type writer struct{ out *buf }

func (w *writer) Open(name string) (io.WriteCloser, error) { return w.out, nil }

type ui struct{ errs []string }

func (u *ui) ReadLine(string) (string, error)    { return "", io.EOF }
func (u *ui) Print(...interface{})                {}
func (u *ui) PrintErr(a ...interface{})           { u.errs = append(u.errs, fmt.Sprint(a...)) }
func (u *ui) IsTerminal() bool                    { return false }
func (u *ui) WantBrowser() bool                   { return false }
func (u *ui) SetAutoComplete(func(string) string) {}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<24)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for in.Scan() {
		var args []string
		if err := json.Unmarshal(in.Bytes(), &args); err != nil {
			fmt.Fprintf(out, "\x00END bad request: %v\n", err)
			continue
		}
		b := &buf{}
		u := &ui{}
		fs := &flagSet{flag.NewFlagSet("pprof", flag.ContinueOnError), append([]string{"-output=report"}, args...)}
		fs.SetOutput(io.Discard)
		err := driver.PProf(&driver.Options{Flagset: fs, Writer: &writer{b}, UI: u})
		out.Write(b.Bytes())
		status := "ok"
		if err != nil {
			status = strings.ReplaceAll(err.Error()+" "+strings.Join(u.errs, "; "), "\n", " ")
		}
		fmt.Fprintf(out, "\x00END %s\n", status)
		out.Flush()
	}
}
