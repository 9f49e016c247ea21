package secret

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBox(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	b, err := New(key)
	if err != nil {
		t.Fatal(err)
	}
	sealed, err := b.Encrypt("hunter2")
	if err != nil || !IsEncrypted(sealed) || strings.Contains(sealed, "hunter2") {
		t.Fatalf("sealed = %q, %v", sealed, err)
	}
	if again, _ := b.Encrypt("hunter2"); again == sealed {
		t.Fatal("nonce reused")
	}
	if plain, err := b.Decrypt(sealed); plain != "hunter2" || err != nil {
		t.Fatalf("decrypt = %q, %v", plain, err)
	}
	other, _ := New([]byte("ffffffffffffffffffffffffffffffff"))
	if _, err := other.Decrypt(sealed); !errors.Is(err, ErrWrongKey) {
		t.Fatalf("other key: %v", err)
	}
	tampered := sealed[:len(sealed)-2] + "AA"
	if _, err := b.Decrypt(tampered); err == nil {
		t.Fatal("tampered value decrypted")
	}
	if _, err := b.Decrypt("plain"); err == nil {
		t.Fatal("plain value decrypted")
	}
	if _, err := New([]byte("short")); err == nil {
		t.Fatal("short key accepted")
	}
}

func TestParseKey(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	for _, s := range []string{base64.StdEncoding.EncodeToString(key), base64.RawURLEncoding.EncodeToString(key), hex.EncodeToString(key), " " + hex.EncodeToString(key) + "\n"} {
		got, err := ParseKey(s)
		if err != nil || string(got) != string(key) {
			t.Errorf("ParseKey(%q) = %q, %v", s, got, err)
		}
	}
	for _, s := range []string{"", "password", base64.StdEncoding.EncodeToString(key[:16])} {
		if _, err := ParseKey(s); err == nil {
			t.Errorf("ParseKey(%q) accepted", s)
		}
	}
}

func TestKeyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "secret.key")
	k1, err := LoadOrCreateKeyFile(path)
	if err != nil || len(k1) != KeySize {
		t.Fatal(k1, err)
	}
	info, _ := os.Stat(path)
	if info.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", info.Mode())
	}
	if dir, _ := os.Stat(filepath.Dir(path)); dir.Mode().Perm() != 0o700 {
		t.Fatalf("dir mode %v", dir.Mode())
	}
	k2, _ := LoadOrCreateKeyFile(path)
	if string(k1) != string(k2) {
		t.Fatal("key file not reused")
	}
	os.WriteFile(path, []byte("garbage"), 0o600)
	if _, err := LoadOrCreateKeyFile(path); err == nil {
		t.Fatal("bad key file accepted")
	}
}

func TestConfigs(t *testing.T) {
	b, _ := New([]byte("0123456789abcdef0123456789abcdef"))
	secrets := []string{"password", "token", "api_token"}
	sealed, err := b.SealConfig(map[string]any{"url": "u", "password": "p", "token": nil, "api_token": ""}, nil, secrets)
	if err != nil {
		t.Fatal(err)
	}
	if !IsEncrypted(sealed["password"].(string)) || sealed["token"] != nil || sealed["api_token"] != "" || sealed["url"] != "u" {
		t.Fatalf("sealed = %v", sealed)
	}
	masked := MaskConfig(sealed, secrets)
	if masked["password"] != Mask || masked["token"] != nil || masked["api_token"] != nil || masked["url"] != "u" {
		t.Fatalf("masked = %v", masked)
	}
	// The mask keeps the stored value; a mask for a secret never stored is dropped.
	again, _ := b.SealConfig(map[string]any{"password": Mask, "token": Mask}, sealed, secrets)
	if again["password"] != sealed["password"] {
		t.Fatal("mask did not keep the stored secret")
	}
	if _, ok := again["token"]; ok {
		t.Fatal("mask of an unset secret stored")
	}
	open, err := b.OpenConfig(again, secrets)
	if err != nil || open["password"] != "p" {
		t.Fatalf("open = %v, %v", open, err)
	}
}
