// Package epub partitions EPUB books: the documents of the OPF spine, in reading order, each
// through the HTML partitioner (the reference converts the book to HTML first and applies the
// HTML rules, so the elements are the same kinds).
package epub

import (
	"archive/zip"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"net/url"
	"path"
	"strings"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/formats/html"
)

// MIMEType is the canonical type; AliasMIMEType is the IANA registration.
const (
	MIMEType      = "application/epub"
	AliasMIMEType = "application/epub+zip"
)

// Limits that keep a hostile archive (zip bomb, endless spine) from exhausting memory.
const (
	maxEntryBytes = 64 << 20  // one decompressed content document or package file
	maxTotalBytes = 512 << 20 // all decompressed content documents together
	maxSpineItems = 100000
)

func init() {
	// An EPUB names its type in its "mimetype" member, which detection reads.
	contract.RegisterFormat(contract.Format{Name: "epub", MIME: MIMEType, Aliases: []string{AliasMIMEType},
		Extensions: []string{".epub"}, Container: true, Partitioner: contract.Func(Partition)})
}

// Partition emits the elements of every spine document of the book in doc.
func Partition(ctx context.Context, doc *contract.Document, opts contract.Options, emit contract.Emit) error {
	zr, err := zip.NewReader(doc.Content, doc.Size)
	if err != nil {
		return contract.Errorf(contract.KindUnprocessable, "File is not a valid epub: %v", err)
	}
	b := &book{files: map[string]*zip.File{}}
	for _, f := range zr.File {
		b.files[f.Name] = f
	}
	opfPath, err := b.rootfile()
	if err != nil {
		return err
	}
	items, err := b.spine(opfPath)
	if err != nil {
		return err
	}
	var total int64
	for _, it := range items {
		if err := ctx.Err(); err != nil {
			return err
		}
		f := b.files[it.path]
		if f == nil {
			contract.Logger(ctx).Warn("epub: spine item missing from archive", "path", it.path)
			continue
		}
		data, err := readLimited(f, maxEntryBytes)
		if err != nil {
			return err
		}
		total += int64(len(data))
		if total > maxTotalBytes {
			return contract.Errorf(contract.KindUnprocessable, "epub: content exceeds %d bytes decompressed", maxTotalBytes)
		}
		if it.xhtml {
			data = html.ExpandSelfClosing(data)
		}
		text, err := html.DecodeText(data, "", true)
		if err != nil {
			return fmt.Errorf("epub: %s: %w", it.path, err)
		}
		if err := html.PartitionUTF8(ctx, text, emit); err != nil {
			return fmt.Errorf("epub: %s: %w", it.path, err)
		}
	}
	return nil
}

type book struct {
	files map[string]*zip.File
}

type spineItem struct {
	path  string
	xhtml bool
}

func (b *book) read(name string) ([]byte, error) {
	f := b.files[name]
	if f == nil {
		return nil, contract.Errorf(contract.KindUnprocessable, "File is not a valid epub: %s is missing", name)
	}
	return readLimited(f, maxEntryBytes)
}

func readLimited(f *zip.File, limit int64) ([]byte, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, contract.Errorf(contract.KindUnprocessable, "epub: open %s: %v", f.Name, err)
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, limit+1))
	if err != nil {
		return nil, contract.Errorf(contract.KindUnprocessable, "epub: read %s: %v", f.Name, err)
	}
	if int64(len(data)) > limit {
		return nil, contract.Errorf(contract.KindUnprocessable, "epub: %s exceeds %d bytes decompressed", f.Name, limit)
	}
	return data, nil
}

// rootfile finds the package document named by META-INF/container.xml, or the first .opf
// file when the container is missing.
func (b *book) rootfile() (string, error) {
	data, err := b.read("META-INF/container.xml")
	if err == nil {
		var c struct {
			Rootfiles []struct {
				FullPath  string `xml:"full-path,attr"`
				MediaType string `xml:"media-type,attr"`
			} `xml:"rootfiles>rootfile"`
		}
		if err := xml.Unmarshal(data, &c); err != nil {
			return "", contract.Errorf(contract.KindUnprocessable, "File is not a valid epub: container.xml: %v", err)
		}
		for _, r := range c.Rootfiles {
			if r.FullPath != "" && (r.MediaType == "" || r.MediaType == "application/oebps-package+xml") {
				return r.FullPath, nil
			}
		}
	}
	for name := range b.files {
		if strings.HasSuffix(strings.ToLower(name), ".opf") {
			return name, nil
		}
	}
	return "", contract.Errorf(contract.KindUnprocessable, "File is not a valid epub: no package document")
}

// spine lists the content documents in reading order, with paths resolved inside the archive.
func (b *book) spine(opfPath string) ([]spineItem, error) {
	data, err := b.read(opfPath)
	if err != nil {
		return nil, err
	}
	var pkg struct {
		Items []struct {
			ID        string `xml:"id,attr"`
			Href      string `xml:"href,attr"`
			MediaType string `xml:"media-type,attr"`
		} `xml:"manifest>item"`
		Refs []struct {
			IDRef string `xml:"idref,attr"`
		} `xml:"spine>itemref"`
	}
	if err := xml.Unmarshal(data, &pkg); err != nil {
		return nil, contract.Errorf(contract.KindUnprocessable, "File is not a valid epub: %s: %v", opfPath, err)
	}
	if len(pkg.Refs) > maxSpineItems {
		return nil, contract.Errorf(contract.KindUnprocessable, "epub: spine has %d items (limit %d)", len(pkg.Refs), maxSpineItems)
	}
	type item struct{ href, mediaType string }
	manifest := make(map[string]item, len(pkg.Items))
	for _, it := range pkg.Items {
		manifest[it.ID] = item{it.Href, it.MediaType}
	}
	dir := path.Dir(opfPath)
	var out []spineItem
	for _, ref := range pkg.Refs {
		it, ok := manifest[ref.IDRef]
		if !ok {
			continue
		}
		mt := strings.ToLower(it.mediaType)
		if mt != "application/xhtml+xml" && mt != "text/html" {
			continue
		}
		href := it.href
		if i := strings.IndexByte(href, '#'); i >= 0 {
			href = href[:i]
		}
		if u, err := url.PathUnescape(href); err == nil {
			href = u
		}
		p := path.Clean(path.Join(dir, href))
		if strings.HasPrefix(p, "../") {
			return nil, contract.Errorf(contract.KindUnprocessable, "epub: spine item %q points outside the archive", it.href)
		}
		out = append(out, spineItem{path: p, xhtml: mt == "application/xhtml+xml"})
	}
	if len(out) == 0 && len(pkg.Refs) > 0 {
		return nil, contract.Errorf(contract.KindUnprocessable, "File is not a valid epub: no readable spine documents")
	}
	return out, nil
}
