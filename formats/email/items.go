package email

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Outlook keeps more than messages in .msg files: contacts, appointments, tasks, notes,
// posts. Their text is in MAPI properties other than the body — standard ones (a contact's
// PidTagCompanyName) and named ones (an appointment's PidLidLocation), whose IDs each file
// assigns in its __nameid_version1.0 storage ([MS-OXMSG] 2.2.3). The reference's reader
// partitions only subject and body, so a contact card comes out empty; here each kind of item
// yields its fields as "Label: value" lines before the body.

// A namedProp is a named property's property set and numeric name (LID).
type namedProp struct {
	set [16]byte
	lid uint32
}

// guid writes a GUID in its stored (little-endian first three fields) byte order.
func guid(s string) [16]byte {
	var g [16]byte
	s = strings.ReplaceAll(s, "-", "")
	for i := 0; i < 16; i++ {
		v, _ := strconv.ParseUint(s[2*i:2*i+2], 16, 8)
		g[i] = byte(v)
	}
	g[0], g[1], g[2], g[3] = g[3], g[2], g[1], g[0]
	g[4], g[5] = g[5], g[4]
	g[6], g[7] = g[7], g[6]
	return g
}

var (
	psetAddress     = guid("00062004-0000-0000-C000-000000000046")
	psetAppointment = guid("00062002-0000-0000-C000-000000000046")
	psetTask        = guid("00062003-0000-0000-C000-000000000046")
)

// Named properties read ([MS-OXPROPS]).
var (
	lidEmail1       = namedProp{psetAddress, 0x8083}
	lidEmail1Name   = namedProp{psetAddress, 0x8080}
	lidEmail2       = namedProp{psetAddress, 0x8093}
	lidEmail3       = namedProp{psetAddress, 0x80A3}
	lidWorkAddress  = namedProp{psetAddress, 0x801B}
	lidHomeAddress  = namedProp{psetAddress, 0x801A}
	lidOtherAddress = namedProp{psetAddress, 0x801C}
	lidIMAddress    = namedProp{psetAddress, 0x8062}
	lidWebPage      = namedProp{psetAddress, 0x802B}
	lidLocation     = namedProp{psetAppointment, 0x8208}
	lidApptStart    = namedProp{psetAppointment, 0x820D}
	lidApptEnd      = namedProp{psetAppointment, 0x820E}
	lidTaskStatus   = namedProp{psetTask, 0x8101}
	lidTaskPercent  = namedProp{psetTask, 0x8102}
	lidTaskStart    = namedProp{psetTask, 0x8104}
	lidTaskDue      = namedProp{psetTask, 0x8105}
	lidTaskOwner    = namedProp{psetTask, 0x811F}
)

// Standard contact properties.
const (
	pidGivenName       = 0x3A06
	pidSurname         = 0x3A11
	pidCompanyName     = 0x3A16
	pidJobTitle        = 0x3A17
	pidDepartment      = 0x3A18
	pidBusinessPhone   = 0x3A08
	pidHomePhone       = 0x3A09
	pidMobilePhone     = 0x3A1C
	pidBusinessFax     = 0x3A24
	pidStreetAddress   = 0x3A29
	pidLocality        = 0x3A27
	pidStateOrProvince = 0x3A28
	pidPostalCode      = 0x3A2A
	pidCountry         = 0x3A26
	pidNickname        = 0x3A4F
	pidBusinessHome    = 0x3A51
	pidStartDate       = 0x0060
	pidEndDate         = 0x0061
)

// maxNamed bounds the entries read from the named-property map.
const maxNamed = 1 << 16

// readNameMap reads the named-property mapping of a message: the GUID stream and the entry
// stream of __nameid_version1.0 give, for each numerically named property, its ID 0x8000+i.
func readNameMap(s *storage) map[namedProp]uint16 {
	out := map[namedProp]uint16{}
	guids, _, err := s.stream("__substg1.0_00020102")
	if err != nil {
		return out
	}
	entries, _, err := s.stream("__substg1.0_00030102")
	if err != nil {
		return out
	}
	for off := 0; off+8 <= len(entries) && off/8 < maxNamed; off += 8 {
		lid := binary.LittleEndian.Uint32(entries[off:])
		info := binary.LittleEndian.Uint32(entries[off+4:])
		if info&1 != 0 {
			continue // a string-named property: none is read
		}
		gi := int(info>>1) & 0x7FFF
		var set [16]byte
		switch {
		case gi < 3:
			continue // PS_MAPI or PS_PUBLIC_STRINGS: none is read
		case (gi-3)*16+16 <= len(guids):
			copy(set[:], guids[(gi-3)*16:])
		default:
			continue
		}
		out[namedProp{set, lid}] = uint16(0x8000 + info>>16)
	}
	return out
}

// namedID returns the ID a named property has in this file.
func (s *storage) namedID(p namedProp) (uint16, bool) {
	id, ok := s.named[p]
	return id, ok
}

func (s *storage) namedStr(p namedProp) (string, error) {
	id, ok := s.namedID(p)
	if !ok {
		return "", nil
	}
	v, err := s.str(id)
	return strings.TrimSpace(v), err
}

// timeValue reads a PT_SYSTIME property (a FILETIME: 100 ns ticks since 1601, UTC).
func (s *storage) timeValue(id uint16) (time.Time, bool) {
	raw, ok := s.values[uint32(id)<<16|ptSysTime]
	if !ok {
		return time.Time{}, false
	}
	ticks := binary.LittleEndian.Uint64(raw[:])
	const epochDiff = 116444736000000000 // 1601-01-01 to 1970-01-01 in ticks
	if ticks < epochDiff {
		return time.Time{}, false
	}
	t := time.UnixMilli(int64((ticks - epochDiff) / 10000)).UTC()
	// Outlook writes 4501-01-01 for "none".
	if t.Year() >= 4500 || t.Year() < 1900 {
		return time.Time{}, false
	}
	return t, true
}

func (s *storage) namedTime(p namedProp) (time.Time, bool) {
	id, ok := s.namedID(p)
	if !ok {
		return time.Time{}, false
	}
	return s.timeValue(id)
}

func formatTime(t time.Time) string { return t.Format("2006-01-02 15:04 UTC") }

// fieldList gathers "Label: value" lines, skipping empty values and repeats of a value.
type fieldList struct {
	lines []string
	seen  map[string]bool
	err   error
}

func (f *fieldList) add(label, value string) {
	value = strings.Join(strings.Fields(value), " ")
	if value == "" || f.seen[value] {
		return
	}
	if f.seen == nil {
		f.seen = map[string]bool{}
	}
	f.seen[value] = true
	if label == "" {
		f.lines = append(f.lines, value)
		return
	}
	f.lines = append(f.lines, label+": "+value)
}

func (f *fieldList) str(s *storage, label string, id uint16) {
	if f.err != nil {
		return
	}
	v, err := s.str(id)
	f.err = err
	f.add(label, v)
}

func (f *fieldList) named(s *storage, label string, p namedProp) {
	if f.err != nil {
		return
	}
	v, err := s.namedStr(p)
	f.err = err
	f.add(label, v)
}

var taskStatus = []string{"Not started", "In progress", "Completed", "Waiting on someone else", "Deferred"}

// itemFields returns the labelled fields of an item by its message class; none for messages
// and posts, whose text is the body.
func itemFields(s *storage, class string, m *Message) ([]string, error) {
	c := strings.ToLower(class)
	f := &fieldList{}
	switch {
	case strings.HasPrefix(c, "ipm.contact"), strings.HasPrefix(c, "ipm.distlist"):
		f.str(s, "", pidDisplayName)
		if f.err == nil && len(f.lines) == 0 {
			f.add("", m.Subject)
		}
		f.str(s, "Nickname", pidNickname)
		f.str(s, "Job title", pidJobTitle)
		f.str(s, "Company", pidCompanyName)
		f.str(s, "Department", pidDepartment)
		f.named(s, "Email", lidEmail1)
		f.named(s, "Email", lidEmail2)
		f.named(s, "Email", lidEmail3)
		if f.err == nil && len(f.lines) < 2 {
			f.named(s, "Email", lidEmail1Name)
		}
		f.str(s, "Business phone", pidBusinessPhone)
		f.str(s, "Mobile phone", pidMobilePhone)
		f.str(s, "Home phone", pidHomePhone)
		f.str(s, "Business fax", pidBusinessFax)
		f.named(s, "Business address", lidWorkAddress)
		f.named(s, "Home address", lidHomeAddress)
		f.named(s, "Other address", lidOtherAddress)
		if f.err == nil {
			var parts []string
			for _, id := range []uint16{pidStreetAddress, pidLocality, pidStateOrProvince, pidPostalCode, pidCountry} {
				v, err := s.str(id)
				if err != nil {
					return nil, err
				}
				if v = strings.TrimSpace(v); v != "" {
					parts = append(parts, v)
				}
			}
			f.add("Address", strings.Join(parts, ", "))
		}
		f.named(s, "Instant messaging", lidIMAddress)
		f.named(s, "Web page", lidWebPage)
		f.str(s, "Web page", pidBusinessHome)
	case strings.HasPrefix(c, "ipm.appointment"), strings.HasPrefix(c, "ipm.schedule.meeting"):
		f.add("", m.Subject)
		f.named(s, "Location", lidLocation)
		start, okS := s.namedTime(lidApptStart)
		if !okS {
			start, okS = s.timeValue(pidStartDate)
		}
		end, okE := s.namedTime(lidApptEnd)
		if !okE {
			end, okE = s.timeValue(pidEndDate)
		}
		if okS {
			f.add("Start", formatTime(start))
		}
		if okE {
			f.add("End", formatTime(end))
		}
		if len(m.From) > 0 {
			f.add("Organizer", strings.Join(m.From, ", "))
		}
		if att := append(append([]string(nil), m.To...), m.Cc...); len(att) > 0 {
			f.add("Attendees", strings.Join(att, ", "))
		}
	case strings.HasPrefix(c, "ipm.task"):
		f.add("", m.Subject)
		if id, ok := s.namedID(lidTaskStatus); ok {
			if v, ok := s.fixed[id]; ok && int(v) < len(taskStatus) {
				f.add("Status", taskStatus[v])
			}
		}
		if id, ok := s.namedID(lidTaskPercent); ok {
			if raw, ok := s.values[uint32(id)<<16|ptDouble]; ok {
				p := math.Float64frombits(binary.LittleEndian.Uint64(raw[:]))
				if p >= 0 && p <= 1 {
					f.add("Complete", fmt.Sprintf("%d%%", int(math.Round(p*100))))
				}
			}
		}
		if t, ok := s.namedTime(lidTaskStart); ok {
			f.add("Start date", formatTime(t))
		}
		if t, ok := s.namedTime(lidTaskDue); ok {
			f.add("Due date", formatTime(t))
		}
		f.named(s, "Owner", lidTaskOwner)
	case strings.HasPrefix(c, "ipm.stickynote"):
		// A note's subject is its body's first line: the body alone is the text.
		if !m.HasText && !m.HasHTML {
			f.add("", m.Subject)
		}
	}
	return f.lines, f.err
}
