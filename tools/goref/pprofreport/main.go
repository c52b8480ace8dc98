// pprofreport: runs google/pprof's driver in-process on many command lines, so
// tests can compare reports (-top, -traces, -tags, -peek) without paying
// `go tool pprof`'s start-up per call. Reads one JSON array of arguments per
// stdin line (pprof flags and the profile path, no -output) and writes, per line,
// the report text followed by a line "\x00END <status>" (status "ok" or the error).
// Requests should name their granularity and sort (-functions, -flat ...): those
// choices persist from one request to the next inside the driver
// (tests/helpers/pprof_oracle.py spells out pprof's first-run choices).
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/google/pprof/driver"

	"../common"
)

type flagSet struct{ *common.Flags }

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

type buf struct{ bytes.Buffer }

func (b *buf) Close() error { return nil }

type writer struct{ out *buf }

func (w *writer) Open(name string) (io.WriteCloser, error) { return w.out, nil }

func main() {
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	common.EachRequest(func(args []string, err error) {
		if err != nil {
			fmt.Fprintf(out, "\x00END bad request: %v\n", err)
			return
		}
		b := &buf{}
		u := &common.UI{}
		fs := &flagSet{common.NewFlags(append([]string{"-output=report"}, args...))}
		err = driver.PProf(&driver.Options{Flagset: fs, Writer: &writer{b}, UI: u})
		out.Write(b.Bytes())
		status := "ok"
		if err != nil {
			status = strings.ReplaceAll(err.Error()+" "+strings.Join(u.Errors, "; "), "\n", " ")
		}
		fmt.Fprintf(out, "\x00END %s\n", status)
		out.Flush()
	})
}
