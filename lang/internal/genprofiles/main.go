// Command genprofiles writes lang/langdetect.bin.gz, the data of the reference's language
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
// Output layout (gzip, fixed header, so the file is reproducible): "LDP1"; the languages in
// name order, each as name and the three n_words counts; the n-grams in byte order, each with
// its (language index, frequency) pairs; the messages as key/value pairs. Integers are
// unsigned varints, strings a varint length then UTF-8 bytes.
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
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
	out := flag.String("out", "lang/langdetect.bin.gz", "output file")
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

	var b bytes.Buffer
	b.WriteString("LDP1")
	putUint(&b, uint64(len(profs)))
	grams := map[string][][2]uint64{}
	for i, p := range profs {
		putString(&b, p.Name)
		for _, n := range p.NWords {
			putUint(&b, uint64(n))
		}
		for g, f := range p.Freq {
			// langdetect ignores anything but 1- to 3-grams when it loads a profile.
			if n := utf8.RuneCountInString(g); n < 1 || n > 3 {
				continue
			}
			grams[g] = append(grams[g], [2]uint64{uint64(i), uint64(f)})
		}
	}
	keys := make([]string, 0, len(grams))
	for g := range grams {
		keys = append(keys, g)
	}
	sort.Strings(keys)
	putUint(&b, uint64(len(keys)))
	for _, g := range keys {
		putString(&b, g)
		putUint(&b, uint64(len(grams[g])))
		for _, e := range grams[g] {
			putUint(&b, e[0])
			putUint(&b, e[1])
		}
	}
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

	var z bytes.Buffer
	zw, err := gzip.NewWriterLevel(&z, gzip.BestCompression)
	if err != nil {
		return fmt.Errorf("genprofiles: %w", err)
	}
	if _, err := zw.Write(b.Bytes()); err != nil {
		return fmt.Errorf("genprofiles: compress: %w", err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("genprofiles: compress: %w", err)
	}
	if err := os.WriteFile(out, z.Bytes(), 0o644); err != nil {
		return fmt.Errorf("genprofiles: %w", err)
	}
	log.Printf("%d languages, %d n-grams, %d messages: %d bytes", len(profs), len(keys), len(mkeys), z.Len())
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
