package bench

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// BenchmarkOffice partitions the bench corpus's DOCX, PPTX, XLSX and EML files format by format
// (go test -bench Office/docx …) and hands the same files to a peer in the same iteration:
// pandoc to plain text for DOCX; LibreOffice headless for PPTX (HTML export: Impress has no text
// filter) and XLSX (CSV, first sheet); Python's e-mail parser with its HTML text for EML
// (peers/eml_text.py; pandoc has no e-mail reader). LibreOffice starts a fresh process per file,
// as a conversion service would, so its figure is dominated by start-up on small files. The
// issue's aim is a ratio of at least 10.
func BenchmarkOffice(b *testing.B) {
	pandoc, _ := exec.LookPath("pandoc")
	soffice, _ := exec.LookPath("soffice")
	libreOffice := func(b *testing.B, to string) peerCommand {
		// Each benchmark gets its own profile: a profile shared with another soffice makes the
		// second one hand its work to the first and exit at once.
		dir := b.TempDir()
		profile := "-env:UserInstallation=file://" + filepath.Join(dir, "profile")
		return func(f string) *exec.Cmd {
			return exec.Command(soffice, profile, "--headless", "--convert-to", to, "--outdir", dir, f)
		}
	}
	cases := []struct {
		ext, peer, path string
		cmd             func(b *testing.B) peerCommand
	}{
		{"docx", "pandoc", pandoc, func(*testing.B) peerCommand {
			return func(f string) *exec.Cmd {
				return exec.Command(pandoc, "-f", "docx", "-t", "plain", f, "-o", os.DevNull)
			}
		}},
		{"pptx", "soffice", soffice, func(b *testing.B) peerCommand { return libreOffice(b, "html") }},
		{"xlsx", "soffice", soffice, func(b *testing.B) peerCommand { return libreOffice(b, "csv") }},
		{"eml", "python-email", "/usr/bin/python3", func(*testing.B) peerCommand {
			return func(f string) *exec.Cmd { return exec.Command("/usr/bin/python3", "peers/eml_text.py", f) }
		}},
	}
	for _, c := range cases {
		b.Run(c.ext, func(b *testing.B) {
			files := globFiles(benchCorpus + "/office/*." + c.ext)
			if len(files) == 0 {
				b.Skip("bench corpus absent")
			}
			if c.path == "" {
				b.Skipf("peer %s not installed (make deps installs it)", c.peer)
			}
			if _, err := os.Stat(c.path); err != nil {
				b.Skipf("peer %s not installed: %v", c.peer, err)
			}
			compareWithPeer(b, c.peer, files, nil, c.cmd(b))
		})
	}
}
