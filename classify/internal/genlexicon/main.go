// Command genlexicon builds the tagger lexicon embedded by package classify from the MIT
// licensed npm package "brill" (Titus Wormer's packaging of the lexicon of Eric Brill's
// part-of-speech tagger). Run it from the repository root:
//
//	npm pack brill@3.1.0 && tar xzf brill-3.1.0.tgz
//	go run ./classify/internal/genlexicon -brill package/lib -out classify/lexicon.txt
//
// The output lists one word per line followed by its Penn Treebank tags, most likely first,
// sorted by word so that the file is reproducible byte for byte.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

func main() {
	dir := flag.String("brill", "package/lib", "directory holding the brill package's words.js and tags.js")
	out := flag.String("out", "classify/lexicon.txt", "output file")
	flag.Parse()
	if err := run(*dir, *out); err != nil {
		log.Fatal(err)
	}
}

func run(dir, out string) error {
	tags, err := readTags(filepath.Join(dir, "tags.js"))
	if err != nil {
		return err
	}
	words, err := readWords(filepath.Join(dir, "words.js"), tags)
	if err != nil {
		return err
	}
	keys := make([]string, 0, len(words))
	for w := range words {
		keys = append(keys, w)
	}
	sort.Strings(keys)
	f, err := os.Create(out)
	if err != nil {
		return fmt.Errorf("genlexicon: %w", err)
	}
	defer f.Close()
	bw := bufio.NewWriter(f)
	for _, w := range keys {
		fmt.Fprintf(bw, "%s %s\n", w, strings.Join(words[w], " "))
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("genlexicon: write: %w", err)
	}
	return f.Close()
}

// readTags reads the tag table: one quoted string per line inside the array literal.
func readTags(path string) ([]string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("genlexicon: %w", err)
	}
	var tags []string
	in := false
	for _, line := range strings.Split(string(raw), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "export const tags") {
			in = true
			continue
		}
		if !in || line == "]" || line == "" || strings.HasPrefix(line, "/") || strings.HasPrefix(line, "*") {
			continue
		}
		s, _, ok := parseQuoted(strings.TrimSuffix(line, ","))
		if !ok {
			return nil, fmt.Errorf("genlexicon: tags: bad line %q", line)
		}
		tags = append(tags, s)
	}
	return tags, nil
}

// readWords reads `key: index` or `key: [i, j, …]` lines; keys are bare or single-quoted.
func readWords(path string, tags []string) (map[string][]string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("genlexicon: %w", err)
	}
	words := map[string][]string{}
	for _, line := range strings.Split(string(raw), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "/") || strings.HasPrefix(line, "*") ||
			strings.HasPrefix(line, "export") || line == "}" {
			continue
		}
		var key, rest string
		if line[0] == '\'' || line[0] == '"' {
			k, r, ok := parseQuoted(line)
			if !ok {
				return nil, fmt.Errorf("genlexicon: words: bad key in %q", line)
			}
			key, rest = k, r
		} else {
			i := strings.Index(line, ":")
			if i < 0 {
				return nil, fmt.Errorf("genlexicon: words: bad line %q", line)
			}
			key, rest = line[:i], line[i:]
		}
		rest = strings.TrimSuffix(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(rest), ":")), ",")
		rest = strings.Trim(rest, "[]")
		var list []string
		seen := map[string]bool{}
		for _, f := range strings.Split(rest, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				return nil, fmt.Errorf("genlexicon: words: bad index in %q", line)
			}
			if n < 0 || n >= len(tags) {
				continue // the package itself has a few dangling indices (it yields undefined)
			}
			// Entries such as "JJ|IN" record an ambiguity the lexicon's authors could not
			// resolve; each part counts as a possible tag.
			for _, t := range strings.Split(tags[n], "|") {
				if !seen[t] {
					seen[t] = true
					list = append(list, t)
				}
			}
		}
		if strings.ContainsAny(key, " \n") {
			continue
		}
		words[key] = list
	}
	return words, nil
}

// parseQuoted parses a JavaScript single- or double-quoted string at the start of s and
// returns it with the remainder.
func parseQuoted(s string) (string, string, bool) {
	if s == "" || (s[0] != '\'' && s[0] != '"') {
		return "", "", false
	}
	q := s[0]
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
		case c == q:
			return b.String(), s[i+1:], true
		default:
			b.WriteByte(c)
		}
	}
	return "", "", false
}
