package p7m

import (
	"bytes"
	"errors"
	"fmt"
)

// A BER reader just large enough for a CMS ContentInfo. encoding/asn1 reads DER only, and
// signing tools write BER: indefinite lengths (OpenSSL's -stream, most smart-card software)
// and the signed content as a constructed OCTET STRING of chunks.

// node is one decoded TLV.
type node struct {
	class       int // 0 universal, 2 context-specific
	tag         int
	constructed bool
	body        []byte // contents octets (for an indefinite length, up to the end-of-contents)
}

const (
	tagInteger     = 2
	tagOctetString = 4
	tagOID         = 6
	tagSequence    = 16
	tagSet         = 17

	// maxDepth bounds nesting of constructed values (indefinite lengths are found by
	// recursion); real structures are a dozen levels deep.
	maxDepth = 64
)

var errBER = errors.New("malformed BER")

// parse reads the TLV at the start of data and returns it with what follows it.
func parse(data []byte, depth int) (node, []byte, error) {
	if depth > maxDepth {
		return node{}, nil, fmt.Errorf("%w: nested too deep", errBER)
	}
	if len(data) < 2 {
		return node{}, nil, fmt.Errorf("%w: truncated", errBER)
	}
	b := data[0]
	n := node{class: int(b >> 6), constructed: b&0x20 != 0, tag: int(b & 0x1f)}
	i := 1
	if n.tag == 0x1f { // high tag number, base 128
		n.tag = 0
		for {
			if i >= len(data) || i > 4 {
				return node{}, nil, fmt.Errorf("%w: bad tag", errBER)
			}
			c := data[i]
			i++
			n.tag = n.tag<<7 | int(c&0x7f)
			if c&0x80 == 0 {
				break
			}
		}
	}
	if i >= len(data) {
		return node{}, nil, fmt.Errorf("%w: truncated", errBER)
	}
	l := int(data[i])
	i++
	switch {
	case l < 0x80:
	case l == 0x80:
		if !n.constructed {
			return node{}, nil, fmt.Errorf("%w: indefinite length on a primitive value", errBER)
		}
		// The contents run to an end-of-contents marker (00 00) at this level.
		rest := data[i:]
		for {
			if len(rest) >= 2 && rest[0] == 0 && rest[1] == 0 {
				n.body = data[i : len(data)-len(rest)]
				return n, rest[2:], nil
			}
			_, r, err := parse(rest, depth+1)
			if err != nil {
				return node{}, nil, err
			}
			rest = r
		}
	default:
		k := l & 0x7f
		if k > 4 || i+k > len(data) {
			return node{}, nil, fmt.Errorf("%w: bad length", errBER)
		}
		l = 0
		for _, c := range data[i : i+k] {
			l = l<<8 | int(c)
		}
		i += k
	}
	if l < 0 || l > len(data)-i {
		return node{}, nil, fmt.Errorf("%w: length past the end", errBER)
	}
	n.body = data[i : i+l]
	return n, data[i+l:], nil
}

// children decodes a constructed value's contents.
func (n node) children(depth int) ([]node, error) {
	if !n.constructed {
		return nil, fmt.Errorf("%w: expected a constructed value", errBER)
	}
	var out []node
	for rest := n.body; len(rest) > 0; {
		c, r, err := parse(rest, depth+1)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
		rest = r
	}
	return out, nil
}

// is reports whether n is the universal type tag.
func (n node) is(tag int) bool { return n.class == 0 && n.tag == tag }

// octets returns an OCTET STRING's value, joining the chunks of a constructed one.
func (n node) octets(depth int) ([]byte, error) {
	if !n.is(tagOctetString) {
		return nil, fmt.Errorf("%w: expected an OCTET STRING", errBER)
	}
	if !n.constructed {
		return n.body, nil
	}
	kids, err := n.children(depth)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	for _, k := range kids {
		v, err := k.octets(depth + 1)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	return b.Bytes(), nil
}
