package xml

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
)

func texts(t *testing.T, data string, opts engine.Options) []string {
	t.Helper()
	var out []string
	err := Partition(context.Background(), engine.NewDocument("a.xml", []byte(data)), opts.Keys(), func(e element.Element) error {
		out = append(out, e.Text)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestLeafTextsInEndOrder(t *testing.T) {
	// Containers (no text of their own around children) give their leaves in end order, then
	// their own text before the first child, as the reference does.
	got := texts(t, `<a><x>outer<b><c>inner</c></b></x><c> </c><!-- c --><d>last</d></a>`, engine.DefaultOptions())
	want := []string{"inner", "outer", "last"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// TestMixedContent: text around inline children is kept whole and in document order.
func TestMixedContent(t *testing.T) {
	cases := []struct{ doc, want string }{
		{`<p><ref>FIG. 1</ref> illustrates the assembly of the bracket.</p>`, `["FIG. 1 illustrates the assembly of the bracket."]`},
		{`<doc><p>See <b>bold</b> and <i>it<sub>2</sub></i> here.</p><p>Plain second.</p></doc>`, `["See bold and it2 here." "Plain second."]`},
		{"<doc>\n <title>Heading</title>\n <sec><p>Intro <ref>[1]</ref>\n continues.</p><note>aside</note></sec>\n</doc>", `["Heading" "Intro [1] continues." "aside"]`},
		{`<claims><claim><claim-text>1. A device comprising: <claim-text>a frame;</claim-text> <claim-text>a lever.</claim-text></claim-text></claim></claims>`, `["1. A device comprising: a frame; a lever."]`},
	}
	for _, c := range cases {
		if got := fmt.Sprintf("%q", texts(t, c.doc, engine.DefaultOptions())); got != c.want {
			t.Errorf("%s\n got %s\nwant %s", c.doc, got, c.want)
		}
	}
}

// TestUnknownEntities: references the parser cannot resolve (an external DTD's, HTML names)
// are kept as text; internal-subset entities are not expanded; CDATA and comments untouched.
func TestUnknownEntities(t *testing.T) {
	doc := `<?xml version="1.0"?>
<!DOCTYPE patent SYSTEM "us-patent-grant-v45.dtd" [ <!ENTITY boom "kaboom"> <!-- a ] " comment --> ]>
<patent>
  <p>Element &lsqb;0012&rsqb; reads &ldquo;as claimed&rdquo; &amp; more&hellip;</p>
  <p>Unknown &madeup; stays &boom; here; a bare & too.</p>
  <p><![CDATA[raw &lsqb; kept]]></p>
  <p attr="a &ldquo;b&rdquo;">caf&eacute; &#233; &#x41;</p>
</patent>`
	got := fmt.Sprintf("%q", texts(t, doc, engine.DefaultOptions()))
	want := `["Element [0012] reads “as claimed” & more…" "Unknown &madeup; stays  here; a bare & too." "raw &lsqb; kept" "café é A"]`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestKeepTags(t *testing.T) {
	opts := engine.DefaultOptions()
	opts.Extra = contract.Options{KeyKeepTags: {"true"}}
	doc := `<a><b>x</b></a>`
	if got := texts(t, doc, opts); len(got) != 1 || got[0] != doc {
		t.Errorf("keep tags: %q", got)
	}
}

func TestMalformedXMLIsAnError(t *testing.T) {
	opts := engine.DefaultOptions()
	err := Partition(context.Background(), engine.NewDocument("a.xml", []byte("<a><b></a>")), opts.Keys(), func(element.Element) error { return nil })
	if err == nil {
		t.Error("mismatched tags accepted")
	}
}

// A document whose only text is in attributes gives their values (namespace declarations
// aside) instead of nothing; one with element text does not add them.
func TestAttributeOnlyDocument(t *testing.T) {
	got := fmt.Sprintf("%q", texts(t, `<rows xmlns="urn:x" xmlns:a="urn:a"><row name="Alpha plant" city="Lyon"/><row name="Beta works" city=" "/></rows>`, engine.DefaultOptions()))
	if want := `["Alpha plant" "Lyon" "Beta works"]`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	got = fmt.Sprintf("%q", texts(t, `<doc id="d1"><p lang="en">Body text.</p></doc>`, engine.DefaultOptions()))
	if want := `["Body text."]`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// TestUndeclaredXMLFiles: a .xml file without an XML declaration is detected as XML when it is
// well formed, so a root with an HTML name (<a>, <p>, <table>, <style>) keeps every leaf text
// apart and a prefixed root is not read as plain text with its tags.
func TestUndeclaredXMLFiles(t *testing.T) {
	cases := map[string][]string{
		"html-named-root.xml":              {"The first paragraph of the record.", "cell one", "cell two", "kept as text", "bold words"},
		"prefixed-root-no-declaration.xml": {"Widget assembly", "12.50"},
		"placemark-no-declaration.kml":     {"Office", "Main office building"},
	}
	for name, want := range cases {
		data, err := os.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		els, err := engine.Partition(context.Background(), engine.NewDocument(name, data), engine.DefaultOptions())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var got []string
		for _, e := range els {
			if e.Metadata.Filetype != MIMEType {
				t.Errorf("%s: filetype %q, want %s", name, e.Metadata.Filetype, MIMEType)
			}
			got = append(got, e.Text)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: got %q, want %q", name, got, want)
		}
	}
}
