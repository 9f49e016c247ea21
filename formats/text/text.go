// Package text partitions plain text (text/plain and the source-code extensions the reference
// treats as text) the way the reference's partition_text does: paragraph grouping chosen from
// the share of blank lines, paragraphs over 1500 characters split at sentence boundaries, and
// every paragraph classified by the §8 rules. The input is streamed, so memory stays bounded.
package text

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/quarrydocs/quarry/classify"
	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
	"github.com/quarrydocs/quarry/formats/textenc"
)

func init() {
	engine.RegisterFormat(engine.PartitionFunc(Partition), "text/plain")
}

const (
	// sampleLines is how many leading lines decide between the two paragraph groupers.
	sampleLines = 2000
	// blankThreshold: below this share of blank lines every line is a paragraph.
	blankThreshold = 0.1
	// maxPartition is the reference's max_partition: longer paragraphs are split.
	maxPartition = 1500
	// maxLine bounds one line so a file without newlines cannot take unbounded memory at once.
	maxLine = 64 << 20
)

// Partition reads doc as text in opts.Encoding (detected when empty) and emits its paragraphs.
func Partition(ctx context.Context, doc *engine.Document, opts *engine.Options, emit engine.Emit) error {
	name := opts.Encoding
	if name == "" {
		head := make([]byte, 64<<10)
		n, _ := doc.Content.ReadAt(head, 0)
		name = textenc.Detect(head[:n])
	}
	r, err := textenc.NewReader(doc.Reader(), name)
	if err != nil {
		return err
	}
	return PartitionReader(ctx, r, emit)
}

// PartitionText partitions an in-memory string (used by e-mail bodies and other formats).
func PartitionText(ctx context.Context, s string, emit engine.Emit) error {
	return PartitionReader(ctx, strings.NewReader(s), emit)
}

// PartitionReader partitions UTF-8 text read from r.
func PartitionReader(ctx context.Context, r io.Reader, emit engine.Emit) error {
	lr := &lineReader{r: bufio.NewReaderSize(r, 256<<10)}
	// Decide the grouper from the first lines, then replay them.
	var head []string
	blank := 0
	for len(head) < sampleLines {
		line, ok, err := lr.next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		head = append(head, line)
		if isBlank(line) {
			blank++
		}
	}
	count := len(head)
	if count < sampleLines && !lr.endedWithoutNewline {
		// The reference splits after every newline, so a final newline yields one more (empty)
		// line that counts as blank.
		count++
		blank++
	}
	perLine := count == 0 || float64(blank)/float64(count) < blankThreshold
	p := &paragrapher{ctx: ctx, emit: emit, perLine: perLine}
	for _, line := range head {
		if err := p.line(line); err != nil {
			return err
		}
	}
	for {
		line, ok, err := lr.next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if err := p.line(line); err != nil {
			return err
		}
	}
	return p.endParagraph()
}

type lineReader struct {
	r                   *bufio.Reader
	endedWithoutNewline bool
}

// next returns the next line without its newline.
func (l *lineReader) next() (string, bool, error) {
	var sb strings.Builder
	for {
		chunk, err := l.r.ReadSlice('\n')
		sb.Write(chunk)
		if sb.Len() > maxLine {
			return "", false, fmt.Errorf("text: a line is longer than %d bytes", maxLine)
		}
		switch err {
		case nil:
			s := sb.String()
			return s[:len(s)-1], true, nil
		case bufio.ErrBufferFull:
			continue
		case io.EOF:
			if sb.Len() == 0 {
				return "", false, nil
			}
			l.endedWithoutNewline = true
			return sb.String(), true, nil
		default:
			return "", false, fmt.Errorf("text: read: %w", err)
		}
	}
}

// isSpace matches Python's str.isspace, which also counts the ASCII separators 0x1c–0x1f.
func isSpace(r rune) bool { return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f) }

func isBlank(s string) bool { return strings.TrimFunc(s, isSpace) == "" }

func strip(s string) string { return strings.TrimFunc(s, isSpace) }

// paragrapher groups lines into paragraphs and emits their elements.
type paragrapher struct {
	ctx     context.Context
	emit    engine.Emit
	perLine bool
	lines   []string // lines of the current blank-line-separated paragraph
}

func (p *paragrapher) line(line string) error {
	if p.perLine {
		if isBlank(line) {
			return nil
		}
		return p.piece(line)
	}
	if isBlank(line) {
		return p.endParagraph()
	}
	p.lines = append(p.lines, strip(line))
	return nil
}

// endParagraph applies the reference's group_broken_paragraphs to the collected lines.
func (p *paragrapher) endParagraph() error {
	lines := p.lines
	p.lines = p.lines[:0]
	if len(lines) == 0 {
		return nil
	}
	if err := p.ctx.Err(); err != nil {
		return err
	}
	joined := strings.Join(lines, "\n")
	switch {
	case startsWithBullet(joined) || startsWithEBullet(joined):
		for _, b := range groupBullets(lines) {
			if err := p.piece(b); err != nil {
				return err
			}
		}
	case allShort(lines):
		for _, l := range lines {
			if err := p.piece(l); err != nil {
				return err
			}
		}
	default:
		return p.piece(strings.Join(lines, " "))
	}
	return nil
}

func allShort(lines []string) bool {
	for _, l := range lines {
		if len(strings.Split(strip(l), " ")) >= 5 {
			return false
		}
	}
	return true
}

func startsWithBullet(s string) bool {
	r, size := utf8.DecodeRuneInString(s)
	if !classify.IsBulletRune(r) {
		return false
	}
	next, _ := utf8.DecodeRuneInString(s[size:])
	return !classify.IsBulletRune(next)
}

// startsWithEBullet is the reference's allowance for OCR turning a bullet into a lone "e".
func startsWithEBullet(s string) bool {
	if !strings.HasPrefix(s, "e") || len(s) < 2 {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[1:])
	return isSpace(r)
}

// groupBullets turns lone "e" bullets into "·", then splits the paragraph before every bullet
// character not preceded by another, joining the lines of each piece with spaces. Like the
// reference it splits at any bullet character, hyphens inside words included.
func groupBullets(lines []string) []string {
	for i, l := range lines {
		if startsWithEBullet(l) {
			lines[i] = "·" + l[1:]
		}
	}
	text := strip(strings.Join(lines, " "))
	var out []string
	start := 0
	prev := rune(-1)
	for i, r := range text {
		if i > 0 && classify.IsBulletRune(r) && !classify.IsBulletRune(prev) {
			out = append(out, text[start:i])
			start = i
		}
		prev = r
	}
	out = append(out, text[start:])
	return out
}

// piece splits one paragraph to fit maxPartition and emits the parts.
func (p *paragrapher) piece(s string) error {
	s = strip(s)
	if s == "" {
		return nil
	}
	for _, part := range fitMax(s) {
		part = strip(part)
		if part == "" || classify.IsEmptyBullet(part) {
			continue
		}
		typ, txt := classify.Text(part)
		if err := p.emit(element.Element{Type: typ, Text: txt}); err != nil {
			return err
		}
	}
	return nil
}

func runeLen(s string) int { return utf8.RuneCountInString(s) }

// fitMax is the reference's split_content_to_fit_max: sentences are packed into parts of at
// most maxPartition characters; a longer sentence is cut between words.
func fitMax(s string) []string {
	if runeLen(s) <= maxPartition {
		return []string{s}
	}
	var parts []string
	tmp := ""
	for _, sentence := range classify.Sentences(s) {
		if runeLen(sentence) > maxPartition {
			if tmp != "" {
				parts = append(parts, tmp)
				tmp = ""
			}
			segs := splitSizeN(sentence, maxPartition)
			parts = append(parts, segs[:len(segs)-1]...)
			tmp = segs[len(segs)-1]
			continue
		}
		switch {
		case runeLen(tmp)+1+runeLen(sentence) > maxPartition:
			parts = append(parts, tmp)
			tmp = sentence
		case tmp == "":
			tmp = sentence
		default:
			tmp = strip(tmp + " " + sentence)
		}
	}
	if tmp != "" {
		parts = append(parts, tmp)
	}
	return parts
}

// splitSizeN cuts s into pieces of at most n characters without breaking words: in half at
// the space nearest the middle when s is shorter than 2n, else by greedy wrapping.
func splitSizeN(s string, n int) []string {
	rs := []rune(s)
	if len(rs) < 2*n {
		mid := len(rs) / 2
		for i := 0; i < len(rs)/2; i++ {
			if rs[mid+i] == ' ' {
				mid += i
				break
			}
			if rs[mid-i] == ' ' {
				mid -= i
				break
			}
		}
		return []string{strings.TrimRightFunc(string(rs[:mid]), isSpace), strings.TrimLeftFunc(string(rs[mid:]), isSpace)}
	}
	var out []string
	var line []rune
	for _, w := range strings.Fields(s) {
		wr := []rune(w)
		for len(wr) > n { // a word longer than the width is broken
			if len(line) > 0 {
				out = append(out, string(line))
				line = nil
			}
			out = append(out, string(wr[:n]))
			wr = wr[n:]
		}
		switch {
		case len(line) == 0:
			line = wr
		case len(line)+1+len(wr) <= n:
			line = append(append(line, ' '), wr...)
		default:
			out = append(out, string(line))
			line = wr
		}
	}
	if len(line) > 0 {
		out = append(out, string(line))
	}
	return out
}
