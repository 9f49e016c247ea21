// Package schedule turns the platform's schedule phrases ("every 15 minutes", "daily", …) into
// the cron entries the API returns (platform.md §1.5) and computes the next run time.
package schedule

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// phrases maps each accepted phrase to its cron expression, as the reference documents them.
var phrases = map[string]string{
	"every 15 minutes": "*/15 * * * *",
	"every hour":       "0 * * * *",
	"every 2 hours":    "0 */2 * * *",
	"every 4 hours":    "0 */4 * * *",
	"every 6 hours":    "0 */6 * * *",
	"every 8 hours":    "0 */8 * * *",
	"every 10 hours":   "0 */10 * * *",
	"every 12 hours":   "0 */12 * * *",
	"daily":            "0 0 * * *",
	"weekly":           "0 0 * * 0",
	"monthly":          "0 0 1 * *",
}

// Phrases lists the accepted phrases in a stable order (for error messages).
func Phrases() []string {
	out := make([]string, 0, len(phrases))
	for p := range phrases {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return order(out[i]) < order(out[j]) })
	return out
}

func order(p string) int {
	for i, q := range []string{"every 15 minutes", "every hour", "every 2 hours", "every 4 hours", "every 6 hours",
		"every 8 hours", "every 10 hours", "every 12 hours", "daily", "weekly", "monthly"} {
		if q == p {
			return i
		}
	}
	return 99
}

// Cron returns the cron expression of a phrase; a five-field cron expression is accepted as
// is when it parses, so a schedule read back from the API can be sent again.
func Cron(phrase string) (string, bool) {
	p := strings.ToLower(strings.Join(strings.Fields(phrase), " "))
	if c, ok := phrases[p]; ok {
		return c, true
	}
	if _, err := Parse(phrase); err == nil {
		return strings.Join(strings.Fields(phrase), " "), true
	}
	return "", false
}

// Spec is a parsed five-field cron expression (minute hour day-of-month month day-of-week).
type Spec struct {
	min, hour, dom, month, dow [64]bool
	domStar, dowStar           bool
}

// Parse parses a cron expression with *, numbers, ranges, lists and steps.
func Parse(expr string) (*Spec, error) {
	f := strings.Fields(expr)
	if len(f) != 5 {
		return nil, fmt.Errorf("schedule: cron expression %q must have 5 fields", expr)
	}
	s := &Spec{domStar: f[2] == "*", dowStar: f[4] == "*"}
	for i, r := range []struct {
		set       *[64]bool
		lo, hi    int
		wrapSeven bool
	}{{&s.min, 0, 59, false}, {&s.hour, 0, 23, false}, {&s.dom, 1, 31, false}, {&s.month, 1, 12, false}, {&s.dow, 0, 7, true}} {
		if err := parseField(f[i], r.lo, r.hi, r.set); err != nil {
			return nil, fmt.Errorf("schedule: cron field %d of %q: %w", i+1, expr, err)
		}
		if r.wrapSeven && r.set[7] {
			r.set[0] = true
		}
	}
	return s, nil
}

func parseField(field string, lo, hi int, set *[64]bool) error {
	for _, part := range strings.Split(field, ",") {
		rng, stepStr, hasStep := strings.Cut(part, "/")
		step := 1
		if hasStep {
			n, err := strconv.Atoi(stepStr)
			if err != nil || n <= 0 {
				return fmt.Errorf("bad step %q", stepStr)
			}
			step = n
		}
		a, b := lo, hi
		if rng != "*" {
			from, to, isRange := strings.Cut(rng, "-")
			x, err := strconv.Atoi(from)
			if err != nil {
				return fmt.Errorf("bad value %q", from)
			}
			a, b = x, x
			if isRange {
				if b, err = strconv.Atoi(to); err != nil {
					return fmt.Errorf("bad value %q", to)
				}
			} else if hasStep {
				b = hi
			}
		}
		if a < lo || b > hi || a > b {
			return fmt.Errorf("value out of range %d-%d", lo, hi)
		}
		for v := a; v <= b; v += step {
			set[v] = true
		}
	}
	return nil
}

// Next returns the first time strictly after t (truncated to the minute, in UTC) that matches.
func (s *Spec) Next(t time.Time) time.Time {
	t = t.UTC().Truncate(time.Minute).Add(time.Minute)
	// Five years of days bounds the search; every valid expression matches well within it.
	limit := t.AddDate(5, 0, 0)
	for t.Before(limit) {
		if !s.month[int(t.Month())] {
			t = time.Date(t.Year(), t.Month()+1, 1, 0, 0, 0, 0, time.UTC)
			continue
		}
		if !s.dayMatches(t) {
			t = time.Date(t.Year(), t.Month(), t.Day()+1, 0, 0, 0, 0, time.UTC)
			continue
		}
		if !s.hour[t.Hour()] {
			t = time.Date(t.Year(), t.Month(), t.Day(), t.Hour()+1, 0, 0, 0, time.UTC)
			continue
		}
		if !s.min[t.Minute()] {
			t = t.Add(time.Minute)
			continue
		}
		return t
	}
	return time.Time{}
}

// dayMatches applies cron's rule: when both day fields are restricted, either may match.
func (s *Spec) dayMatches(t time.Time) bool {
	dom, dow := s.dom[t.Day()], s.dow[int(t.Weekday())]
	switch {
	case s.domStar && s.dowStar:
		return true
	case s.domStar:
		return dow
	case s.dowStar:
		return dom
	}
	return dom || dow
}
