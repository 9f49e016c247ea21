// Package text partitions plain text (text/plain and the source-code extensions the reference
// treats as text) the way the reference's partition_text does: paragraph grouping chosen from
// the share of blank lines, every paragraph classified by the §8 rules. The input is streamed,
// so memory stays bounded.
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
	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/formats/textenc"
)

// MIMEType is plain text's type, given to text no other format claims.
const MIMEType = "text/plain"

// sniffText: a .txt file is plain text whatever its content looks like to a byte sniffer (HTML
// or XML markup in a note), unless CSV or email headers claimed it first.
func sniffText(_ *contract.Document, _ []byte, ext string) (string, bool) {
	return MIMEType, ext == ".txt" || ext == ".text"
}

func init() {
	contract.RegisterFormat(contract.Format{Name: "txt", MIME: MIMEType,
		Aliases: []string{"text/yaml", "application/x-yaml", "application/yaml", "text/x-yaml"},
		Extensions: []string{".txt", ".text", ".c", ".cc", ".cpp", ".cs", ".cxx", ".go", ".java", ".js", ".log", ".php",
			".py", ".rb", ".swift", ".ts", ".yaml", ".yml"},
		PlainText: true, SniffText: sniffText, SniffOrder: 40,
		Partitioner: contract.Func(Partition)})
}

const (
	// sampleLines is how many leading lines decide between the two paragraph groupers.
	sampleLines = 2000
	// blankThreshold: below this share of blank lines every line is a paragraph.
	blankThreshold = 0.1
	// maxLine bounds one line so a file without newlines cannot take unbounded memory at once.
	maxLine = 64 << 20
)

// Partition reads doc as text in opts.Get(contract.KeyEncoding) (detected when empty) and emits its paragraphs.
func Partition(ctx context.Context, doc *contract.Document, opts contract.Options, emit contract.Emit) error {
	name := opts.Get(contract.KeyEncoding)
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
func PartitionText(ctx context.Context, s string, emit contract.Emit) error {
	return PartitionReader(ctx, strings.NewReader(s), emit)
}

// PartitionReader partitions UTF-8 text read from r.
func PartitionReader(ctx context.Context, r io.Reader, emit contract.Emit) error {
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
	emit    contract.Emit
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
	default:
		pieces := splitAtBullets(lines)
		if !allShort(pieces) {
			return p.piece(strings.Join(lines, " "))
		}
		for _, l := range pieces {
			if err := p.piece(l); err != nil {
				return err
			}
		}
	}
	return nil
}

// splitAtBullets splits lines the way the reference's line pattern does: at newlines and at
// every bullet character that is followed by something other than a bullet; the bullet itself
// becomes a piece of its own (later dropped as an empty bullet). So a short "Awa-Cuaiquer"
// paragraph yields "Awa" and "Cuaiquer".
func splitAtBullets(lines []string) []string {
	var out []string
	for _, l := range lines {
		start := 0
		rs := []rune(l)
		pos := 0 // byte offset of rs[i]
		for i, r := range rs {
			size := utf8.RuneLen(r)
			if classify.IsBulletRune(r) && i+1 < len(rs) && !classify.IsBulletRune(rs[i+1]) {
				out = append(out, l[start:pos], l[pos:pos+size])
				start = pos + size
			}
			pos += size
		}
		out = append(out, l[start:])
	}
	return out
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

// piece classifies and emits one paragraph.
func (p *paragrapher) piece(s string) error {
	s = strip(s)
	if s == "" {
		return nil
	}
	if isEmptyBullet(s) {
		return nil
	}
	typ, txt := classify.Text(s)
	return p.emit(element.Element{Type: typ, Text: txt})
}

// isEmptyBullet is the reference's check: a single bullet character and nothing else.
func isEmptyBullet(s string) bool {
	r, size := utf8.DecodeRuneInString(s)
	return size == len(s) && classify.IsBulletRune(r)
}
