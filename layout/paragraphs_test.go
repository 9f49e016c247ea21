package layout

import (
	"strings"
	"testing"
)

// Paragraph breaks with no blank line between paragraphs, each class on its own: the only
// signal is the page's line pitch, the last line's end, or the next line's indent.
func TestParagraphBreaks(t *testing.T) {
	full := "a line of body text that runs all the way across its column to"
	long := "internationalization and localization of the text as it was set"
	cases := []struct {
		name, content string
		want          []string
	}{{
		// Two-line paragraphs whose last lines run full, 3 pt apart over a 12 pt pitch: the
		// block's one step is the page's pitch, the next is longer.
		"two full lines, spacing over the pitch",
		paragraph(72, 700, full, full+" a") + paragraph(72, 673, full, full+" b") + paragraph(72, 646, full, full+" c"),
		[]string{full + " " + full + " a", full + " " + full + " b", full + " " + full + " c"},
	}, {
		// A sentence ending in a closing quote, short of the right edge.
		"closing quote",
		paragraph(72, 700, full, "the end of it.\x94", full, "the end again."),
		[]string{full + " the end of it.”", full + " the end again."},
	}, {
		// A colon ending a short line: what follows is another paragraph (a code line, an
		// instruction's text).
		"colon",
		paragraph(72, 700, full, "the following:", full, "the end again."),
		[]string{full + " the following:", full + " the end again."},
	}, {
		// A one-line paragraph, then a paragraph whose first line is indented.
		"one line, then an indent",
		paragraph(72, 700, "One line paragraph here.") + paragraph(84, 688, full) + paragraph(72, 676, "last."),
		[]string{"One line paragraph here.", full + " last."},
	}, {
		// Not a break: a line ending in an abbreviation short of the edge by less than the
		// next line's first word, and a block whose later lines hang indented under a full
		// first line.
		"no room for the next word",
		paragraph(72, 700, "a line of body text that runs all the way across it, i.e.", long, "to its end."),
		[]string{"a line of body text that runs all the way across it, i.e. " + long + " to its end."},
	}, {
		"hanging indent",
		paragraph(72, 700, full) + paragraph(84, 688, "the end of it.", "and a third line."),
		[]string{full + " the end of it. and a third line."},
	}}
	for _, c := range cases {
		var got []string
		for _, e := range layoutBytes(t, docOf(c.content).Bytes()) {
			got = append(got, e.Text)
		}
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s: got\n%s\nwant\n%s", c.name, strings.Join(got, "\n"), strings.Join(c.want, "\n"))
		}
	}
}
