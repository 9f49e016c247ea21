// Package secret encrypts connector secrets at rest with AES-256-GCM and masks them in API
// answers, as the reference platform does (platform.md §1.11).
package secret

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Mask is what the API returns in place of a stored secret.
const Mask = "**********"

// prefix marks an encrypted value so a stored config can be told from a plain one.
const prefix = "enc:v1:"

// KeySize is the AES-256 key length in bytes.
const KeySize = 32

// Box encrypts and decrypts with one key.
type Box struct{ aead cipher.AEAD }

// New returns a Box for a 32-byte key.
func New(key []byte) (*Box, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("secret: key must be %d bytes, got %d", KeySize, len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("secret: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("secret: %w", err)
	}
	return &Box{aead: aead}, nil
}

// ParseKey decodes a key given as base64 (standard or URL alphabet, padded or not) or hex.
func ParseKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if b, err := hex.DecodeString(s); err == nil && len(b) == KeySize {
		return b, nil
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil && len(b) == KeySize {
			return b, nil
		}
	}
	return nil, errors.New("secret: key must be 32 bytes encoded as base64 or hex (e.g. openssl rand -base64 32)")
}

// LoadOrCreateKeyFile reads the key in path, or creates the file (mode 0600, parent directories
// 0700) holding a new random key when it does not exist.
func LoadOrCreateKeyFile(path string) ([]byte, error) {
	key, err := LoadKeyFile(path)
	if !errors.Is(err, os.ErrNotExist) {
		return key, err
	}
	return createKeyFile(path)
}

// LoadKeyFile reads a key file; a missing file is an error wrapping os.ErrNotExist.
func LoadKeyFile(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("secret: key file %s: %w", path, err)
		}
		return nil, fmt.Errorf("secret: read key file: %w", err)
	}
	key, err := ParseKey(string(data))
	if err != nil {
		return nil, fmt.Errorf("secret: key file %s: %w", path, err)
	}
	return key, nil
}

func createKeyFile(path string) ([]byte, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("secret: create key directory: %w", err)
	}
	key := make([]byte, KeySize)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("secret: generate key: %w", err)
	}
	// O_EXCL: when two processes start at once, one creates the file and the other reads it.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return LoadOrCreateKeyFile(path)
	}
	if err != nil {
		return nil, fmt.Errorf("secret: create key file: %w", err)
	}
	if _, err := f.WriteString(base64.StdEncoding.EncodeToString(key) + "\n"); err != nil {
		f.Close()
		return nil, fmt.Errorf("secret: write key file: %w", err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("secret: write key file: %w", err)
	}
	return key, nil
}

// Encrypt seals plain; the result is printable and starts with "enc:v1:".
func (b *Box) Encrypt(plain string) (string, error) {
	nonce := make([]byte, b.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("secret: nonce: %w", err)
	}
	sealed := b.aead.Seal(nonce, nonce, []byte(plain), []byte(prefix))
	return prefix + base64.RawStdEncoding.EncodeToString(sealed), nil
}

// ErrWrongKey is returned when a value was sealed with another key (or tampered with).
var ErrWrongKey = errors.New("secret: cannot decrypt: wrong key or corrupted value")

// Decrypt opens a value made by Encrypt.
func (b *Box) Decrypt(sealed string) (string, error) {
	if !IsEncrypted(sealed) {
		return "", errors.New("secret: value is not encrypted")
	}
	raw, err := base64.RawStdEncoding.DecodeString(sealed[len(prefix):])
	if err != nil {
		return "", fmt.Errorf("secret: decode: %w", err)
	}
	ns := b.aead.NonceSize()
	if len(raw) < ns+b.aead.Overhead() {
		return "", ErrWrongKey
	}
	plain, err := b.aead.Open(nil, raw[:ns], raw[ns:], []byte(prefix))
	if err != nil {
		return "", ErrWrongKey
	}
	return string(plain), nil
}

// IsEncrypted reports whether s is a value made by Encrypt.
func IsEncrypted(s string) bool { return strings.HasPrefix(s, prefix) }

// SealConfig returns a copy of config whose secret keys are encrypted. A secret given as the
// mask keeps the value in previous (the stored, sealed config), so a client may PUT back what it
// read. Null and empty secrets are kept as they are.
func (b *Box) SealConfig(config, previous map[string]any, secrets []string) (map[string]any, error) {
	out := make(map[string]any, len(config))
	for k, v := range config {
		out[k] = v
	}
	for _, k := range secrets {
		v, ok := out[k].(string)
		if !ok || v == "" {
			continue
		}
		if v == Mask {
			if prev, ok := previous[k]; ok && prev != nil {
				out[k] = prev
			} else {
				delete(out, k)
			}
			continue
		}
		sealed, err := b.Encrypt(v)
		if err != nil {
			return nil, err
		}
		out[k] = sealed
	}
	return out, nil
}

// OpenConfig returns a copy of a sealed config with its secrets decrypted, for connectors.
func (b *Box) OpenConfig(config map[string]any, secrets []string) (map[string]any, error) {
	out := make(map[string]any, len(config))
	for k, v := range config {
		out[k] = v
	}
	for _, k := range secrets {
		v, ok := out[k].(string)
		if !ok || !IsEncrypted(v) {
			continue
		}
		plain, err := b.Decrypt(v)
		if err != nil {
			return nil, fmt.Errorf("config key %s: %w", k, err)
		}
		out[k] = plain
	}
	return out, nil
}

// MaskConfig returns a copy of config for API answers: set secrets become Mask, unset ones null.
func MaskConfig(config map[string]any, secrets []string) map[string]any {
	out := make(map[string]any, len(config)+len(secrets))
	for k, v := range config {
		out[k] = v
	}
	for _, k := range secrets {
		if v, ok := out[k].(string); ok && v != "" {
			out[k] = Mask
		} else {
			out[k] = nil
		}
	}
	return out
}
