package host

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Prefix is the file-name prefix of a plugin executable: quarry-plugin-<name>.
const Prefix = "quarry-plugin-"

// ChecksumSuffix names the checksum file beside a plugin: quarry-plugin-<name>.sha256, in the
// sha256sum(1) format ("<hex>  <file>") or just the hex digest.
const ChecksumSuffix = ".sha256"

// Discover lists the plugins in the configured directories. A plugin without a checksum file,
// or whose checksum does not match, is reported in the error and skipped; the others are
// returned. The first directory wins when two hold the same name.
func (h *Host) Discover() ([]Spec, error) { return h.discover(true) }

// discover lists the plugins; with verify unset a plugin's checksum is only read, and checked
// when it is first launched.
func (h *Host) discover(verify bool) ([]Spec, error) {
	var specs []Spec
	var errs []error
	seen := map[string]bool{}
	for _, dir := range h.cfg.Dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			errs = append(errs, fmt.Errorf("plugin dir %s: %w", dir, err))
			continue
		}
		if fi, err := os.Stat(dir); err == nil {
			if why := writableByOthers(fi); why != "" {
				errs = append(errs, fmt.Errorf("plugin dir %s %s: its plugins are not loaded (chmod go-w)", dir, why))
				continue
			}
		}
		for _, e := range entries {
			name := e.Name()
			if !strings.HasPrefix(name, Prefix) || strings.HasSuffix(name, ChecksumSuffix) || e.IsDir() {
				continue
			}
			short := strings.TrimPrefix(name, Prefix)
			if short == "" || seen[short] {
				continue
			}
			path := filepath.Join(dir, name)
			fi, err := os.Stat(path)
			if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
				continue
			}
			if why := writableByOthers(fi); why != "" {
				errs = append(errs, fmt.Errorf("plugin %s: %s %s: not loaded (chmod go-w)", short, path, why))
				continue
			}
			sum, err := readChecksum(path + ChecksumSuffix)
			if err != nil {
				errs = append(errs, fmt.Errorf("plugin %s: %w (write one with: quarry plugin checksum %s)", short, err, path))
				continue
			}
			spec := Spec{Name: short, Path: path, SHA256: sum}
			if verify {
				before, _ := statStamp(path)
				if err := verifyChecksum(path, sum); err != nil {
					errs = append(errs, fmt.Errorf("plugin %s: %w", short, err))
					continue
				}
				if after, ok := statStamp(path); ok && after == before {
					spec.checked = after // unchanged while it was hashed: the first launch need not hash again
				}
			}
			seen[short] = true
			specs = append(specs, spec)
		}
	}
	sort.Slice(specs, func(i, j int) bool { return specs[i].Name < specs[j].Name })
	return specs, errors.Join(errs...)
}

// Load discovers the plugins, adds them and registers their strategies with the engine. A
// plugin whose Describe answer is cached for the checksum it is installed with is registered
// without starting it, and without hashing it either: its binary is verified against that
// checksum before its first launch, as every launch is, so a plugin a run does not use costs
// it nothing. Any other plugin is started (and verified) once to ask what it serves.
func (h *Host) Load(ctx context.Context) error {
	specs, derr := h.discover(false)
	var errs []error
	if derr != nil {
		errs = append(errs, derr)
	}
	for _, s := range specs {
		if _, err := h.Add(s); err != nil {
			errs = append(errs, err)
		}
	}
	if err := h.Register(ctx); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func readChecksum(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("no checksum file: %w", err)
	}
	defer f.Close()
	line, err := bufio.NewReader(io.LimitReader(f, 4096)).ReadString('\n')
	if err != nil && err != io.EOF {
		return "", fmt.Errorf("read checksum: %w", err)
	}
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return "", fmt.Errorf("empty checksum file %s", path)
	}
	sum := strings.ToLower(fields[0])
	if b, err := hex.DecodeString(sum); err != nil || len(b) != sha256.Size {
		return "", fmt.Errorf("bad checksum in %s", path)
	}
	return sum, nil
}

// FileSHA256 returns the hex SHA-256 of a file.
func FileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("hash %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// WriteChecksum writes path's checksum file in sha256sum format.
func WriteChecksum(path string) (string, error) {
	sum, err := FileSHA256(path)
	if err != nil {
		return "", err
	}
	line := sum + "  " + filepath.Base(path) + "\n"
	if err := os.WriteFile(path+ChecksumSuffix, []byte(line), 0o644); err != nil {
		return "", fmt.Errorf("write checksum: %w", err)
	}
	return sum, nil
}

func verifyChecksum(path, want string) error {
	got, err := FileSHA256(path)
	if err != nil {
		return fmt.Errorf("checksum: %w", err)
	}
	if !strings.EqualFold(got, want) {
		return fmt.Errorf("checksum mismatch for %s: file has %s, expected %s; refusing to launch", path, got, want)
	}
	return nil
}
