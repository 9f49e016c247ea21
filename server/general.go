package server

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/quarrydocs/quarry/api/partitionapi"
	"github.com/quarrydocs/quarry/api/schema"
	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
)

const (
	detailGetNotAllowed = "Only POST requests are supported."
	detailOverloaded    = "Server is under heavy load. Please try again later."
	detailBadBody       = "There was an error parsing the body"
)

// handleGeneral is the partition endpoint. The checks run in the reference server's order
// (partition-api.md §3), so the same request gets the same error.
func (s *Server) handleGeneral(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodPost:
	case http.MethodGet, http.MethodHead:
		writeDetail(w, http.StatusMethodNotAllowed, detailGetNotAllowed)
		return
	default:
		methodNotAllowed(w, "GET, POST")
		return
	}
	info := infoFrom(r.Context())

	// A multipart POST needs no CORS preflight, so any web page the operator visits could make
	// a keyless server (or a keyed one, if the page knows the key) partition whatever it sends:
	// its CPU, its converters, its slots. No answer is readable cross-origin (no CORS headers),
	// so refusing browsers' cross-site requests costs no legitimate client; the SDKs send no
	// Origin or Sec-Fetch-Site and are unaffected.
	if err := s.csrf.Check(r); err != nil {
		writeDetail(w, http.StatusForbidden, "Cross-origin request refused")
		return
	}

	// The key is checked first, before a slot is taken or a byte of the body read: a client
	// without a key must not be able to hold slots (slow uploads) from those with one. The
	// reference checks schema first; here an unauthenticated request learns nothing else.
	if status, msg := s.partitionKeys.Deny(s.cfg.AuthLimiter, w, r); status != 0 {
		writeDetail(w, status, msg)
		return
	}

	// One key may not take every slot (and the queue) from the others.
	keyRelease, ok := s.takeKeySlot(r)
	if !ok {
		w.Header().Set("Retry-After", s.retryAfter())
		writeDetail(w, http.StatusTooManyRequests, fmt.Sprintf("This API key already has %d requests in progress, the limit of this server; retry when one has finished", s.cfg.MaxConcurrentPerKey))
		return
	}
	defer keyRelease()

	// The slot is taken before the body is read, so memory held by uploads is bounded by
	// MaxConcurrent × MaxBodyBytes whatever the number of clients.
	release, ok := s.limit.acquire(r.Context())
	if !ok {
		s.metrics.rejected.Inc()
		w.Header().Set("Retry-After", s.retryAfter())
		writeDetail(w, http.StatusServiceUnavailable, detailOverloaded)
		return
	}
	defer release()
	s.metrics.inFlight.Inc()
	defer s.metrics.inFlight.Dec()

	r.Body = http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes)
	form, uploads, fieldErrs, err := readForm(r, s.spools)
	defer closeUploads(uploads)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeDetail(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("Request body is larger than the limit of %d bytes.", s.cfg.MaxBodyBytes))
			return
		}
		var limit *formLimitError
		if errors.As(err, &limit) {
			writeDetail(w, http.StatusBadRequest, limit.msg)
			return
		}
		var stored *spoolError
		if errors.As(err, &stored) {
			s.log.Error("upload not stored", "err", err)
			writeDetail(w, http.StatusInternalServerError, "The upload could not be stored on the server")
			return
		}
		writeDetail(w, http.StatusBadRequest, detailBadBody)
		return
	}

	// 1. Schema validation: every bad field, then a missing files part, in one 422.
	splitCommaLists(form)
	opts, err := partitionapi.OptionsFromForm(form)
	var verr *schema.ValidationError
	if err != nil && !errors.As(err, &verr) {
		info.errDetail = err.Error()
		writeDetail(w, http.StatusInternalServerError, clientDetail(http.StatusInternalServerError, err.Error()))
		return
	}
	var schemaErrs []schema.FieldError
	if verr != nil {
		schemaErrs = append(schemaErrs, verr.Errors...)
	}
	schemaErrs = append(schemaErrs, fieldErrs...)
	if len(uploads) == 0 && len(fieldErrs) == 0 {
		schemaErrs = append(schemaErrs, schema.FieldError{Type: "missing", Loc: []string{"body", "files"}, Msg: "Field required", Input: nil})
	}
	if len(schemaErrs) > 0 {
		writeJSON(w, http.StatusUnprocessableEntity, detailBody(schemaErrs))
		return
	}

	// 3. Accept conflicts for several files.
	accept := r.Header.Get("Accept")
	if len(uploads) > 1 && accept != "" && !acceptable(accept) {
		writeDetail(w, http.StatusNotAcceptable, fmt.Sprintf("Conflict in media type %s with response type 'multipart/mixed'.\n", accept))
		return
	}
	info.files = len(uploads)

	ctx := r.Context()
	if s.cfg.RequestTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, s.cfg.RequestTimeout, errRequestTimeout)
		defer cancel()
	}
	opts.Logger = s.log.With("request_id", info.id)
	opts.InProcess = s.cfg.InProcess
	// One element budget for the whole request: each document gets what the ones before it
	// left. A per-document cap alone let ten 300 KB texts (or 1 KB gzips of them) of 99,000
	// lines each hold 2 GB of elements in one request.
	budget := max(s.cfg.MaxElements, 0)
	used := 0

	results := make([][]element.Element, len(uploads))
	for i, up := range uploads {
		o := opts
		if budget > 0 {
			o.MaxElements = budget - used
		}
		elems, status, detail, over := s.partitionUpload(ctx, up, o)
		if status == 0 && budget > 0 && used+len(elems) > budget {
			status, over = http.StatusUnprocessableEntity, true
		}
		if over && (i > 0 || detail == "") {
			detail = fmt.Sprintf("The documents of this request produce more than %d elements, the limit of this server; send fewer documents per request", budget)
		}
		if status != 0 {
			if errors.Is(context.Cause(ctx), errRequestTimeout) {
				status, detail = http.StatusGatewayTimeout, fmt.Sprintf("Partitioning did not finish within %s.", s.cfg.RequestTimeout)
			} else if r.Context().Err() != nil {
				info.clientGone = true
			}
			info.errDetail = detail // the log keeps the whole message
			s.metrics.partitionErrors.WithLabelValues(strconv.Itoa(status)).Inc()
			if status == http.StatusServiceUnavailable {
				w.Header().Set("Retry-After", s.retryAfter())
			}
			writeDetail(w, status, clientDetail(status, detail))
			return
		}
		results[i] = elems
		used += len(elems)
		info.elements += len(elems)
	}

	body, contentType, err := answer(results, opts.OutputFormat, accept, int(max(s.cfg.MaxResponseBytes, 0)), element.CSVOptions{EscapeFormulas: s.cfg.CSVEscapeFormulas})
	if err != nil {
		detail := fmt.Sprintf("The answer would be larger than %d bytes, the limit of this server; send fewer or smaller documents, or chunk with a larger max_characters", s.cfg.MaxResponseBytes)
		info.errDetail = detail
		s.metrics.partitionErrors.WithLabelValues(strconv.Itoa(http.StatusUnprocessableEntity)).Inc()
		writeDetail(w, http.StatusUnprocessableEntity, detail)
		return
	}
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	w.Write(body)
}

// answer encodes the results as the client asked (JSON, CSV, multipart/mixed), failing with
// element.ErrTooLarge as soon as the encoding passes limit bytes (limit <= 0: no limit).
func answer(results [][]element.Element, format, accept string, limit int, co element.CSVOptions) ([]byte, string, error) {
	csv := format == "text/csv"
	encode := func(elems []element.Element, limit int) ([]byte, error) {
		if csv {
			return element.MarshalCSVWith(elems, limit, co)
		}
		return element.MarshalListLimit(elems, limit)
	}
	// left is what remains of limit after n bytes (never 0, which would mean no limit).
	left := func(n int) int {
		if limit <= 0 {
			return 0
		}
		if n >= limit {
			return -1
		}
		return limit - n
	}
	if wantsMultipart(accept) {
		return writeMultipart(results, format, encode, left)
	}
	switch {
	case csv && len(results) == 1, len(results) == 1:
		b, err := encode(results[0], limit)
		if err != nil {
			return nil, "", err
		}
		if csv {
			return b, "text/csv; charset=utf-8", nil
		}
		return b, "application/json", nil
	case csv:
		b, err := mergeCSV(results, limit, co)
		return b, "text/csv; charset=utf-8", err
	}
	var b bytes.Buffer
	b.WriteByte('[')
	for i, elems := range results {
		if i > 0 {
			b.WriteByte(',')
		}
		lim := left(b.Len())
		if lim < 0 {
			return nil, "", element.ErrTooLarge
		}
		part, err := element.MarshalListLimit(elems, lim)
		if err != nil {
			return nil, "", err
		}
		b.Write(part)
	}
	b.WriteByte(']')
	return b.Bytes(), "application/json", nil
}

var errRequestTimeout = errors.New("request timeout")

// retryAfter is the Retry-After header value (whole seconds, at least 1).
func (s *Server) retryAfter() string {
	return strconv.Itoa(max(1, int(s.cfg.RetryAfter.Round(time.Second)/time.Second)))
}

// partitionUpload runs one file through gzip handling, the .msg MIME override and the engine.
// A non-zero status means failure with that status and detail; over reports that the failure
// is the element budget's.
func (s *Server) partitionUpload(ctx context.Context, up upload, opts engine.Options) (elems []element.Element, status int, detail string, over bool) {
	name, ctype, body := up.filename, up.contentType, up.body
	if ctype == "application/gzip" || ctype == "application/x-gzip" || strings.HasSuffix(name, ".gz") {
		raw, err := gunzip(body, s.cfg.MaxBodyBytes, s.spools)
		if err != nil {
			var stored *spoolError
			if errors.As(err, &stored) {
				return nil, http.StatusInternalServerError, "The decompressed upload could not be stored on the server", false
			}
			if errors.Is(err, errTooLarge) {
				return nil, http.StatusRequestEntityTooLarge, fmt.Sprintf("Decompressed file is larger than the limit of %d bytes.", s.cfg.MaxBodyBytes), false
			}
			// A damaged gzip is the client's problem: 400 (the reference answers 500).
			return nil, http.StatusBadRequest, err.Error(), false
		}
		defer raw.close()
		body = raw
		name = strings.TrimSuffix(name, ".gz")
		ctype = opts.GzUncompressedContentType
		if ctype == "" {
			ctype = guessMIME(name)
		}
	}
	if strings.HasSuffix(name, ".msg") {
		// The reference forces this for .msg files because clients label them badly.
		opts.ContentType = "application/x-ole-storage"
	}
	// A large upload is its temporary file: the PDF precheck and the strategy read it from
	// there, and a plugin process opens it by path.
	content, size := body.content()
	doc := &engine.Document{Filename: name, Content: content, Size: size}
	doc.ContentType = ctype
	start := time.Now()
	elems, err := engine.Partition(ctx, doc, opts)
	ftype := filetypeLabel(doc.MIMEType)
	s.metrics.partitionSeconds.WithLabelValues(ftype).Observe(time.Since(start).Seconds())
	if err != nil {
		status, detail := errorStatus(err)
		return nil, status, detail, errors.Is(err, engine.ErrTooManyElements)
	}
	s.metrics.documents.WithLabelValues(ftype).Inc()
	for i := range elems {
		s.metrics.elements.WithLabelValues(elementLabel(elems[i].Type)).Inc()
	}
	return elems, 0, "", false
}

// absPath is an absolute file path in a message: two or more segments after a space, a quote,
// a bracket, '=' or ':' (a URL's "//host/..." does not match: its first segment is empty).
var absPath = regexp.MustCompile(`(^|[\s"'(\[=:])(/[\w.@+~-]+)+/([\w.@+~-]+)`)

// clientDetail is the detail a client gets for a failure. A server-side failure (5xx) can name
// the server's files — a plugin's path, a temporary file, a converter's working directory —
// which tell a client how the machine is laid out; those keep only their last segment (the
// access log keeps the whole message). Client errors (4xx) are written for the client and
// stay as they are.
func clientDetail(status int, detail string) string {
	if status < 500 {
		return detail
	}
	return absPath.ReplaceAllString(detail, "${1}…/${3}")
}

// errorStatus maps an engine error to the reference's status code and detail text.
func errorStatus(err error) (int, string) {
	var ee *engine.Error
	if errors.As(err, &ee) {
		switch ee.Kind {
		case engine.KindUnsupported, engine.KindBadRequest:
			return http.StatusBadRequest, ee.Msg
		case engine.KindUnprocessable:
			return http.StatusUnprocessableEntity, ee.Msg
		case engine.KindUnavailable:
			return http.StatusServiceUnavailable, ee.Msg
		}
		return http.StatusInternalServerError, ee.Msg
	}
	var verr *schema.ValidationError
	if errors.As(err, &verr) {
		return http.StatusBadRequest, verr.Error()
	}
	return http.StatusInternalServerError, err.Error()
}

var errTooLarge = errors.New("decompressed data too large")

// gunzip decompresses every gzip member of the upload into a spool, refusing output beyond
// limit (a small upload can expand a thousandfold). Messages mirror Python's gzip module, as
// the reference's 500 detail does.
func gunzip(in *spool, limit int64, dir *spoolDir) (*spool, error) {
	zr, err := gzip.NewReader(in.reader())
	if err != nil {
		if errors.Is(err, gzip.ErrHeader) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			magic := make([]byte, min(2, in.size))
			_, _ = io.ReadFull(in.reader(), magic)
			if !bytes.Equal(magic, []byte{0x1f, 0x8b}) {
				//lint:ignore ST1005 the reference's detail text (Python gzip messages)
				return nil, fmt.Errorf("Not a gzipped file (%s)", pyBytesRepr(magic))
			}
			//lint:ignore ST1005 the reference's detail text (Python gzip messages)
			return nil, errors.New("Compressed file ended before the end-of-stream marker was reached")
		}
		return nil, err
	}
	out, err := newSpool(zr, limit, dir)
	switch {
	case err == nil:
		return out, nil
	case errors.Is(err, errTooLarge):
		return nil, errTooLarge
	case errors.Is(err, io.ErrUnexpectedEOF):
		//lint:ignore ST1005 the reference's detail text (Python gzip messages)
		return nil, errors.New("Compressed file ended before the end-of-stream marker was reached")
	case errors.Is(err, gzip.ErrChecksum):
		return nil, errors.New("CRC check failed")
	case errors.Is(err, gzip.ErrHeader):
		//lint:ignore ST1005 the reference's detail text (Python gzip messages)
		return nil, errors.New("Not a gzipped file")
	}
	return nil, err
}

// pyBytesRepr renders b as Python's bytes repr (b'\x00a'), as the reference's gzip error does.
func pyBytesRepr(b []byte) string {
	var sb strings.Builder
	sb.WriteString("b'")
	for _, c := range b {
		switch {
		case c == '\\' || c == '\'':
			sb.WriteByte('\\')
			sb.WriteByte(c)
		case c == '\t':
			sb.WriteString(`\t`)
		case c == '\n':
			sb.WriteString(`\n`)
		case c == '\r':
			sb.WriteString(`\r`)
		case c >= 0x20 && c < 0x7f:
			sb.WriteByte(c)
		default:
			fmt.Fprintf(&sb, `\x%02x`, c)
		}
	}
	sb.WriteByte('\'')
	return sb.String()
}

// guessMIME guesses a MIME type from a file name as the reference does for gzip content; ""
// leaves the decision to byte sniffing.
func guessMIME(name string) string {
	if t, ok := engine.TypeForExtension(name); ok && t.MIME != "" {
		return t.MIME
	}
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		if m := mime.TypeByExtension(name[i:]); m != "" {
			return strings.TrimSpace(strings.SplitN(m, ";", 2)[0])
		}
	}
	return ""
}

// writeMultipart encodes the reference's multipart/mixed answer: one part per file, each the
// base64 of that file's JSON (or CSV) text. Unlike the reference it ends with the closing
// delimiter, so standard multipart readers accept it.
func writeMultipart(results [][]element.Element, format string, encode func([]element.Element, int) ([]byte, error), left func(int) int) ([]byte, string, error) {
	var rnd [16]byte
	rand.Read(rnd[:])
	boundary := hex.EncodeToString(rnd[:])
	var b bytes.Buffer
	for _, elems := range results {
		lim := left(b.Len())
		if lim < 0 {
			return nil, "", element.ErrTooLarge
		}
		if lim > 0 {
			lim = max(lim/4*3, 1) // base64 grows the payload by a third
		}
		payload, err := encode(elems, lim)
		if err != nil {
			return nil, "", err
		}
		enc := base64.StdEncoding.EncodeToString(payload)
		fmt.Fprintf(&b, "--%s\r\nContent-Length: %d\r\nContent-Transfer-Encoding: base64\r\nContent-Type: %s\r\n\r\n%s\r\n",
			boundary, len(enc), format, enc)
	}
	fmt.Fprintf(&b, "--%s--\r\n", boundary)
	return b.Bytes(), `multipart/mixed; boundary="` + boundary + `"`, nil
}
