package email_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/text/encoding/charmap"

	"github.com/quarrydocs/quarry/engine"
	"github.com/quarrydocs/quarry/internal/cfbtest"
)

// storedGUID writes a GUID in the byte order .msg files store it.
func storedGUID(s string) [16]byte {
	var g [16]byte
	s = strings.ReplaceAll(s, "-", "")
	for i := range g {
		v, _ := strconv.ParseUint(s[2*i:2*i+2], 16, 8)
		g[i] = byte(v)
	}
	g[0], g[1], g[2], g[3] = g[3], g[2], g[1], g[0]
	g[4], g[5] = g[5], g[4]
	g[6], g[7] = g[7], g[6]
	return g
}

var (
	setAddress     = storedGUID("00062004-0000-0000-C000-000000000046")
	setAppointment = storedGUID("00062002-0000-0000-C000-000000000046")
	setTask        = storedGUID("00062003-0000-0000-C000-000000000046")
)

func filetime(t time.Time) uint64 { return uint64(t.UnixMilli())*10000 + 116444736000000000 }

// outlookItem describes one .msg fixture: its class, string properties (standard IDs or
// named ones, which get IDs 0x8000+ in order), fixed values, recipients.
type outlookItem struct {
	class   string
	strs    map[uint16]string
	named   []namedValue
	fixed   map[uint16]fixedValue
	recips  [][2]string // display name, SMTP address
	unicode bool        // Outlook 2007+ layout (PT_UNICODE); else Outlook 2003 ANSI (PT_STRING8, cp1252)
}

type namedValue struct {
	set   [16]byte
	lid   uint32
	str   string      // a string value…
	fixed *fixedValue // …or a fixed-size one
}

func (it outlookItem) build() []byte {
	top := msgStorage{unicode: map[uint16]string{}, ansi: map[uint16][]byte{}, long: map[uint16]uint32{}, fixed: map[uint16]fixedValue{}, empty: map[uint16]uint16{}}
	put := func(id uint16, v string) {
		if v == "" {
			// Outlook writes empty strings as zero-length streams.
			top.empty[id] = map[bool]uint16{true: 0x001F, false: 0x001E}[it.unicode]
			return
		}
		if it.unicode {
			top.unicode[id] = v
			return
		}
		b, err := charmap.Windows1252.NewEncoder().Bytes([]byte(v))
		if err != nil {
			panic(err)
		}
		top.ansi[id] = b
	}
	put(0x001A, it.class)
	for id, v := range it.strs {
		put(id, v)
	}
	var names [][2]any
	for i, n := range it.named {
		id := uint16(0x8000 + i)
		names = append(names, [2]any{n.set, n.lid})
		if n.fixed != nil {
			if n.fixed.typ == 0x0003 {
				top.long[id] = uint32(n.fixed.raw)
			} else {
				top.fixed[id] = *n.fixed
			}
			continue
		}
		put(id, n.str)
	}
	for id, v := range it.fixed {
		top.fixed[id] = v
	}
	if !it.unicode {
		top.long[0x3FFD] = 1252
	}
	kids := top.nodes(32)
	for i, r := range it.recips {
		rs := msgStorage{unicode: map[uint16]string{0x3001: r[0], 0x39FE: r[1]}, long: map[uint16]uint32{0x0C15: 1}}
		kids = append(kids, &cfbtest.Node{Name: fmt.Sprintf("__recip_version1.0_#%08X", i), Storage: true, Children: rs.nodes(8)})
	}
	kids = append(kids, nameidStorage(names))
	return cfbtest.Build(kids)
}

func fixedTime(t time.Time) *fixedValue { return &fixedValue{typ: 0x0040, raw: filetime(t)} }

// TestOutlookItems: every kind of Outlook item, in the Outlook 2003 (ANSI) and later
// (Unicode) layouts, with empty string streams, gives its text.
func TestOutlookItems(t *testing.T) {
	start := time.Date(2024, 3, 5, 14, 0, 0, 0, time.UTC)
	items := []struct {
		name string
		item outlookItem
		want []string
	}{
		{"message", outlookItem{class: "IPM.Note", strs: map[uint16]string{0x0037: "Budget review", 0x1000: "Please send the revised budget figures before Thursday's meeting.", 0x0C1A: "Zoë Example", 0x5D01: "zoe@example.com", 0x1035: "", 0x0E04: ""},
			recips: [][2]string{{"Ann", "ann@example.com"}}},
			[]string{"Please send the revised budget figures before Thursday's meeting."}},
		{"contact", outlookItem{class: "IPM.Contact", strs: map[uint16]string{
			0x3001: "Jürgen Weiß", 0x0037: "Jürgen Weiß", 0x3A16: "Acme Logistics GmbH", 0x3A17: "Head of Procurement",
			0x3A08: "+49 30 1234567", 0x3A1C: "+49 170 7654321", 0x3A09: "", 0x1000: "", 0x3A29: "Hauptstraße 5", 0x3A27: "Berlin", 0x3A2A: "10115", 0x3A26: "Germany"},
			named: []namedValue{{set: setAddress, lid: 0x8083, str: "j.weiss@acme.example"}, {set: setAddress, lid: 0x8080, str: "Jürgen Weiß (j.weiss@acme.example)"}, {set: setAddress, lid: 0x8093, str: ""}}},
			[]string{"Jürgen Weiß", "Job title: Head of Procurement", "Company: Acme Logistics GmbH", "Email: j.weiss@acme.example",
				"Business phone: +49 30 1234567", "Mobile phone: +49 170 7654321", "Address: Hauptstraße 5, Berlin, 10115, Germany"}},
		{"post", outlookItem{class: "IPM.Post", strs: map[uint16]string{0x0037: "Holiday rota", 0x1000: "The holiday rota for December is now on the shared drive.", 0x0C1A: "Team Lead", 0x0E04: ""}},
			[]string{"The holiday rota for December is now on the shared drive."}},
		{"sticky note", outlookItem{class: "IPM.StickyNote", strs: map[uint16]string{0x0037: "Call the printer", 0x1000: "Call the printer about the brochure proofs.\r\nAsk for the paper samples too."}},
			[]string{"Call the printer about the brochure proofs.", "Ask for the paper samples too."}},
		{"empty sticky note", outlookItem{class: "IPM.StickyNote", strs: map[uint16]string{0x0037: "Renew the parking permit", 0x1000: ""}},
			[]string{"Renew the parking permit"}},
		{"task", outlookItem{class: "IPM.Task", strs: map[uint16]string{0x0037: "Prepare the quarterly report", 0x1000: "Collect the figures from every branch first."},
			named: []namedValue{{set: setTask, lid: 0x8101, fixed: &fixedValue{typ: 0x0003, raw: 1}}, {set: setTask, lid: 0x8102, fixed: &fixedValue{typ: 0x0005, raw: math.Float64bits(0.25)}},
				{set: setTask, lid: 0x8105, fixed: fixedTime(start)}, {set: setTask, lid: 0x811F, str: "Maria Lopez"}}},
			[]string{"Prepare the quarterly report", "Status: In progress", "Complete: 25%", "Due date: 2024-03-05 14:00 UTC", "Owner: Maria Lopez", "Collect the figures from every branch first."}},
		{"appointment", outlookItem{class: "IPM.Appointment", strs: map[uint16]string{0x0037: "Design review", 0x1000: "We will walk through the new floor plans.", 0x0C1A: "Maria Lopez", 0x5D01: "maria@example.com"},
			named:  []namedValue{{set: setAppointment, lid: 0x8208, str: "Room 4.12"}, {set: setAppointment, lid: 0x820D, fixed: fixedTime(start)}, {set: setAppointment, lid: 0x820E, fixed: fixedTime(start.Add(90 * time.Minute))}},
			recips: [][2]string{{"Ann", "ann@example.com"}, {"Bob", "bob@example.com"}}},
			[]string{"Design review", "Location: Room 4.12", "Start: 2024-03-05 14:00 UTC", "End: 2024-03-05 15:30 UTC",
				"Organizer: Maria Lopez <maria@example.com>", "Attendees: ann@example.com, bob@example.com", "We will walk through the new floor plans."}},
	}
	for _, c := range items {
		for _, unicode := range []bool{true, false} {
			c.item.unicode = unicode
			t.Run(fmt.Sprintf("%s/unicode=%v", c.name, unicode), func(t *testing.T) {
				data := c.item.build()
				if ft := engine.Detect(engine.NewDocument("item.msg", data), ""); ft.MIME != "application/vnd.ms-outlook" {
					t.Fatalf("detected %s", ft.MIME)
				}
				var log bytes.Buffer
				opts := engine.DefaultOptions()
				opts.Logger = slog.New(slog.NewTextHandler(&log, nil))
				out := partition(t, "item.msg", data, opts)
				if log.Len() > 0 {
					t.Errorf("warnings on a sound file: %s", log.String())
				}
				var got []string
				for _, e := range out {
					got = append(got, e.Text)
				}
				if strings.Join(got, "|") != strings.Join(c.want, "|") {
					t.Errorf("got  %q\nwant %q", got, c.want)
				}
			})
		}
	}
}

// TestMSGDamagedStream: a stream whose sectors lie past the end of a cut file is skipped
// (with a warning), and the properties that can be read are kept.
func TestMSGDamagedStream(t *testing.T) {
	it := outlookItem{class: "IPM.Note", unicode: true, strs: map[uint16]string{
		0x0037: "Site visit", 0x1000: "The site visit is confirmed for Monday at nine.",
		0x1013: strings.Repeat("<p>An HTML body large enough to live in regular sectors.</p>", 120)}}
	data := it.build()
	// The HTML body (over 4096 bytes, the last regular stream) sits at the end of the file:
	// cut the file inside it.
	cut := data[:len(data)-2048]
	var log bytes.Buffer
	opts := engine.DefaultOptions()
	opts.Logger = slog.New(slog.NewTextHandler(&log, nil))
	out := partition(t, "cut.msg", cut, opts)
	if len(out) == 0 {
		t.Fatal("nothing kept from a partly damaged message")
	}
	if out[0].Metadata.Subject != "Site visit" || !strings.HasPrefix(out[0].Text, "An HTML body large enough") {
		t.Errorf("first element %q, subject %q", out[0].Text, out[0].Metadata.Subject)
	}
	if n := strings.Count(log.String(), "damaged streams"); n != 1 {
		t.Errorf("%d warnings, want one:\n%s", n, log.String())
	}
}
