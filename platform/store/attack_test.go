package store

import (
	"context"
	"slices"
	"testing"
	"time"
)

// The workflow list's name filter means "name contains" (the API's documented meaning): the
// LIKE wildcards a caller types are literal characters. Before, name=% and name=_ listed every
// workflow and name=\ none (PostgreSQL: an error, the 500 of a malformed escape).
func TestAttackNameFilterIsLiteral(t *testing.T) {
	eachDB(t, func(t *testing.T, dsn, dir string) {
		ctx := context.Background()
		s := open(t, dsn, dir)
		now := time.Now().UTC().Truncate(time.Microsecond)
		names := []string{"50% off", "500 off", "a_b", "axb", `back\slash`, "plain", "it's"}
		for i, name := range names {
			w := &Workflow{ID: "w" + string(rune('a'+i)), Name: name, Nodes: []Node{{ID: "n", Name: "p", Type: "partition", Subtype: "fast"}},
				Status: "active", CreatedAt: now.Add(time.Duration(i) * time.Second)}
			if err := s.SaveWorkflow(ctx, w); err != nil {
				t.Fatal(err)
			}
		}
		for _, c := range []struct {
			filter string
			want   []string
		}{
			{"%", []string{"50% off"}},
			{"_", []string{"a_b"}},
			{`\`, []string{`back\slash`}},
			{`\%`, nil},
			{"'", []string{"it's"}},
			{"' OR 1=1 --", nil},
			{"OFF", []string{"50% off", "500 off"}},
		} {
			ws, err := s.ListWorkflows(ctx, WorkflowFilter{Name: c.filter})
			if err != nil {
				t.Errorf("name=%q: %v", c.filter, err)
				continue
			}
			var got []string
			for _, w := range ws {
				got = append(got, w.Name)
			}
			slices.Sort(got)
			if !slices.Equal(got, c.want) {
				t.Errorf("name=%q lists %q, want %q", c.filter, got, c.want)
			}
		}
	})
}
