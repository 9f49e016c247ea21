package json

import (
	"bufio"
	"bytes"
	stdjson "encoding/json"

	"github.com/quarrydocs/quarry/contract"
)

// The MIME types this package registers.
const (
	mimeJSON   = "application/json"
	mimeNDJSON = "application/x-ndjson"
)

// maxSniff bounds how much text is parsed to decide whether it is JSON.
const maxSniff = 64 << 20

// sniff tells JSON from NDJSON by parsing (registered for both types). A file named .json or
// .ndjson is always one of the two (a name ending in .ndjson wins when every line parses, and
// the partitioner reports a syntax error); other text is JSON only when it starts like JSON and
// parses.
func sniff(doc *contract.Document, head []byte, ext string) (string, bool) {
	own := ext == ".json" || ext == ".ndjson"
	byExt := mimeJSON
	if ext == ".ndjson" {
		byExt = mimeNDJSON
	}
	if !own {
		trimmed := bytes.TrimLeft(head, " \t\r\n\ufeff")
		if len(trimmed) == 0 || (trimmed[0] != '{' && trimmed[0] != '[') || doc.Size > maxSniff {
			return "", false
		}
	}
	if doc.Size > maxSniff {
		return byExt, true
	}
	data, err := doc.Bytes()
	if err != nil {
		return "", false
	}
	whole := stdjson.Valid(data)
	if whole && ext != ".ndjson" {
		return mimeJSON, true
	}
	if everyLineJSON(data) {
		return mimeNDJSON, true
	}
	if whole {
		return mimeJSON, true
	}
	if own {
		return byExt, true
	}
	return "", false
}

func everyLineJSON(data []byte) bool {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), len(data)+1)
	lines := 0
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if !stdjson.Valid(line) {
			return false
		}
		lines++
	}
	return lines > 0 && sc.Err() == nil
}
