package server

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"

	"github.com/quarrydocs/quarry/api/partitionapi"
	"github.com/quarrydocs/quarry/api/schema"
)

// upload is one file part.
type upload struct {
	filename    string
	contentType string // the part's Content-Type without parameters
	body        *spool
}

// closeUploads removes the uploads' temporary files.
func closeUploads(uploads []upload) {
	for _, u := range uploads {
		u.body.close()
	}
}

// readForm reads the request body: text fields (by name, repeated values kept) and the
// "files" parts in upload order. fieldErrs reports "files" fields sent as plain text, as the
// reference's schema does. The body is already capped by MaxBytesReader. Uploads over
// spoolMemory are kept in temporary files: the caller closes them with closeUploads (on an
// error, readForm does).
func readForm(r *http.Request, dir *spoolDir) (form map[string][]string, uploads []upload, fieldErrs []schema.FieldError, err error) {
	// The error returns below drop uploads, so the spools made so far are tracked apart.
	var spooled []upload
	defer func() {
		if err != nil {
			closeUploads(spooled)
		}
	}()
	form = map[string][]string{}
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch mt {
	case "multipart/form-data":
	case "application/x-www-form-urlencoded":
		if err := r.ParseForm(); err != nil {
			return nil, nil, nil, err
		}
		for k, vs := range r.PostForm {
			if strings.TrimSuffix(k, "[]") == "files" {
				for i, v := range vs {
					fieldErrs = append(fieldErrs, notAFile(i, v))
				}
				continue
			}
			form[k] = append(form[k], vs...)
		}
		return form, nil, fieldErrs, nil
	default:
		// Drain so a body over the limit is still reported as such.
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			return nil, nil, nil, err
		}
		return form, nil, nil, nil
	}
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, nil, nil, err
	}
	fileIndex, files, fields := 0, 0, 0
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, nil, err
		}
		name := part.FormName()
		filename, isFile := partFilename(part)
		if isFile {
			files++
		} else {
			fields++
		}
		switch {
		case files > maxFormFiles:
			part.Close()
			return nil, nil, nil, &formLimitError{fmt.Sprintf("Too many files. Maximum number of files is %d.", maxFormFiles)}
		case fields > maxFormFields:
			part.Close()
			return nil, nil, nil, &formLimitError{fmt.Sprintf("Too many fields. Maximum number of fields is %d.", maxFormFields)}
		}
		if isFile && strings.TrimSuffix(name, "[]") == "files" {
			body, err := newSpool(part, 0, dir)
			part.Close()
			if err != nil {
				return nil, nil, nil, err
			}
			up := upload{filename: filename, contentType: baseMIME(part.Header.Get("Content-Type")), body: body}
			spooled = append(spooled, up)
			uploads = append(uploads, up)
			fileIndex++
			continue
		}
		data, err := io.ReadAll(part)
		part.Close()
		if err != nil {
			return nil, nil, nil, err
		}
		if strings.TrimSuffix(name, "[]") != "files" {
			if !isFile && name != "" {
				form[name] = append(form[name], string(data))
			}
			continue
		}
		fieldErrs = append(fieldErrs, notAFile(fileIndex, string(data)))
		fileIndex++
	}
	return form, uploads, fieldErrs, nil
}

// maxFormFiles and maxFormFields are the reference's multipart limits (Starlette's form parser
// defaults, max_files and max_fields). Without them a 17 MB body of 100,000 one-byte files
// held 537 MB and a slot for 36 s; 100 MB of them, 3 GB.
const (
	maxFormFiles  = 1000
	maxFormFields = 1000
)

// formLimitError is a multipart body over maxFormFiles or maxFormFields: 400 with the
// reference's message.
type formLimitError struct{ msg string }

func (e *formLimitError) Error() string { return e.msg }

// notAFile is the reference's schema error for a "files" field that carries text.
func notAFile(i int, v string) schema.FieldError {
	return schema.FieldError{
		Type:  "value_error",
		Loc:   []string{"body", "files", strconv.Itoa(i)},
		Msg:   "Value error, Expected UploadFile, received: <class 'str'>",
		Input: v,
		Ctx:   map[string]any{"error": map[string]any{}},
	}
}

// partFilename reports the part's file name and whether it has one at all: filename="" still
// makes a file part, as in the reference's multipart parser.
func partFilename(p *multipart.Part) (string, bool) {
	_, params, err := mime.ParseMediaType(p.Header.Get("Content-Disposition"))
	if err != nil {
		return "", false
	}
	name, ok := params["filename"]
	if !ok {
		return "", false
	}
	// Keep only the base name, whichever separator the client's OS uses.
	if i := strings.LastIndexAny(name, `/\`); i >= 0 && i < len(name)-1 {
		name = name[i+1:]
	}
	return name, true
}

func baseMIME(ct string) string {
	ct, _, _ = strings.Cut(ct, ";")
	return strings.ToLower(strings.TrimSpace(ct))
}

// mediaRange is one entry of an Accept header.
type mediaRange struct {
	typ string
	q   float64
}

func parseAccept(h string) []mediaRange {
	var out []mediaRange
	for _, item := range strings.Split(h, ",") {
		typ, params, _ := strings.Cut(item, ";")
		typ = strings.ToLower(strings.TrimSpace(typ))
		if typ == "" {
			continue
		}
		q := 1.0
		for _, p := range strings.Split(params, ";") {
			k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
			if ok && strings.TrimSpace(k) == "q" {
				if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
					q = f
				}
			}
		}
		out = append(out, mediaRange{typ, q})
	}
	return out
}

// acceptable is the multi-file Accept rule. The reference compares the whole header with four
// literal values; this accepts those and any header listing one of them (or a wildcard) with
// q > 0, so the SDKs' "application/json;q=1, text/csv;q=0" is not refused.
func acceptable(h string) bool {
	for _, m := range parseAccept(h) {
		if m.q <= 0 {
			continue
		}
		switch m.typ {
		case "*/*", "multipart/mixed", "multipart/*", "application/json", "application/*", "text/csv", "text/*":
			return true
		}
	}
	return false
}

// wantsMultipart reports whether the client prefers multipart/mixed: it is listed with q > 0
// and no other listed type has a higher q.
func wantsMultipart(h string) bool {
	if h == "" {
		return false
	}
	ranges := parseAccept(h)
	best, bestQ := "", 0.0
	for _, m := range ranges {
		if m.q > bestQ {
			best, bestQ = m.typ, m.q
		}
	}
	return best == "multipart/mixed"
}

// listParams are the list-typed partition parameters.
var listParams = func() map[string]bool {
	m := map[string]bool{}
	for _, p := range partitionapi.Params() {
		if p.Kind == partitionapi.List {
			m[p.Name] = true
		}
	}
	return m
}()

// splitCommaLists turns a single comma-joined list value into repeated values. The TypeScript
// SDK sends arrays as one comma-joined field (languages=eng,deu); the reference server means to
// split on commas but never reaches that code, which leaves such clients with one bogus item.
// No list parameter has values that contain commas, so splitting is safe.
func splitCommaLists(form map[string][]string) {
	for k, vs := range form {
		if !listParams[strings.TrimSuffix(k, "[]")] || len(vs) != 1 || !strings.Contains(vs[0], ",") ||
			strings.HasPrefix(strings.TrimSpace(vs[0]), "[") {
			continue
		}
		var items []string
		for _, item := range strings.FieldsFunc(vs[0], func(r rune) bool { return r == ',' || r == '+' }) {
			if item = strings.TrimSpace(item); item != "" {
				items = append(items, item)
			}
		}
		form[k] = items
	}
}
