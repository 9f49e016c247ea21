// Command genprofiles writes lang/langdetect.bin, the data of the reference's language
// detector (Python langdetect 1.0.9, a port of Nakatani Shuyo's language-detection, Apache-2.0):
// the 55 n-gram language profiles and the normalisation tables of its messages.properties.
//
// The source is the langdetect package directory as Python installs it (profiles/ and
// utils/messages.properties), e.g. from Debian's package:
//
//	apt-get download python3-langdetect && dpkg -x python3-langdetect_1.0.9-1_all.deb pyld
//	go run ./lang/internal/genprofiles -src pyld/usr/lib/python3/dist-packages/langdetect
//
// The npm package langdetect@0.2.1 ships older profiles (no ca or cy, a smaller ko); it can be
// read with -profiles DIR (files named <lang>.json) but does not reproduce the reference.
//
// Output layout (uncompressed and fixed, so that the file is reproducible and package lang
// reads it in place without decoding it at start-up): "LDP2"; the number of languages, then each
// language in name order as its name and its three n_words counts; the number of n-grams and of
// (language, frequency) entries; the messages as key/value pairs, sorted by key. Up to here
// integers are unsigned varints and strings a varint length then UTF-8 bytes. Then three
// fixed-width little-endian blocks: the n-gram keys (uint64, each n-gram's runes packed 21 bits
// apiece, in ascending order), the entry offsets (uint32, one per n-gram plus the end) and the
// entries (one language-index byte and a uint32 frequency each).
package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

type profile struct {
	Name   string           `json:"name"`
	Freq   map[string]int64 `json:"freq"`
	NWords []int64          `json:"n_words"`
}

func main() {
	src := flag.String("src", "", "langdetect package directory (holds profiles/ and utils/messages.properties)")
	profDir := flag.String("profiles", "", "profiles directory (default SRC/profiles)")
	msgFile := flag.String("messages", "", "messages.properties (default SRC/utils/messages.properties)")
	out := flag.String("out", "lang/langdetect.bin", "output file")
	flag.Parse()
	if *profDir == "" {
		*profDir = filepath.Join(*src, "profiles")
	}
	if *msgFile == "" {
		*msgFile = filepath.Join(*src, "utils", "messages.properties")
	}
	if err := run(*profDir, *msgFile, *out); err != nil {
		log.Fatal(err)
	}
}

func run(profDir, msgFile, out string) error {
	profs, err := loadProfiles(profDir)
	if err != nil {
		return err
	}
	msgs, err := loadMessages(msgFile)
	if err != nil {
		return err
	}

	type entry struct {
		lang uint8
		freq uint32
	}
	grams := map[uint64][]entry{}
	ne := 0
	for i, p := range profs {
		for g, f := range p.Freq {
			// langdetect ignores anything but 1- to 3-grams when it loads a profile.
			rs := []rune(g)
			if len(rs) < 1 || len(rs) > 3 {
				continue
			}
			if f < 0 || f > math.MaxUint32 {
				return fmt.Errorf("genprofiles: %s: n-gram %q: frequency %d", p.Name, g, f)
			}
			var k uint64
			for _, r := range rs {
				if r == 0 || r >= 1<<21 {
					return fmt.Errorf("genprofiles: %s: n-gram %q cannot be packed", p.Name, g)
				}
				k = k<<21 | uint64(r)
			}
			grams[k] = append(grams[k], entry{uint8(i), uint32(f)})
			ne++
		}
	}
	keys := make([]uint64, 0, len(grams))
	for k := range grams {
		keys = append(keys, k)
	}
	slices.Sort(keys)

	var b bytes.Buffer
	b.WriteString("LDP2")
	putUint(&b, uint64(len(profs)))
	for _, p := range profs {
		putString(&b, p.Name)
		for _, n := range p.NWords {
			putUint(&b, uint64(n))
		}
	}
	putUint(&b, uint64(len(keys)))
	putUint(&b, uint64(ne))
	mkeys := make([]string, 0, len(msgs))
	for k := range msgs {
		mkeys = append(mkeys, k)
	}
	sort.Strings(mkeys)
	putUint(&b, uint64(len(mkeys)))
	for _, k := range mkeys {
		putString(&b, k)
		putString(&b, msgs[k])
	}
	for _, k := range keys {
		b.Write(binary.LittleEndian.AppendUint64(nil, k))
	}
	off := 0
	for _, k := range keys {
		b.Write(binary.LittleEndian.AppendUint32(nil, uint32(off)))
		off += len(grams[k])
	}
	b.Write(binary.LittleEndian.AppendUint32(nil, uint32(off)))
	for _, k := range keys {
		es := grams[k]
		sort.Slice(es, func(i, j int) bool { return es[i].lang < es[j].lang })
		for _, e := range es {
			b.WriteByte(e.lang)
			b.Write(binary.LittleEndian.AppendUint32(nil, e.freq))
		}
	}
	if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("genprofiles: %w", err)
	}
	log.Printf("%d languages, %d n-grams, %d entries, %d messages: %d bytes", len(profs), len(keys), ne, len(mkeys), b.Len())
	return nil
}

func loadProfiles(dir string) ([]profile, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("genprofiles: %w", err)
	}
	var profs []profile
	for _, e := range ents {
		if e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("genprofiles: %w", err)
		}
		var p profile
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, fmt.Errorf("genprofiles: %s: %w", e.Name(), err)
		}
		if p.Name == "" || len(p.NWords) != 3 {
			return nil, fmt.Errorf("genprofiles: %s: not a language profile", e.Name())
		}
		profs = append(profs, p)
	}
	if len(profs) < 2 || len(profs) > 255 {
		return nil, fmt.Errorf("genprofiles: %s: %d profiles", dir, len(profs))
	}
	sort.Slice(profs, func(i, j int) bool { return profs[i].Name < profs[j].Name })
	for i := 1; i < len(profs); i++ {
		if profs[i].Name == profs[i-1].Name {
			return nil, fmt.Errorf("genprofiles: duplicate profile %q", profs[i].Name)
		}
	}
	return profs, nil
}

// loadMessages reads a Java properties file the way langdetect does: key=value per line, values
// with \uXXXX escapes.
func loadMessages(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("genprofiles: %w", err)
	}
	defer f.Close()
	m := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		k, v, ok := strings.Cut(line, "=")
		if !ok || k == "" {
			continue
		}
		s, err := unescape(v)
		if err != nil {
			return nil, fmt.Errorf("genprofiles: %s: %s: %w", path, k, err)
		}
		m[k] = s
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("genprofiles: %s: %w", path, err)
	}
	return m, nil
}

func unescape(v string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] != '\\' {
			b.WriteByte(v[i])
			continue
		}
		if i+6 <= len(v) && v[i+1] == 'u' {
			n, err := strconv.ParseUint(v[i+2:i+6], 16, 32)
			if err != nil {
				return "", err
			}
			b.WriteRune(rune(n))
			i += 5
			continue
		}
		return "", fmt.Errorf("unsupported escape at %d", i)
	}
	return b.String(), nil
}

func putUint(b *bytes.Buffer, v uint64) {
	b.Write(binary.AppendUvarint(nil, v))
}

func putString(b *bytes.Buffer, s string) {
	putUint(b, uint64(len(s)))
	b.WriteString(s)
}
