// Package element holds Quarry's document model: the typed elements a partition produces, their
// metadata, and the encodings the reference system uses for them (JSON, CSV, element IDs and the
// compressed orig_elements of chunks). It depends on the standard library only.
package element

// Type is an element's category, serialized as the JSON "type" value.
type Type string

// Types produced by partitioners (reference partition-api.md §6.2).
const (
	Title             Type = "Title"
	NarrativeText     Type = "NarrativeText"
	ListItem          Type = "ListItem"
	UncategorizedText Type = "UncategorizedText"
	Table             Type = "Table"
	Image             Type = "Image"
	FigureCaption     Type = "FigureCaption"
	Header            Type = "Header"
	Footer            Type = "Footer"
	PageBreak         Type = "PageBreak"
	Formula           Type = "Formula"
	Address           Type = "Address"
	EmailAddress      Type = "EmailAddress"
	CodeSnippet       Type = "CodeSnippet"
	PageNumber        Type = "PageNumber"
	FormKeysValues    Type = "FormKeysValues"
	DocumentData      Type = "DocumentData"
	CheckBox          Type = "CheckBox"
	Form              Type = "Form"
)

// Types produced only by chunking.
const (
	CompositeElement Type = "CompositeElement"
	TableChunk       Type = "TableChunk"
)

// Element is one typed piece of a document.
type Element struct {
	Type     Type
	ID       string
	Text     string
	Metadata Metadata
	// Checked is set for CheckBox elements only.
	Checked *bool
	// Embeddings is set only when an embedding was attached (never by partitioning).
	Embeddings []float64
}

// Point is an [x, y] pair in a coordinate system.
type Point [2]float64

// Coordinates locate an element on its page (PDFs and images).
type Coordinates struct {
	// Points are top-left, bottom-left, bottom-right, top-right; origin top-left, y downwards.
	Points       []Point
	System       string
	LayoutWidth  float64
	LayoutHeight float64
}

// Link is one hyperlink inside an element's text.
type Link struct {
	Text       string
	URL        string
	StartIndex int
}

// Metadata carries everything the reference system attaches to an element. Zero values are
// "absent" and are omitted when serialized; fields where zero is meaningful are pointers.
type Metadata struct {
	Filename                 string
	Filetype                 string
	FileDirectory            string
	LastModified             string
	URL                      string
	Languages                []string
	PageNumber               *int
	PageName                 string
	ParentID                 string
	CategoryDepth            *int
	Coordinates              *Coordinates
	TextAsHTML               string
	TableExtractionMethod    string
	IsExtracted              string
	DetectionClassProb       *float64
	ImageBase64              string
	ImageMIMEType            string
	ImageURL                 string
	ImagePath                string
	LinkTexts                []string
	LinkURLs                 []string
	LinkStartIndexes         []int
	Links                    []Link
	EmphasizedTextContents   []string
	EmphasizedTextTags       []string
	HeaderFooterType         string
	SentFrom                 []string
	SentTo                   []string
	CcRecipient              []string
	BccRecipient             []string
	Subject                  string
	EmailMessageID           string
	Signature                string
	AttachedToFilename       string
	IsContinuation           bool
	TableID                  string
	ChunkIndex               *int
	NumCarriedOverHeaderRows *int
	// OrigElements are a chunk's source elements; serialized with the §6.6 codec.
	OrigElements []Element
	// Extra holds metadata keys Quarry has no field for (table_as_cells, data_source,
	// key_value_pairs, …) as raw JSON, so they survive a round trip unchanged.
	Extra map[string][]byte
}

// Int returns a pointer to n, for the optional integer metadata fields.
func Int(n int) *int { return &n }

// Float returns a pointer to f, for the optional float metadata fields.
func Float(f float64) *float64 { return &f }
