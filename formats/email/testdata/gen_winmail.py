#!/usr/bin/python3
# Writes winmail.eml: a message whose text part says little and whose winmail.dat (TNEF, as
# Outlook sends rich text) carries the HTML body (PR_HTML) and two files, one named by its
# long file name (PR_ATTACH_LONG_FILENAME) beside the 8.3 title. `tnef -t winmail.dat` lists
# them. Run from this directory.
import struct, base64
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from email.mime.application import MIMEApplication

def attr(level, aid, data):
    return struct.pack('<BII', level, aid, len(data)) + data + struct.pack('<H', sum(data) & 0xffff)

def prop_bin(pid, typ, data):
    return struct.pack('<HHI', typ, pid, 1) + struct.pack('<I', len(data)) + data + b'\0' * (-len(data) % 4)

def props(*ps):
    return struct.pack('<I', len(ps)) + b''.join(ps)

html = b'<html><body><h1>Quarterly review</h1><p>The figures are in the attached report.</p></body></html>'
t = struct.pack('<I', 0x223E9F78) + struct.pack('<H', 0x0101)
t += attr(1, 0x00089006, struct.pack('<I', 0x00010000))             # attTnefVersion
t += attr(1, 0x00069007, struct.pack('<II', 1252, 0))                # attOemCodepage
t += attr(1, 0x00078008, b'IPM.Microsoft Mail.Note\0')               # attMessageClass
t += attr(1, 0x00069003, props(struct.pack('<HHI', 0x0003, 0x0E07, 0),  # a fixed PT_LONG first
                               prop_bin(0x1013, 0x0102, html)))       # PR_HTML
for title, long, data in [(b'REPORT~1.TXT\0', b'Quarterly report 2026.txt\0', 'Revenue grew by twelve percent over the quarter.\n'.encode()),
                          (b'notes.csv\0', None, b'item,count\nbolts,12\n')]:
    t += attr(2, 0x00069002, struct.pack('<HIHHHI', 1, 0xFFFFFFFF, 0, 0, 0, 0))  # attAttachRendData
    t += attr(2, 0x00018010, title)                                  # attAttachTitle
    t += attr(2, 0x0006800F, data)                                   # attAttachData
    if long:
        t += attr(2, 0x00069005, props(prop_bin(0x3707, 0x001E, long)))  # attAttachment: long name
open('/tmp/winmail.dat', 'wb').write(t)

m = MIMEMultipart('mixed')
m['From'] = 'Ann Lee <ann@example.com>'
m['To'] = 'bob@example.org'
m['Subject'] = 'Quarterly review'
m.attach(MIMEText('', 'plain'))
a = MIMEApplication(t, 'ms-tnef', name='winmail.dat')
a.add_header('Content-Disposition', 'attachment', filename='winmail.dat')
m.attach(a)
open('winmail.eml', 'wb').write(m.as_bytes())
