// Package org partitions Emacs Org-mode documents the reference's way: pandoc converts the
// text to HTML, which the HTML partitioner turns into elements. pandoc (Debian package
// "pandoc") must be on PATH.
//
// One departure: the document's #+TITLE (and #+SUBTITLE), which pandoc moves into metadata
// that an HTML fragment does not show, is the first element, a Title, as Org's own exports put
// it at the top of the document; the reference loses it.
package org

import (
	"bufio"
	"bytes"
	"context"
	"strings"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/formats/html"
)

// MIMEType is the canonical type this package registers.
const MIMEType = "text/org"

func init() {
	contract.RegisterFormat(contract.Format{Name: "org", MIME: MIMEType, Extensions: []string{".org"},
		TrustExtension: true, Partitioner: contract.Func(Partition)})
}

// Partition decodes doc (opts.Get(contract.KeyEncoding) or detected), converts it with pandoc and emits the
// elements of the resulting HTML.
func Partition(ctx context.Context, doc *contract.Document, opts contract.Options, emit contract.Emit) error {
	data, err := doc.Bytes()
	if err != nil {
		return err
	}
	text, err := html.DecodeText(data, opts.Get(contract.KeyEncoding), false)
	if err != nil {
		return err
	}
	for _, t := range titles(text) {
		if err := emit(element.Element{Type: element.Title, Text: t}); err != nil {
			return err
		}
	}
	utf8Doc := contract.NewDocument(doc.Filename, text)
	return html.PartitionPandoc(ctx, utf8Doc, opts, "org", false, emit)
}

// titles returns the document's title and subtitle from its #+TITLE and #+SUBTITLE keyword
// lines (several lines of one keyword are joined, as Org does), title first.
func titles(text []byte) []string {
	var title, subtitle []string
	sc := bufio.NewScanner(bytes.NewReader(text))
	// Keyword lines are short; a longer line (past 1 MiB) ends the look-up, not the partition.
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, "#+") {
			continue
		}
		key, val, ok := strings.Cut(line[2:], ":")
		val = strings.TrimSpace(val)
		if !ok || val == "" {
			continue
		}
		switch strings.ToUpper(key) {
		case "TITLE":
			title = append(title, val)
		case "SUBTITLE":
			subtitle = append(subtitle, val)
		}
	}
	var out []string
	for _, parts := range [][]string{title, subtitle} {
		if len(parts) > 0 {
			out = append(out, strings.Join(parts, " "))
		}
	}
	return out
}
