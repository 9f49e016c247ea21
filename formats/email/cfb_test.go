package email_test

import (
	"encoding/binary"
	"sort"
	"unicode/utf16"

	"github.com/quarrydocs/quarry/internal/cfbtest"
)

// msgStorage builds the streams of one MAPI property storage: strings and binaries as
// __substg1.0 streams, PT_LONG values in __properties_version1.0 after a header of hdr bytes.
type msgStorage struct {
	unicode map[uint16]string
	ansi    map[uint16][]byte
	binary  map[uint16][]byte
	long    map[uint16]uint32
	// fixed holds other fixed-size values (PT_SYSTIME, PT_DOUBLE…) by ID.
	fixed map[uint16]fixedValue
	// empty maps string properties written as empty streams (as Outlook writes them) to
	// their type (PT_UNICODE or PT_STRING8).
	empty map[uint16]uint16
}

type fixedValue struct {
	typ uint16
	raw uint64
}

func (s msgStorage) nodes(hdr int) []*cfbtest.Node {
	var out []*cfbtest.Node
	for id, v := range s.unicode {
		u := utf16.Encode([]rune(v))
		b := make([]byte, 2*len(u)+2)
		for i, c := range u {
			binary.LittleEndian.PutUint16(b[2*i:], c)
		}
		out = append(out, &cfbtest.Node{Name: propStream(id, 0x001F), Data: b})
	}
	for id, v := range s.ansi {
		out = append(out, &cfbtest.Node{Name: propStream(id, 0x001E), Data: append(append([]byte(nil), v...), 0)})
	}
	for id, v := range s.binary {
		out = append(out, &cfbtest.Node{Name: propStream(id, 0x0102), Data: v})
	}
	for id, typ := range s.empty {
		out = append(out, &cfbtest.Node{Name: propStream(id, typ), Data: []byte{}})
	}
	props := make([]byte, hdr)
	ids := make([]int, 0, len(s.long))
	for id := range s.long {
		ids = append(ids, int(id))
	}
	sort.Ints(ids)
	for _, id := range ids {
		e := make([]byte, 16)
		binary.LittleEndian.PutUint16(e[0:], 0x0003)
		binary.LittleEndian.PutUint16(e[2:], uint16(id))
		binary.LittleEndian.PutUint32(e[4:], 6)
		binary.LittleEndian.PutUint32(e[8:], s.long[uint16(id)])
		props = append(props, e...)
	}
	fids := make([]int, 0, len(s.fixed))
	for id := range s.fixed {
		fids = append(fids, int(id))
	}
	sort.Ints(fids)
	for _, id := range fids {
		v := s.fixed[uint16(id)]
		e := make([]byte, 16)
		binary.LittleEndian.PutUint16(e[0:], v.typ)
		binary.LittleEndian.PutUint16(e[2:], uint16(id))
		binary.LittleEndian.PutUint32(e[4:], 6)
		binary.LittleEndian.PutUint64(e[8:], v.raw)
		props = append(props, e...)
	}
	return append(out, &cfbtest.Node{Name: "__properties_version1.0", Data: props})
}

func propStream(id, typ uint16) string {
	const hex = "0123456789ABCDEF"
	b := []byte("__substg1.0_00000000")
	v := uint32(id)<<16 | uint32(typ)
	for i := 0; i < 8; i++ {
		b[len(b)-1-i] = hex[v>>(4*i)&15]
	}
	return string(b)
}

// nameidStorage writes __nameid_version1.0 mapping numeric named properties (property set
// GUIDs in stored byte order, LIDs) to IDs 0x8000, 0x8001… in the order given.
func nameidStorage(props [][2]any) *cfbtest.Node {
	var guids, entries []byte
	index := map[[16]byte]int{}
	for i, p := range props {
		set, lid := p[0].([16]byte), p[1].(uint32)
		gi, ok := index[set]
		if !ok {
			gi = len(index)
			index[set] = gi
			guids = append(guids, set[:]...)
		}
		e := make([]byte, 8)
		binary.LittleEndian.PutUint32(e[0:], lid)
		binary.LittleEndian.PutUint32(e[4:], uint32(i)<<16|uint32(gi+3)<<1)
		entries = append(entries, e...)
	}
	return &cfbtest.Node{Name: "__nameid_version1.0", Storage: true, Children: []*cfbtest.Node{
		{Name: "__substg1.0_00020102", Data: guids},
		{Name: "__substg1.0_00030102", Data: entries},
		{Name: "__substg1.0_00040102", Data: []byte{}},
	}}
}
