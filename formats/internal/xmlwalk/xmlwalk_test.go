package xmlwalk

import (
	"context"
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestChildren(t *testing.T) {
	d := NewDecoder(context.Background(), strings.NewReader(`<doc><body>text <a><x/></a> more <b>in b</b><c/></body><after/></doc>`))
	if _, err := d.Root("body"); err != nil {
		t.Fatal(err)
	}
	var names []string
	err := d.Children(func(se xml.StartElement) error {
		names = append(names, se.Name.Local)
		return d.Skip()
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(names, ","); got != "a,b,c" {
		t.Fatalf("children %q, want a,b,c (grandchildren and text passed over)", got)
	}
	// The walk stopped at body's end: the next element is the sibling after it.
	tok, err := d.Token()
	if se, ok := tok.(xml.StartElement); err != nil || !ok || se.Name.Local != "after" {
		t.Fatalf("after the walk got %v, %v; want <after>", tok, err)
	}
}

func TestTruncatedPart(t *testing.T) {
	d := NewDecoder(context.Background(), strings.NewReader(`<body><p>cut here`))
	if _, err := d.Root("body"); err != nil {
		t.Fatal(err)
	}
	err := d.Children(func(xml.StartElement) error { return d.Skip() })
	if err == nil {
		t.Fatal("a part cut inside an element read as complete")
	}
	d = NewDecoder(context.Background(), strings.NewReader(`<body><p/>`))
	d.Root("body")
	if err := d.Children(func(xml.StartElement) error { return d.Skip() }); err == nil || err == io.EOF {
		t.Fatalf("end of input inside body: %v, want an error other than io.EOF", err)
	}
}

func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	part := "<body>" + strings.Repeat("<p/>", 10000) + "</body>"
	d := NewDecoder(ctx, strings.NewReader(part))
	d.Root("body")
	n := 0
	err := d.Children(func(xml.StartElement) error { n++; return d.Skip() })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled walk ended with %v after %d elements", err, n)
	}
	if n >= 10000 {
		t.Fatalf("cancelled walk read all %d elements", n)
	}
}

func TestRootMissing(t *testing.T) {
	d := NewDecoder(context.Background(), strings.NewReader(`<doc><other/></doc>`))
	if _, err := d.Root("body"); err != io.EOF {
		t.Fatalf("Root on a part without it: %v, want io.EOF", err)
	}
}

func TestChildError(t *testing.T) {
	d := NewDecoder(context.Background(), strings.NewReader(`<body><a/><b/><c/></body>`))
	d.Root("body")
	stop := errors.New("stop")
	n := 0
	err := d.Children(func(xml.StartElement) error {
		n++
		if n == 2 {
			return stop
		}
		return d.Skip()
	})
	if err != stop || n != 2 {
		t.Fatalf("error from the second child: got %v after %d children", err, n)
	}
}
