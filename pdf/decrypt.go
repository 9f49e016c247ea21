package pdf

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/md5"
	"crypto/rc4"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/binary"
	"errors"
	"hash"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// decrypter implements the standard security handler (ISO 32000-1 §7.6.3, ISO 32000-2 §7.6.4)
// for the files the lazy and scanning readers open themselves: revisions 2–6 with RC4, AES-128
// (AESV2) or AES-256 (AESV3) and an empty user password, which is what "copy-protected" PDFs
// and many filings use. A file whose empty password does not open it needs the user password:
// that is ErrEncrypted, decided here whether the /Encrypt entry is a reference or (as some
// writers do) a direct dictionary, which pdfcpu would not notice and read as garbage.
type decrypter struct {
	key       []byte
	aes256    bool // revision 5/6: the file key is used as is for every object (AESV3)
	aesStream bool // streams use AESV2 or AESV3
	aesString bool // strings use AESV2 or AESV3
	identStm  bool // streams are not encrypted (crypt filter Identity)
	identStr  bool
	self      int // the encryption dictionary's object number: never decrypted
}

var passwordPad = []byte{
	0x28, 0xBF, 0x4E, 0x5E, 0x4E, 0x75, 0x8A, 0x41, 0x64, 0x00, 0x4E, 0x56, 0xFF, 0xFA, 0x01, 0x08,
	0x2E, 0x2E, 0x00, 0xB6, 0xD0, 0x68, 0x3E, 0x80, 0x2F, 0x0C, 0xA9, 0xFE, 0x64, 0x53, 0x69, 0x7A,
}

// newDecrypter sets up decryption from the /Encrypt entry (a reference or a direct dictionary)
// and the first /ID string. It returns ErrEncrypted when the empty user password does not open
// the file or the security handler is not the standard one (a public-key handler needs a
// certificate), and errNotLazy when the dictionary is unreadable, leaving the file to pdfcpu.
func newDecrypter(l *lazyObjects, encRef types.Object, id []byte) (*decrypter, error) {
	d := &decrypter{self: -1}
	o := encRef
	if ir, ok := encRef.(types.IndirectRef); ok {
		d.self = ir.ObjectNumber.Value()
		var err error
		if o, err = l.deref(ir); err != nil {
			return nil, errNotLazy
		}
	}
	enc, ok := o.(types.Dict)
	if !ok {
		return nil, errNotLazy
	}
	if f := l.name(enc, "Filter"); f != "Standard" {
		if f == "" {
			return nil, errNotLazy
		}
		return nil, ErrEncrypted
	}
	v, _ := intEntry(enc, "V")
	r, _ := intEntry(enc, "R")
	p, okP := intEntry(enc, "P")
	ownerKey, okO := l.stringBytes(enc["O"])
	userKey, okU := l.stringBytes(enc["U"])
	if !okP || !okO || !okU || len(ownerKey) < 32 || len(userKey) < 32 || r < 2 || r > 6 {
		return nil, errNotLazy
	}
	if r >= 5 {
		return newDecrypterAES256(l, d, enc, r, userKey)
	}
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
		return nil, ErrEncrypted
	}
	return d, nil
}

// newDecrypterAES256 handles revisions 5 (Acrobat 9's extension level 3) and 6 (PDF 2.0):
// the empty password opens the file when the hash of it with U's validation salt equals U's
// first 32 bytes; the file key is then UE decrypted with the hash over U's key salt
// (ISO 32000-2 Algorithms 2.A, 2.B and 11).
func newDecrypterAES256(l *lazyObjects, d *decrypter, enc types.Dict, r int, userKey []byte) (*decrypter, error) {
	ue, ok := l.stringBytes(enc["UE"])
	if !ok || len(ue) < 32 || len(userKey) < 48 {
		return nil, errNotLazy
	}
	if !bytes.Equal(hashR56(r, nil, userKey[32:40], nil), userKey[:32]) {
		return nil, ErrEncrypted
	}
	ik := hashR56(r, nil, userKey[40:48], nil)
	block, err := aes.NewCipher(ik)
	if err != nil {
		return nil, errNotLazy
	}
	key := make([]byte, 32)
	cipher.NewCBCDecrypter(block, make([]byte, aes.BlockSize)).CryptBlocks(key, ue[:32])
	d.key, d.aes256 = key, true
	stm, okS := cryptFilter(l, enc, "StmF")
	str, okT := cryptFilter(l, enc, "StrF")
	if !okS || !okT {
		return nil, errNotLazy
	}
	d.aesStream, d.identStm = stm == "AESV3", stm == "Identity"
	d.aesString, d.identStr = str == "AESV3", str == "Identity"
	return d, nil
}

// hashR56 is revision 5's SHA-256 of password and salt, or revision 6's Algorithm 2.B, which
// iterates AES-128 and SHA-256/384/512 at least 64 rounds; udata is U for owner checks.
func hashR56(r int, pw, salt, udata []byte) []byte {
	h := sha256.New()
	h.Write(pw)
	h.Write(salt)
	h.Write(udata)
	k := h.Sum(nil)
	if r == 5 {
		return k
	}
	for round := 0; ; round++ {
		k1 := bytes.Repeat(append(append(append([]byte{}, pw...), k...), udata...), 64)
		block, _ := aes.NewCipher(k[:16])
		e := make([]byte, len(k1))
		cipher.NewCBCEncrypter(block, k[16:32]).CryptBlocks(e, k1)
		sum := 0
		for _, b := range e[:16] {
			sum += int(b)
		}
		var hh hash.Hash
		switch sum % 3 {
		case 0:
			hh = sha256.New()
		case 1:
			hh = sha512.New384()
		default:
			hh = sha512.New()
		}
		hh.Write(e)
		k = hh.Sum(nil)
		if round >= 63 && int(e[len(e)-1]) <= round+1-32 { // round+1 rounds done
			break
		}
	}
	return k[:32]
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
	case "AESV2", "V2", "AESV3":
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

// objectKey is Algorithm 1's key for one object; revisions 5 and 6 use the file key itself.
func (d *decrypter) objectKey(num, gen int, aes bool) []byte {
	if d.aes256 {
		return d.key
	}
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
