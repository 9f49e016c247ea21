package rpcwire

import (
	"bufio"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sync"
)

// The net/rpc message envelopes: gob matches struct fields by name, so these are the same
// messages as net/rpc's Request and Response.
type request struct {
	ServiceMethod string
	Seq           uint64
}

type response struct {
	ServiceMethod string
	Seq           uint64
	Error         string
}

// method decodes a call's argument and returns the function that answers it. A method whose
// answer may take a while (a partition call's next event) is run on its own goroutine, as
// net/rpc runs every call, so one slow call never blocks the others on the connection.
type method func(dec *gob.Decoder) (answer func() (any, error), err error)

// handle makes a method of f: A is the argument's type, R the reply's.
func handle[A, R any](f func(A) (R, error)) method {
	return func(dec *gob.Decoder) (func() (any, error), error) {
		var a A
		if err := dec.Decode(&a); err != nil {
			return nil, err
		}
		return func() (any, error) { return f(a) }, nil
	}
}

// ErrTooBig is returned for a gob message longer than MaxMessage.
var ErrTooBig = errors.New("rpcwire: message too long")

// serveRPC serves methods on conn until the peer hangs up or sends something malformed; the
// error says which (nil for a clean end of stream). after, when not nil, runs after a
// method's reply is written (Control.Quit exits the process then). It does not wait for the
// calls in progress: the caller cancels them, and their replies then fail on the closed conn.
func serveRPC(conn io.ReadWriteCloser, methods map[string]method, after func(name string)) error {
	defer conn.Close()
	dec := gob.NewDecoder(&frameLimit{r: bufio.NewReader(conn), max: MaxMessage})
	w := bufio.NewWriter(conn)
	out := &replier{w: w, enc: gob.NewEncoder(w)}
	for {
		var req request
		if err := dec.Decode(&req); err != nil {
			if err == io.EOF {
				return nil
			}
			return fmt.Errorf("rpcwire: read request: %w", err)
		}
		m, ok := methods[req.ServiceMethod]
		if !ok {
			// Skip the argument, answer with an error, keep serving (as net/rpc does).
			if err := dec.DecodeValue(reflect.Value{}); err != nil {
				return fmt.Errorf("rpcwire: read argument of %q: %w", req.ServiceMethod, err)
			}
			if err := out.reply(req, nil, "rpcwire: unknown method "+req.ServiceMethod); err != nil {
				return err
			}
			continue
		}
		answer, err := m(dec)
		if err != nil {
			// After a malformed argument the gob stream cannot be trusted: answer, then end.
			_ = out.reply(req, nil, "rpcwire: bad argument: "+err.Error())
			return fmt.Errorf("rpcwire: read argument of %s: %w", req.ServiceMethod, err)
		}
		go func() {
			r, err := answer()
			msg := ""
			if err != nil {
				msg = err.Error()
				if msg == "" {
					msg = "error"
				}
			}
			if out.reply(req, r, msg) != nil {
				conn.Close() // the reader sees the failure and ends the loop
				return
			}
			if after != nil {
				after(req.ServiceMethod)
			}
		}()
	}
}

// replier writes responses; replies of concurrent calls are serialized.
type replier struct {
	mu  sync.Mutex
	w   *bufio.Writer
	enc *gob.Encoder
}

func (r *replier) reply(req request, body any, errMsg string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if errMsg != "" || body == nil {
		body = struct{}{} // net/rpc sends an empty body with an error
	}
	if err := r.enc.Encode(response{ServiceMethod: req.ServiceMethod, Seq: req.Seq, Error: errMsg}); err != nil {
		return fmt.Errorf("rpcwire: write response: %w", err)
	}
	if err := r.enc.Encode(body); err != nil {
		return fmt.Errorf("rpcwire: write reply: %w", err)
	}
	return r.w.Flush()
}

// frameLimit passes a gob stream through, refusing any message longer than max before gob
// allocates room for it. A gob stream is a sequence of messages, each preceded by its length
// as a gob unsigned integer: one byte below 128, else a byte holding the negated count of the
// big-endian bytes that follow.
type frameLimit struct {
	r   *bufio.Reader
	max uint64
	// left is what remains of the current message, its length prefix included.
	left uint64
}

func (f *frameLimit) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if f.left == 0 {
		b, err := f.r.Peek(1)
		if err != nil {
			return 0, err
		}
		n, size := uint64(1), uint64(b[0])
		if b[0] >= 0x80 {
			k := 256 - int(b[0])
			if k > 8 {
				return 0, fmt.Errorf("rpcwire: bad message length prefix %#x", b[0])
			}
			hdr, err := f.r.Peek(1 + k)
			if err != nil {
				if err == io.EOF {
					err = io.ErrUnexpectedEOF
				}
				return 0, err
			}
			size = 0
			for _, c := range hdr[1:] {
				size = size<<8 | uint64(c)
			}
			n = uint64(1 + k)
		}
		if size > f.max {
			return 0, fmt.Errorf("%w: %d bytes (limit %d)", ErrTooBig, size, f.max)
		}
		f.left = n + size
	}
	if uint64(len(p)) > f.left {
		p = p[:f.left]
	}
	m, err := f.r.Read(p)
	f.left -= uint64(m)
	return m, err
}

// ReadByte makes frameLimit an io.ByteReader, so gob reads it directly instead of adding a
// buffer of its own.
func (f *frameLimit) ReadByte() (byte, error) {
	var b [1]byte
	if _, err := io.ReadFull(f, b[:]); err != nil {
		return 0, err
	}
	return b[0], nil
}
