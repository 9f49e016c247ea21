package schedule

import (
	"testing"
	"time"
)

func TestPhrases(t *testing.T) {
	base := time.Date(2025, 8, 22, 8, 47, 29, 0, time.UTC) // a Friday
	for _, tc := range []struct {
		phrase, cron string
		next         time.Time
	}{
		{"every 15 minutes", "*/15 * * * *", time.Date(2025, 8, 22, 9, 0, 0, 0, time.UTC)},
		{"every hour", "0 * * * *", time.Date(2025, 8, 22, 9, 0, 0, 0, time.UTC)},
		{"every 2 hours", "0 */2 * * *", time.Date(2025, 8, 22, 10, 0, 0, 0, time.UTC)},
		{"every 4 hours", "0 */4 * * *", time.Date(2025, 8, 22, 12, 0, 0, 0, time.UTC)},
		{"every 6 hours", "0 */6 * * *", time.Date(2025, 8, 22, 12, 0, 0, 0, time.UTC)},
		{"every 8 hours", "0 */8 * * *", time.Date(2025, 8, 22, 16, 0, 0, 0, time.UTC)},
		{"every 10 hours", "0 */10 * * *", time.Date(2025, 8, 22, 10, 0, 0, 0, time.UTC)},
		{"every 12 hours", "0 */12 * * *", time.Date(2025, 8, 22, 12, 0, 0, 0, time.UTC)},
		{"daily", "0 0 * * *", time.Date(2025, 8, 23, 0, 0, 0, 0, time.UTC)},
		{"weekly", "0 0 * * 0", time.Date(2025, 8, 24, 0, 0, 0, 0, time.UTC)},
		{"monthly", "0 0 1 * *", time.Date(2025, 9, 1, 0, 0, 0, 0, time.UTC)},
		{"Every  Hour", "0 * * * *", time.Date(2025, 8, 22, 9, 0, 0, 0, time.UTC)},
		{"0 0 * * 0", "0 0 * * 0", time.Date(2025, 8, 24, 0, 0, 0, 0, time.UTC)},
	} {
		c, ok := Cron(tc.phrase)
		if !ok || c != tc.cron {
			t.Errorf("Cron(%q) = %q, %v; want %q", tc.phrase, c, ok, tc.cron)
			continue
		}
		s, err := Parse(c)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Next(base); !got.Equal(tc.next) {
			t.Errorf("%s: next after %v = %v, want %v", tc.phrase, base, got, tc.next)
		}
	}
	for _, bad := range []string{"", "hourly", "every 3 hours", "* * *", "61 * * * *", "*/0 * * * *"} {
		if c, ok := Cron(bad); ok {
			t.Errorf("Cron(%q) accepted as %q", bad, c)
		}
	}
	if len(Phrases()) != 11 || Phrases()[0] != "every 15 minutes" {
		t.Errorf("Phrases() = %v", Phrases())
	}
}
