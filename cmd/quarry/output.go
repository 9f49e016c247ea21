package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// atomicFile is an output written beside its final name and renamed into place only when
// complete, so a failure or an interrupt never leaves a truncated file where a good one is
// expected.
type atomicFile struct {
	*os.File
	final string
}

func createAtomic(path string) (*atomicFile, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return nil, fmt.Errorf("cannot create %s: %w", path, err)
	}
	return &atomicFile{File: f, final: path}, nil
}

func (a *atomicFile) commit() error {
	if err := a.Close(); err != nil {
		os.Remove(a.Name())
		return err
	}
	if err := os.Chmod(a.Name(), 0o644); err != nil {
		os.Remove(a.Name())
		return err
	}
	if err := os.Rename(a.Name(), a.final); err != nil {
		os.Remove(a.Name())
		return err
	}
	return nil
}

func (a *atomicFile) abort() {
	a.Close()
	os.Remove(a.Name())
}

// writeAtomic writes data to path through a temporary file, creating its folder.
func writeAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := createAtomic(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.abort()
		return err
	}
	return f.commit()
}

func jsonString(s string) ([]byte, error) { return json.Marshal(s) }
