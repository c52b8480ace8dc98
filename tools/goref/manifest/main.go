// manifest: google/pprof's view of each profile file, one JSON object per line,
// with the columns of a corpus MANIFEST.tsv that google/pprof can tell: its
// parse verdict, table sizes, sample and period types, which kinds of labels the
// samples carry and whether the locations are symbolized. The tests use it to
// describe the profiles they make themselves with an oracle, not with pprofcore.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"../common"
)

type row struct {
	File        string `json:"file"`
	Parses      string `json:"parses_with_google_pprof"`
	Samples     int    `json:"n_samples"`
	Locations   int    `json:"n_locations"`
	Functions   int    `json:"n_functions"`
	Mappings    int    `json:"n_mappings"`
	SampleTypes string `json:"sample_types"`
	PeriodType  string `json:"period_type"`
	Labels      string `json:"labels"`
	Symbolized  string `json:"symbolized"`
}

func describe(path string) row {
	r := row{File: path}
	p, err := common.ParseFile(path)
	if err != nil {
		r.Parses = "no: " + err.Error()
		return r
	}
	r.Parses = "yes"
	r.Samples, r.Locations, r.Functions, r.Mappings = len(p.Sample), len(p.Location), len(p.Function), len(p.Mapping)
	types := make([]string, len(p.SampleType))
	for i, st := range p.SampleType {
		types[i] = st.Type + "/" + st.Unit
	}
	r.SampleTypes = strings.Join(types, ",")
	r.PeriodType = "/"
	if p.PeriodType != nil {
		r.PeriodType = p.PeriodType.Type + "/" + p.PeriodType.Unit
	}
	str, num := false, false
	for _, s := range p.Sample {
		str = str || len(s.Label) > 0
		num = num || len(s.NumLabel) > 0
	}
	switch {
	case str && num:
		r.Labels = "both"
	case str:
		r.Labels = "str"
	case num:
		r.Labels = "num"
	default:
		r.Labels = "none"
	}
	withLines := 0
	for _, l := range p.Location {
		if len(l.Line) > 0 {
			withLines++
		}
	}
	switch {
	case len(p.Location) > 0 && withLines == len(p.Location):
		r.Symbolized = "yes"
	case withLines > 0:
		r.Symbolized = "partial"
	default:
		r.Symbolized = "no"
	}
	return r
}

func main() {
	enc := json.NewEncoder(os.Stdout)
	for _, path := range os.Args[1:] {
		if err := enc.Encode(describe(path)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}
