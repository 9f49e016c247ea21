package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/quarrydocs/quarry/engine"
)

// progress tells a person at a terminal how a batch advances: a status line on stderr redrawn in
// place (document i of n, page p of t, pages per second, time left), the strategy chosen for
// each PDF or image and why, failures as they happen and a summary. The status line is drawn only
// on a terminal; the strategy lines are said unless quiet.
type progress struct {
	mu       sync.Mutex
	w        io.Writer
	live     bool
	quiet    bool
	docs     int
	finished int
	tasks    []*task
	shown    bool // a status line is on screen
	last     time.Time
	width    int
	done     chan struct{}
	stopOnce sync.Once
	now      func() time.Time
}

type task struct {
	name    string
	started time.Time
	updated time.Time
	page    int
	total   int
}

// delay is how long a document runs before a status line is worth drawing.
const delay = 700 * time.Millisecond

func newProgress(w io.Writer, live, quiet bool, docs int) *progress {
	p := &progress{w: w, live: live, quiet: quiet, docs: docs, done: make(chan struct{}), now: time.Now, width: 80}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 20 {
		p.width = n
	}
	if live {
		go func() {
			t := time.NewTicker(250 * time.Millisecond)
			defer t.Stop()
			for {
				select {
				case <-t.C:
					p.mu.Lock()
					p.draw(true)
					p.mu.Unlock()
				case <-p.done:
					return
				}
			}
		}()
	}
	return p
}

// isTerminal reports whether w is a terminal a status line can be redrawn on.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || os.Getenv("TERM") == "dumb" {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func (p *progress) start(name string) *task {
	p.mu.Lock()
	defer p.mu.Unlock()
	t := &task{name: name, started: p.now()}
	t.updated = t.started
	p.tasks = append(p.tasks, t)
	return t
}

func (p *progress) finish(t *task) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, x := range p.tasks {
		if x == t {
			p.tasks = append(p.tasks[:i], p.tasks[i+1:]...)
			break
		}
	}
	p.finished++
	p.draw(true)
}

// report takes an engine progress report for t; requested is the strategy asked for.
func (p *progress) report(t *task, requested string, ev engine.Progress) {
	if ev.Strategy != "" {
		if !p.quiet {
			p.println(t.name + ": " + decision(requested, ev))
		}
		return
	}
	if ev.Total <= 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	t.page, t.total, t.updated = ev.Page, ev.Total, p.now()
	p.draw(false)
}

// decision phrases a strategy choice: "auto → ocr_only for pages 3, 7: no text layer".
func decision(requested string, ev engine.Progress) string {
	req := strings.ToLower(requested)
	if req == "" {
		req = "auto"
	}
	var b strings.Builder
	if req == ev.Strategy {
		b.WriteString("strategy " + ev.Strategy)
	} else {
		b.WriteString(req + " → " + ev.Strategy)
	}
	if len(ev.Pages) > 0 {
		pages := make([]string, len(ev.Pages))
		for i, n := range ev.Pages {
			pages[i] = strconv.Itoa(n)
		}
		word := "pages "
		if len(pages) == 1 {
			word = "page "
		}
		b.WriteString(" for " + word + strings.Join(pages, ", "))
	}
	if ev.Reason != "" {
		b.WriteString(": " + ev.Reason)
	}
	return b.String()
}

// println writes a line above the status line.
func (p *progress) println(line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	fmt.Fprintln(p.w, line)
	p.draw(true)
}

func (p *progress) clear() {
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
}

// draw redraws the status line, at most ten times a second unless forced.
func (p *progress) draw(force bool) {
	if !p.live {
		return
	}
	now := p.now()
	if !force && now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	line := p.status(now)
	p.clear()
	if line == "" {
		return
	}
	fmt.Fprint(p.w, line)
	p.shown, p.last = true, now
}

// status is the status line's text: the most recently advanced document that has run long
// enough to be worth showing; "" when there is none.
func (p *progress) status(now time.Time) string {
	var t *task
	for _, x := range p.tasks {
		if now.Sub(x.started) >= delay && (t == nil || x.updated.After(t.updated)) {
			t = x
		}
	}
	if t == nil {
		return ""
	}
	prefix := ""
	if p.docs > 1 {
		prefix = fmt.Sprintf("[%d/%d] ", p.finished, p.docs)
	}
	var b strings.Builder
	elapsed := now.Sub(t.started)
	if t.total > 0 {
		fmt.Fprintf(&b, ": page %d of %d", t.page, t.total)
		if secs := elapsed.Seconds(); t.page > 0 && secs > 0 {
			rate := float64(t.page) / secs
			fmt.Fprintf(&b, ", %.1f pages/s", rate)
			if left := time.Duration(float64(t.total-t.page) / rate * float64(time.Second)); left >= time.Second {
				fmt.Fprintf(&b, ", about %s left", roundDuration(left))
			}
		}
	} else {
		fmt.Fprintf(&b, ": working, %s", roundDuration(elapsed))
	}
	// A long name is shortened from the left: its end (the file name) tells most.
	name := []rune(t.name)
	if room := p.width - 1 - len([]rune(prefix)) - len([]rune(b.String())); len(name) > room {
		name = append([]rune("…"), name[len(name)-max(room-1, 1):]...)
	}
	return prefix + string(name) + b.String()
}

func roundDuration(d time.Duration) string {
	switch {
	case d < 10*time.Second:
		return d.Round(100 * time.Millisecond).String()
	case d < time.Hour:
		return d.Round(time.Second).String()
	}
	return d.Round(time.Minute).String()
}

func (p *progress) stop() {
	p.stopOnce.Do(func() {
		close(p.done)
		p.mu.Lock()
		p.clear()
		p.live = false
		p.mu.Unlock()
	})
}

// summary ends a batch: how many documents were partitioned, which failed, where the outputs are.
func (p *progress) summary(done, failed, total int, failures []string, interrupted bool, outDir string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.quiet && failed == 0 && !interrupted {
		return
	}
	var b strings.Builder
	switch {
	case interrupted:
		fmt.Fprintf(&b, "quarry: interrupted; %d of %d documents were partitioned and written whole", done, total)
	case failed == 0:
		fmt.Fprintf(&b, "quarry: %d documents partitioned", done)
	default:
		fmt.Fprintf(&b, "quarry: %d of %d documents partitioned; %d failed", done, total, failed)
		if !interrupted {
			list := failures
			if len(list) > 5 {
				list = append(list[:5:5], fmt.Sprintf("and %d more", len(failures)-5))
			}
			b.WriteString(" (" + strings.Join(list, ", ") + ")")
		}
	}
	if outDir != "" && done > 0 {
		b.WriteString("; outputs are in " + outDir)
	}
	fmt.Fprintln(p.w, b.String())
}
