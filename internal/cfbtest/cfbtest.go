// Package cfbtest writes small compound files ([MS-CFB] version 3) for test fixtures: Outlook
// messages, legacy Office containers. Streams under 4096 bytes go to the mini stream, others to
// regular sectors; siblings form a right-leaning chain. It is test support, not a general
// writer: no red-black balancing, no version 4 sectors.
package cfbtest

import (
	"encoding/binary"
	"sort"
	"unicode/utf16"
)

// A Node is a stream or (Storage set) a storage of a compound file built by Build.
type Node struct {
	Name     string
	Data     []byte
	Children []*Node
	Storage  bool
}

const (
	cfbEnd  = 0xFFFFFFFE
	cfbFree = 0xFFFFFFFF
	cfbFAT  = 0xFFFFFFFD
	cfbNone = 0xFFFFFFFF
)

// Build writes a compound file whose root holds children.
func Build(children []*Node) []byte {
	root := &Node{Name: "Root Entry", Storage: true, Children: children}
	// Flatten in directory order: root first, then depth-first.
	var nodes []*Node
	var walk func(n *Node)
	walk = func(n *Node) {
		nodes = append(nodes, n)
		sort.Slice(n.Children, func(i, j int) bool { return n.Children[i].Name < n.Children[j].Name })
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(root)
	index := map[*Node]int{}
	for i, n := range nodes {
		index[n] = i
	}

	// Mini stream and big streams.
	var mini []byte
	var miniFAT []uint32
	start := make([]uint32, len(nodes))
	type big struct {
		node *Node
		data []byte
	}
	var bigs []big
	for i, n := range nodes {
		start[i] = cfbEnd
		if n.Storage || len(n.Data) == 0 {
			continue
		}
		if len(n.Data) < 4096 {
			first := uint32(len(mini) / 64)
			start[i] = first
			sectors := (len(n.Data) + 63) / 64
			for k := 0; k < sectors; k++ {
				next := uint32(cfbEnd)
				if k < sectors-1 {
					next = first + uint32(k) + 1
				}
				miniFAT = append(miniFAT, next)
			}
			buf := make([]byte, sectors*64)
			copy(buf, n.Data)
			mini = append(mini, buf...)
		} else {
			bigs = append(bigs, big{n, n.Data})
		}
	}
	sectorsOf := func(n int) int { return (n + 511) / 512 }
	dirSectors := sectorsOf(len(nodes) * 128)
	miniFATSectors := sectorsOf(len(miniFAT) * 4)
	miniSectors := sectorsOf(len(mini))
	bigSectors := 0
	for _, b := range bigs {
		bigSectors += sectorsOf(len(b.data))
	}
	other := dirSectors + miniFATSectors + miniSectors + bigSectors
	fatSectors := 1
	for (fatSectors+other+127)/128 > fatSectors {
		fatSectors++
	}
	total := fatSectors + other
	fat := make([]uint32, fatSectors*128)
	for i := range fat {
		fat[i] = cfbFree
	}
	next := 0
	chain := func(n int) uint32 {
		if n == 0 {
			return cfbEnd
		}
		first := next
		for k := 0; k < n; k++ {
			if k < n-1 {
				fat[next] = uint32(next + 1)
			} else {
				fat[next] = cfbEnd
			}
			next++
		}
		return uint32(first)
	}
	for k := 0; k < fatSectors; k++ {
		fat[next] = cfbFAT
		next++
	}
	dirStart := chain(dirSectors)
	miniFATStart := chain(miniFATSectors)
	miniStart := chain(miniSectors)
	for _, b := range bigs {
		start[index[b.node]] = chain(sectorsOf(len(b.data)))
	}

	out := make([]byte, 512+total*512)
	h := out[:512]
	copy(h, []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1})
	binary.LittleEndian.PutUint16(h[24:], 0x3E)
	binary.LittleEndian.PutUint16(h[26:], 3)
	binary.LittleEndian.PutUint16(h[28:], 0xFFFE)
	binary.LittleEndian.PutUint16(h[30:], 9)
	binary.LittleEndian.PutUint16(h[32:], 6)
	binary.LittleEndian.PutUint32(h[44:], uint32(fatSectors))
	binary.LittleEndian.PutUint32(h[48:], dirStart)
	binary.LittleEndian.PutUint32(h[56:], 4096)
	binary.LittleEndian.PutUint32(h[60:], miniFATStart)
	binary.LittleEndian.PutUint32(h[64:], uint32(miniFATSectors))
	binary.LittleEndian.PutUint32(h[68:], cfbEnd)
	for i := 0; i < 109; i++ {
		v := uint32(cfbFree)
		if i < fatSectors {
			v = uint32(i)
		}
		binary.LittleEndian.PutUint32(h[76+4*i:], v)
	}
	sector := func(n uint32) []byte { return out[512+int(n)*512:] }
	for i, v := range fat {
		binary.LittleEndian.PutUint32(sector(uint32(i / 128))[4*(i%128):], v)
	}
	// Directory.
	dir := sector(dirStart)
	for i := 0; i < dirSectors*4; i++ {
		e := dir[i*128 : (i+1)*128]
		binary.LittleEndian.PutUint32(e[68:], cfbNone)
		binary.LittleEndian.PutUint32(e[72:], cfbNone)
		binary.LittleEndian.PutUint32(e[76:], cfbNone)
	}
	for i, n := range nodes {
		e := dir[i*128 : (i+1)*128]
		name := utf16.Encode([]rune(n.Name))
		for k, u := range name {
			binary.LittleEndian.PutUint16(e[2*k:], u)
		}
		binary.LittleEndian.PutUint16(e[64:], uint16(2*(len(name)+1)))
		switch {
		case i == 0:
			e[66] = 5
		case n.Storage:
			e[66] = 1
		default:
			e[66] = 2
		}
		e[67] = 1
		if len(n.Children) > 0 {
			binary.LittleEndian.PutUint32(e[76:], uint32(index[n.Children[0]]))
			for k := 0; k+1 < len(n.Children); k++ {
				c := dir[index[n.Children[k]]*128:]
				binary.LittleEndian.PutUint32(c[72:], uint32(index[n.Children[k+1]]))
			}
		}
		if i == 0 {
			binary.LittleEndian.PutUint32(e[116:], miniStart)
			binary.LittleEndian.PutUint32(e[120:], uint32(len(mini)))
		} else if !n.Storage {
			binary.LittleEndian.PutUint32(e[116:], start[i])
			binary.LittleEndian.PutUint32(e[120:], uint32(len(n.Data)))
		}
	}
	if miniFATSectors > 0 {
		mf := sector(miniFATStart)
		for i := 0; i < miniFATSectors*128; i++ {
			v := uint32(cfbFree)
			if i < len(miniFAT) {
				v = miniFAT[i]
			}
			binary.LittleEndian.PutUint32(mf[4*i:], v)
		}
	}
	if miniSectors > 0 {
		copy(sector(miniStart), mini)
	}
	for _, b := range bigs {
		copy(sector(start[index[b.node]]), b.data)
	}
	return out
}
