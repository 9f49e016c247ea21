package pdf

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/md5"
	"crypto/rc4"
	"encoding/binary"
	"errors"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// decrypter implements the standard security handler (ISO 32000-1 §7.6.3) for the files the
// lazy reader opens itself: revisions 2–4 with RC4 or AES-128 (AESV2) and an empty user
// password, which is what "copy-protected" PDFs and many filings use. Anything else (a user
// password, AES-256, public-key handlers) goes to pdfcpu's full reader, which decrypts or
// reports the password error.
type decrypter struct {
	key       []byte
	aesStream bool // streams use AESV2
	aesString bool // strings use AESV2
	identStm  bool // streams are not encrypted (crypt filter Identity)
	identStr  bool
	self      int // the encryption dictionary's object number: never decrypted
}

var passwordPad = []byte{
	0x28, 0xBF, 0x4E, 0x5E, 0x4E, 0x75, 0x8A, 0x41, 0x64, 0x00, 0x4E, 0x56, 0xFF, 0xFA, 0x01, 0x08,
	0x2E, 0x2E, 0x00, 0xB6, 0xD0, 0x68, 0x3E, 0x80, 0x2F, 0x0C, 0xA9, 0xFE, 0x64, 0x53, 0x69, 0x7A,
}

// newDecrypter sets up decryption from the /Encrypt dictionary and the first /ID string, or
// returns errNotLazy when this handler does not apply or the user password is not empty.
func newDecrypter(l *lazyObjects, encRef types.Object, id []byte) (*decrypter, error) {
	ir, ok := encRef.(types.IndirectRef)
	if !ok {
		return nil, errNotLazy
	}
	o, err := l.deref(ir)
	if err != nil {
		return nil, errNotLazy
	}
	enc, ok := o.(types.Dict)
	if !ok || l.name(enc, "Filter") != "Standard" {
		return nil, errNotLazy
	}
	v, _ := intEntry(enc, "V")
	r, _ := intEntry(enc, "R")
	p, okP := intEntry(enc, "P")
	ownerKey, okO := l.stringBytes(enc["O"])
	userKey, okU := l.stringBytes(enc["U"])
	if !okP || !okO || !okU || len(ownerKey) < 32 || len(userKey) < 32 || r < 2 || r > 4 {
		return nil, errNotLazy
	}
	d := &decrypter{self: ir.ObjectNumber.Value()}
	n := 5
	switch v {
	case 1:
	case 2:
		if bits, ok := intEntry(enc, "Length"); ok {
			if bits < 40 || bits > 128 || bits%8 != 0 {
				return nil, errNotLazy
			}
			n = bits / 8
		}
	case 4:
		n = 16
		stm, okS := cryptFilter(l, enc, "StmF")
		str, okT := cryptFilter(l, enc, "StrF")
		if !okS || !okT {
			return nil, errNotLazy
		}
		d.aesStream, d.identStm = stm == "AESV2", stm == "Identity"
		d.aesString, d.identStr = str == "AESV2", str == "Identity"
	default:
		return nil, errNotLazy
	}
	if r == 2 {
		n = 5
	}
	encryptMetadata := true
	if b, ok := enc.Find("EncryptMetadata"); ok {
		if bv, ok := b.(types.Boolean); ok {
			encryptMetadata = bool(bv)
		}
	}
	// Algorithm 2: the file key from the (empty) user password.
	h := md5.New()
	h.Write(passwordPad)
	h.Write(ownerKey[:32])
	var pb [4]byte
	binary.LittleEndian.PutUint32(pb[:], uint32(int32(p)))
	h.Write(pb[:])
	h.Write(id)
	if r >= 4 && !encryptMetadata {
		h.Write([]byte{0xFF, 0xFF, 0xFF, 0xFF})
	}
	key := h.Sum(nil)
	if r >= 3 {
		for range 50 {
			s := md5.Sum(key[:n])
			key = s[:]
		}
	}
	d.key = key[:n]
	// Algorithms 4 and 5: the empty password is the user password when U checks out.
	if !d.userKeyMatches(r, id, userKey) {
		return nil, errNotLazy
	}
	return d, nil
}

func cryptFilter(l *lazyObjects, enc types.Dict, key string) (string, bool) {
	name := l.name(enc, key)
	if name == "" || name == "Identity" {
		return "Identity", true
	}
	cf, ok := l.resolve(enc["CF"]).(types.Dict)
	if !ok {
		return "", false
	}
	f, ok := l.resolve(cf[name]).(types.Dict)
	if !ok {
		return "", false
	}
	switch m := l.name(f, "CFM"); m {
	case "AESV2", "V2":
		return m, true
	case "None":
		return "Identity", true
	}
	return "", false
}

func (d *decrypter) userKeyMatches(r int, id, userKey []byte) bool {
	if r == 2 {
		c, _ := rc4.NewCipher(d.key)
		out := make([]byte, 32)
		c.XORKeyStream(out, passwordPad)
		return string(out) == string(userKey[:32])
	}
	h := md5.New()
	h.Write(passwordPad)
	h.Write(id)
	sum := h.Sum(nil)
	k := make([]byte, len(d.key))
	for i := 0; i < 20; i++ {
		for j := range k {
			k[j] = d.key[j] ^ byte(i)
		}
		c, _ := rc4.NewCipher(k)
		c.XORKeyStream(sum, sum)
	}
	return string(sum[:16]) == string(userKey[:16])
}

// objectKey is Algorithm 1's key for one object.
func (d *decrypter) objectKey(num, gen int, aes bool) []byte {
	h := md5.New()
	h.Write(d.key)
	h.Write([]byte{byte(num), byte(num >> 8), byte(num >> 16), byte(gen), byte(gen >> 8)})
	if aes {
		h.Write([]byte("sAlT"))
	}
	return h.Sum(nil)[:min(len(d.key)+5, 16)]
}

func (d *decrypter) decrypt(data []byte, num, gen int, useAES bool) ([]byte, error) {
	key := d.objectKey(num, gen, useAES)
	if !useAES {
		c, err := rc4.NewCipher(key)
		if err != nil {
			return nil, err
		}
		out := make([]byte, len(data))
		c.XORKeyStream(out, data)
		return out, nil
	}
	if len(data) < aes.BlockSize || len(data)%aes.BlockSize != 0 {
		return nil, errors.New("pdf: AES data is not a whole number of blocks")
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	out := make([]byte, len(data)-aes.BlockSize)
	cipher.NewCBCDecrypter(block, data[:aes.BlockSize]).CryptBlocks(out, data[aes.BlockSize:])
	if n := len(out); n > 0 {
		if pad := int(out[n-1]); pad >= 1 && pad <= aes.BlockSize && pad <= n {
			out = out[:n-pad]
		}
	}
	return out, nil
}

// object decrypts the strings of o (deeply) and, for a stream, its data.
func (d *decrypter) object(o types.Object, num, gen int) (types.Object, error) {
	if num == d.self {
		return o, nil
	}
	switch v := o.(type) {
	case types.StreamDict:
		if t := v.Type(); t != nil && *t == "XRef" {
			return v, nil // cross-reference streams are never encrypted
		}
		dict, err := d.object(v.Dict, num, gen)
		if err != nil {
			return nil, err
		}
		v.Dict = dict.(types.Dict)
		if !d.identStm && !hasIdentityCrypt(v.Dict) {
			raw, err := d.decrypt(v.Raw, num, gen, d.aesStream)
			if err != nil {
				return nil, err
			}
			v.Raw = raw
			n := int64(len(raw))
			v.StreamLength = &n
		}
		return v, nil
	case types.Dict:
		out := make(types.Dict, len(v))
		for k, e := range v {
			x, err := d.object(e, num, gen)
			if err != nil {
				return nil, err
			}
			out[k] = x
		}
		return out, nil
	case types.Array:
		out := make(types.Array, len(v))
		for i, e := range v {
			x, err := d.object(e, num, gen)
			if err != nil {
				return nil, err
			}
			out[i] = x
		}
		return out, nil
	case types.StringLiteral, types.HexLiteral:
		if d.identStr {
			return v, nil
		}
		b, err := literalBytes(v)
		if err != nil {
			return nil, err
		}
		plain, err := d.decrypt(b, num, gen, d.aesString)
		if err != nil {
			return nil, err
		}
		return types.NewHexLiteral(plain), nil
	}
	return o, nil
}

// hasIdentityCrypt reports a stream whose own /Filter list starts with the Crypt filter
// naming Identity, which exempts it from the document's encryption (§7.6.5).
func hasIdentityCrypt(d types.Dict) bool {
	f, ok := d.Find("Filter")
	if !ok {
		return false
	}
	first := f
	if a, ok := f.(types.Array); ok && len(a) > 0 {
		first = a[0]
	}
	n, ok := first.(types.Name)
	return ok && n == "Crypt"
}
