package org

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
	"github.com/quarrydocs/quarry/metrics"
)

const refDir = "../../testdata/reference"

func TestConformance(t *testing.T) {
	if _, err := exec.LookPath("pandoc"); err != nil {
		t.Skip("pandoc not installed (Debian package pandoc)")
	}
	data, err := os.ReadFile(filepath.Join(refDir, "docs/README.org"))
	if err != nil {
		t.Fatal(err)
	}
	var got []element.Element
	opts := engine.DefaultOptions()
	err = Partition(context.Background(), engine.NewDocument("README.org", data), &opts, func(e element.Element) error {
		got = append(got, e)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(refDir, "expected/oss-2024/README.org.json"))
	if err != nil {
		t.Fatal(err)
	}
	var gold []element.Element
	if err := json.Unmarshal(raw, &gold); err != nil {
		t.Fatal(err)
	}
	for i := range got {
		got[i].Metadata.CategoryDepth = nil // removed from the golden by its producer
	}
	cct := metrics.Round3(metrics.BatchAccuracy(metrics.CCT(got), metrics.CCT(gold)))
	types := metrics.Round3(metrics.TypeAccuracy(got, gold))
	t.Logf("%-14s n=%d gold=%d cct=%.3f types=%.3f", "README.org", len(got), len(gold), cct, types)
	for _, e := range got {
		t.Logf("  %s %q", e.Type, e.Text)
	}
	if cct < 0.98 {
		t.Errorf("CCT accuracy %.3f < 0.98", cct)
	}
}
