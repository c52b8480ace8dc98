// Package common holds what the google/pprof reference programs of tools/goref
// share: reading a profile file, pprof's default sample type, the stdin loops
// of the long-lived helpers and a driver.UI that keeps what pprof prints.
//
// The programs import it by relative path ("../common"), which Go allows in
// GOPATH mode (GO111MODULE=off, as tests/helpers/testenv.py builds them).
package common

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/google/pprof/profile"
)

// ParseFile is profile.Parse of the file at path.
func ParseFile(path string) (*profile.Profile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return profile.Parse(f)
}

// MustParseFile is ParseFile that exits with status 1, naming the file, on an error.
func MustParseFile(path string) *profile.Profile {
	p, err := ParseFile(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, path, err)
		os.Exit(1)
	}
	return p
}

// DefaultSampleIndex is the sample type pprof reports by default: the one
// named by default_sample_type, else the last.
func DefaultSampleIndex(p *profile.Profile) int {
	idx := len(p.SampleType) - 1
	if p.DefaultSampleType != "" {
		for j, st := range p.SampleType {
			if st.Type == p.DefaultSampleType {
				idx = j
			}
		}
	}
	return idx
}

// PrintCount ends a benchmark baseline: the count of what it made on stdout,
// or, when timing, the seconds since start on stdout (the benchmark reads the
// last stdout line) and the count on stderr.
func PrintCount(timing bool, start time.Time, count int) {
	if timing {
		fmt.Fprintln(os.Stderr, count)
		fmt.Printf("%.6f\n", time.Since(start).Seconds())
		return
	}
	fmt.Println(count)
}

// EachLine calls fn with each line of stdin (up to 16 MiB a line).
func EachLine(fn func(line []byte)) {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<24)
	for in.Scan() {
		fn(in.Bytes())
	}
}

// EachRequest calls fn with each stdin line read as a JSON array of pprof
// arguments, or with the error of a line that is not one.
func EachRequest(fn func(args []string, err error)) {
	EachLine(func(line []byte) {
		var args []string
		err := json.Unmarshal(line, &args)
		fn(args, err)
	})
}

// UI is a driver.UI for one request that reads nothing, opens no browser and
// keeps what pprof prints.
type UI struct {
	Printed []string // Print and PrintErr, in order, each trimmed
	Errors  []string // PrintErr alone, as printed
}

func (u *UI) ReadLine(string) (string, error) { return "", io.EOF }
func (u *UI) Print(a ...interface{}) {
	u.Printed = append(u.Printed, strings.TrimSpace(fmt.Sprint(a...)))
}
func (u *UI) PrintErr(a ...interface{}) {
	u.Printed = append(u.Printed, strings.TrimSpace(fmt.Sprint(a...)))
	u.Errors = append(u.Errors, fmt.Sprint(a...))
}
func (u *UI) IsTerminal() bool                    { return false }
func (u *UI) WantBrowser() bool                   { return false }
func (u *UI) SetAutoComplete(func(string) string) {}

// Flags is the part of a driver.FlagSet both driver helpers share: a
// flag.FlagSet that parses one request's arguments and prints nothing. A
// helper embeds it and adds StringList (and any defaults of its own).
type Flags struct {
	*flag.FlagSet
	argv []string
}

// NewFlags is the flag set for one request with arguments argv.
func NewFlags(argv []string) *Flags {
	f := &Flags{flag.NewFlagSet("pprof", flag.ContinueOnError), argv}
	f.SetOutput(io.Discard)
	return f
}

func (f *Flags) ExtraUsage() string   { return "" }
func (f *Flags) AddExtraUsage(string) {}
func (f *Flags) Parse(usage func()) []string {
	f.Usage = usage
	if err := f.FlagSet.Parse(f.argv); err != nil {
		return nil
	}
	return f.Args()
}
