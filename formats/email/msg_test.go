package email_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
	"github.com/quarrydocs/quarry/formats/email"
	"github.com/quarrydocs/quarry/internal/cfbtest"
)

func recip(typ uint32, name, smtp string) *cfbtest.Node {
	s := msgStorage{unicode: map[uint16]string{0x3001: name, 0x39FE: smtp}, long: map[uint16]uint32{0x0C15: typ}}
	return &cfbtest.Node{Name: "", Storage: true, Children: s.nodes(8)}
}

// melaRTF wraps RTF as an uncompressed PidTagRtfCompressed value.
func melaRTF(rtf string) []byte {
	b := make([]byte, 16+len(rtf))
	binary.LittleEndian.PutUint32(b[0:], uint32(len(rtf)+12))
	binary.LittleEndian.PutUint32(b[4:], uint32(len(rtf)))
	copy(b[8:], "MELA")
	copy(b[16:], rtf)
	return b
}

// synthMSG builds an Outlook message: 8-bit strings in code page 1252, recipients of the three
// kinds, an HTML body only as compressed RTF, and a text attachment.
func synthMSG() []byte {
	top := msgStorage{
		ansi: map[uint16][]byte{
			0x0037: []byte("R\xe9sum\xe9 of the week"), // subject, cp1252
			0x0C1A: []byte("Zo\xeb Example"),
			0x5D01: []byte("zoe@example.com"),
			0x1035: []byte("<id-42@example.com>"),
		},
		binary: map[uint16][]byte{
			0x1009: melaRTF("{\\rtf1\\ansi\\ansicpg1252\\fromhtml1 {\\*\\htmltag19 <html>}{\\*\\htmltag50 <body>}" +
				"{\\*\\htmltag64 <p>}\\htmlrtf {\\htmlrtf0 The quarterly figures are attached for your review.\\htmlrtf }\\htmlrtf0 {\\*\\htmltag72 </p>}" +
				"{\\*\\htmltag64 <p>}\\htmlrtf {\\htmlrtf0 Caf\\'e9 meeting moved to Friday at noon.\\htmlrtf }\\htmlrtf0 {\\*\\htmltag72 </p>}" +
				"{\\*\\htmltag58 </body>}{\\*\\htmltag27 </html>}}"),
		},
		unicode: map[uint16]string{0x1000: "plain fallback body that must not be used"},
		long:    map[uint16]uint32{0x3FFD: 1252},
	}
	kids := top.nodes(32)
	for i, r := range []*cfbtest.Node{
		recip(1, "Ann", "ann@example.com"),
		recip(2, "Bob", "bob@example.com"),
		recip(3, "Cy", "cy@example.com"),
	} {
		r.Name = fmt.Sprintf("__recip_version1.0_#%08X", i)
		kids = append(kids, r)
	}
	att := msgStorage{
		unicode: map[uint16]string{0x3707: "notes.txt", 0x370E: "text/plain"},
		binary:  map[uint16][]byte{0x3701: []byte("The attachment explains the figures in detail.\n")},
		long:    map[uint16]uint32{0x3705: 1},
	}
	kids = append(kids, &cfbtest.Node{Name: "__attach_version1.0_#00000000", Storage: true, Children: att.nodes(8)})
	kids = append(kids, &cfbtest.Node{Name: "__nameid_version1.0", Storage: true})
	return cfbtest.Build(kids)
}

func TestSynthesizedMSG(t *testing.T) {
	data := synthMSG()
	if ft := engine.Detect(engine.NewDocument("x.msg", data), ""); ft.MIME != email.MIMEMSG {
		t.Fatalf("detected as %s", ft.MIME)
	}
	m, err := email.ReadMSG(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if m.Subject != "Résumé of the week" || m.MessageID != "id-42@example.com" {
		t.Errorf("subject %q, id %q", m.Subject, m.MessageID)
	}
	if fmt.Sprint(m.From, m.To, m.Cc, m.Bcc) != "[Zoë Example <zoe@example.com>] [ann@example.com] [bob@example.com] [cy@example.com]" {
		t.Errorf("addresses %v %v %v %v", m.From, m.To, m.Cc, m.Bcc)
	}
	if !m.HasHTML {
		t.Fatalf("HTML not recovered from RTF; text=%q", m.Text)
	}
	out := partition(t, "weekly.msg", data, engine.DefaultOptions())
	var texts []string
	for _, e := range out {
		texts = append(texts, string(e.Type)+":"+e.Text)
	}
	want := "[NarrativeText:The quarterly figures are attached for your review. NarrativeText:Café meeting moved to Friday at noon. NarrativeText:The attachment explains the figures in detail.]"
	if fmt.Sprint(texts) != want {
		t.Fatalf("got  %v\nwant %s", texts, want)
	}
	att := out[2]
	if att.Metadata.AttachedToFilename != "weekly.msg" || att.Metadata.Filetype != "text/plain" ||
		att.Metadata.Subject != "Résumé of the week" || fmt.Sprint(att.Metadata.CcRecipient) != "[bob@example.com]" {
		t.Errorf("attachment metadata %+v", att.Metadata)
	}
	for _, e := range out[:2] {
		if e.Metadata.Filetype != email.MIMEMSG || e.Metadata.AttachedToFilename != "" {
			t.Errorf("body metadata %+v", e.Metadata)
		}
	}
}

func TestSynthesizedMSGTruncations(t *testing.T) {
	data := synthMSG()
	for n := 0; n < len(data); n += 61 {
		doc := engine.NewDocument("t.msg", data[:n])
		doc.MIMEType = email.MIMEMSG
		opts := engine.DefaultOptions()
		_ = email.PartitionMSG(context.Background(), doc, opts.Keys(), func(element.Element) error { return nil })
	}
}
