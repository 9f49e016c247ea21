package xml

import (
	"fmt"
	"strings"
)

// maxMixed bounds the text an element may gather while it could still turn out to hold mixed
// content; beyond it the element is treated as a container.
const maxMixed = 1 << 20

// A frame is one open element.
type frame struct {
	direct   strings.Builder // text before the first child node (lxml's .text)
	flat     strings.Builder // all text of the subtree in document order, while eligible
	hasChild bool            // an element, comment or PI child has started
	tail     bool            // non-blank text follows a child
	// eligible: every child so far was a leaf or itself mixed, so this element may still
	// become one mixed-content element. Once false it is false for every ancestor too,
	// and their pending lists are empty.
	eligible bool
	pending  []string // texts of closed children, held until this element's kind is known
}

// walker turns the token stream into texts: a leaf's direct text, a mixed-content element's
// whole text, a container's children in end order followed by its own direct text.
type walker struct {
	stack []*frame
	emit  func(string) error
}

func (w *walker) start() error {
	if n := len(w.stack); n > 0 {
		w.stack[n-1].hasChild = true
	}
	if len(w.stack) >= maxDepth {
		return fmt.Errorf("xml: elements nested deeper than %d", maxDepth)
	}
	w.stack = append(w.stack, &frame{eligible: true})
	return nil
}

func (w *walker) chars(t []byte) error {
	n := len(w.stack)
	if n == 0 {
		return nil
	}
	f := w.stack[n-1]
	if !f.hasChild {
		f.direct.Write(t)
	} else if len(strings.TrimSpace(string(t))) > 0 {
		f.tail = true
	}
	if f.eligible {
		f.flat.Write(t)
		if f.flat.Len() > maxMixed {
			return w.settle(n - 1)
		}
	}
	return nil
}

// opaque records a comment or PI child: lxml's .text stops at it.
func (w *walker) opaque() {
	if n := len(w.stack); n > 0 {
		w.stack[n-1].hasChild = true
	}
}

func (w *walker) end() error {
	n := len(w.stack)
	if n == 0 {
		return nil
	}
	f := w.stack[n-1]
	w.stack = w.stack[:n-1]
	direct := strings.TrimSpace(f.direct.String())
	var items []string
	single := true // the result is one text (leaf or mixed), not a container's list
	switch {
	case f.eligible && f.hasChild && (f.tail || direct != ""):
		items = []string{strings.Join(strings.Fields(f.flat.String()), " ")}
	case !f.hasChild:
		if direct != "" {
			items = []string{direct}
		}
	default:
		single = false
		items = append(f.pending, direct)
		if direct == "" {
			items = items[:len(items)-1]
		}
	}
	if n == 1 {
		return w.out(items)
	}
	p := w.stack[n-2]
	if !single && p.eligible {
		if err := w.settle(n - 2); err != nil {
			return err
		}
	}
	if !p.eligible {
		return w.out(items)
	}
	p.pending = append(p.pending, items...)
	p.flat.WriteString(f.flat.String())
	return nil
}

// settle marks frame i and its ancestors as containers, emitting what they held back, the
// outermost first (end order).
func (w *walker) settle(i int) error {
	for k := 0; k <= i; k++ {
		f := w.stack[k]
		if !f.eligible {
			continue
		}
		f.eligible = false
		f.flat.Reset()
		if err := w.out(f.pending); err != nil {
			return err
		}
		f.pending = nil
	}
	return nil
}

func (w *walker) out(items []string) error {
	for _, s := range items {
		if s == "" {
			continue
		}
		if err := w.emit(s); err != nil {
			return err
		}
	}
	return nil
}
