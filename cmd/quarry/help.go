package main

import (
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/quarrydocs/quarry/api/partitionapi"
)

const usage = `Quarry turns documents into typed elements (the Unstructured partition API's output).

Usage:
  quarry partition [flags] FILE|FOLDER|- …   partition documents; elements as JSON on stdout
  quarry serve [flags]                        serve the API, the platform and the web UI (127.0.0.1:8000)
  quarry worker [flags]                       run platform job workers only (shared --database)
  quarry eval OUTPUT.json GOLD                score an output against a golden output (.json) or text (.txt)
  quarry plugin list|serve|checksum|install   manage strategy plugins
  quarry version                              print the version
  quarry help COMMAND                         show a command's flags and examples

Examples:
  quarry partition report.pdf > report.json
  quarry partition --output-dir out/ --recursive docs/
  quarry serve --addr 127.0.0.1:9000
`

// version is set at build time (-ldflags "-X main.version=…"); otherwise it comes from the
// module's build information.
var version = ""

func versionString() string {
	v := version
	info, ok := debug.ReadBuildInfo()
	if v == "" && ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		v = info.Main.Version
	}
	var rev, dirty string
	if ok {
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					dirty = "+dirty"
				}
			}
		}
	}
	if v == "" {
		v = "devel"
	}
	out := "quarry " + v
	if rev != "" && !strings.Contains(v, rev[:min(len(rev), 7)]) {
		out += " (" + rev[:min(len(rev), 12)] + dirty + ")"
	}
	if ok {
		out += " " + info.GoVersion
	}
	return out
}

// paramGroups are the help's headings for the partition parameters, in order; each parameter
// falls under its partitionapi.Group, one with another group under "Other".
var paramGroups = []partitionapi.Group{partitionapi.Input, partitionapi.Strategy, partitionapi.Chunking, partitionapi.Output}

// cliDefaults are defaults the API schema does not state or that read better on a command line;
// the others come from partitionapi's Param.Default.
var cliDefaults = map[string]string{
	"output_format": "json", "new_after_n_chars": "max_characters",
	"combine_under_n_chars": "max_characters", "similarity_threshold": "0.5",
	"languages": "detected", "encoding": "detected",
}

// paramDefault is the default worth showing for p: a false boolean goes without saying.
func paramDefault(p partitionapi.Param) (string, bool) {
	if d, ok := cliDefaults[p.Name]; ok {
		return d, true
	}
	d, ok := p.Default()
	if !ok || d == false {
		return "", false
	}
	return fmt.Sprint(d), true
}

// cliFlags are the command line's own flags, shown with the group they belong to.
var cliFlags = map[string][][2]string{
	"Input": {
		{"FILE … | FOLDER … | -", "documents to partition; a folder's files (not its subfolders'), - reads standard input"},
		{"-r, --recursive", "also partition the files in subfolders of a FOLDER"},
	},
	"Strategy (PDFs and images)": {
		{"--param NAME=VALUE", "a strategy's own parameter, repeatable (e.g. vlm_dry_run=true)"},
	},
	"Output": {
		{"-o, --output FILE", "write to FILE instead of standard output (replaced only when done)"},
		{"--output-dir DIR", "one file per input in DIR, named after it: report.pdf → DIR/report.pdf.json"},
		{"--csv-escape-formulas", "CSV: prefix ' to cells beginning with = + - @ tab or CR (spreadsheet formulas); off: the reference's bytes"},
		{"-q, --quiet", "no progress, no strategy lines, no warnings; failures and the exit status still tell"},
		{"-v, --verbose", "debug log on standard error"},
	},
}

func partitionHelp(w io.Writer) {
	placed := map[string]bool{}
	var b strings.Builder
	b.WriteString(`Usage: quarry partition [flags] FILE|FOLDER|- …

Partitions each document into typed elements with the Unstructured API's parameters (flags carry
the API's form-field names; dashes work too: --output-format). Lists take comma-separated values
or repeat the flag. A boolean flag alone means true; --name=false turns off one whose default is
true (true/false, 1/0, yes/no, on/off). Flags may come before or after the files.

Output: one input gives a JSON array of elements. Several inputs written to one stream give
JSON Lines, one document per line: {"source": "PATH", "elements": [...]}. --output_format=jsonl gives
one element per line (streams big documents); csv gives one table with one header; text gives the
elements' text separated by blank lines; markdown gives headings, lists, pipe tables and images
(page headers, footers and numbers left out). A failing document is reported on standard error and
skipped; the others go on; the exit status is 1 if any failed, 2 for a bad command line, 130 when
interrupted. Outputs are written whole or not at all.

On a terminal, standard error shows pages done with rate and time left, and the strategy chosen
for each PDF or image and why.
`)
	for _, g := range paramGroups {
		fmt.Fprintf(&b, "\n%s:\n", g)
		for _, f := range cliFlags[string(g)] {
			writeFlagLine(&b, f[0], f[1])
		}
		for _, p := range partitionapi.All() {
			if p.Group == g {
				placed[p.Name] = true
				writeFlagLine(&b, flagSyntax(p), paramHelp(p))
			}
		}
	}
	var other []partitionapi.Param
	for _, p := range partitionapi.All() {
		if !placed[p.Name] && p.Group != partitionapi.Ignored {
			other = append(other, p)
		}
	}
	if len(other) > 0 {
		b.WriteString("\nOther:\n")
		for _, p := range other {
			writeFlagLine(&b, flagSyntax(p), paramHelp(p))
		}
	}
	b.WriteString(`
Examples:
  quarry partition report.pdf > report.json
  quarry partition --strategy fast --output_format csv report.pdf -o report.csv
  quarry partition --recursive --output-dir out/ docs/          # out/<name>.json for each file
  quarry partition a.docx b.pdf | jq -c '.source, (.elements | length)'
  cat notes.txt | quarry partition - --languages eng
  quarry partition --chunking_strategy by_title --max_characters 1500 handbook.pdf
`)
	io.WriteString(w, b.String())
}

func flagSyntax(p partitionapi.Param) string {
	switch {
	case p.Kind.Bool():
		return "--" + p.Name
	case p.Kind == partitionapi.Int:
		return "--" + p.Name + " N"
	case p.Kind == partitionapi.Float:
		return "--" + p.Name + " X"
	case p.Kind == partitionapi.List:
		return "--" + p.Name + " A,B"
	}
	return "--" + p.Name + " VALUE"
}

func paramHelp(p partitionapi.Param) string {
	h := p.Help
	if p.Name == "output_format" {
		h = "json, jsonl, csv, text or markdown (application/json and text/csv work too)"
	} else if missing := unnamedChoices(h, p.Choices); len(missing) == len(p.Choices) && len(missing) > 0 {
		h += ": " + strings.Join(missing, ", ")
	} else if len(missing) > 0 {
		// The help names the built-in choices already (strategy); add what plugins brought.
		h += " (also installed: " + strings.Join(missing, ", ") + ")"
	}
	if d, ok := paramDefault(p); ok {
		h += " (default " + d + ")"
	}
	return h
}

// unnamedChoices are the choices the help text does not name already.
func unnamedChoices(help string, choices []string) []string {
	words := map[string]bool{}
	for _, w := range strings.FieldsFunc(help, func(r rune) bool { return r == ' ' || r == ',' || r == '(' || r == ')' }) {
		words[w] = true
	}
	var out []string
	for _, c := range choices {
		if !words[c] {
			out = append(out, c)
		}
	}
	return out
}

func writeFlagLine(b *strings.Builder, syntax, help string) {
	const col = 34
	if len([]rune(syntax)) >= col-2 {
		fmt.Fprintf(b, "  %s\n  %s%s\n", syntax, strings.Repeat(" ", col), help)
		return
	}
	fmt.Fprintf(b, "  %-*s%s\n", col, syntax, help)
}
