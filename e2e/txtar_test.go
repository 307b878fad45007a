package e2e

import (
	"golang.org/x/tools/txtar"
)

// archive is a txtar archive (golang.org/x/tools/txtar) as the suite's
// spec and risk cases read it: a comment, then files by name.
type archive struct {
	comment string
	files   []archiveFile
}

type archiveFile struct {
	name string
	data string
}

// parseArchive parses a txtar archive. It never fails: text before the
// first marker is the comment.
func parseArchive(data string) *archive {
	t := txtar.Parse([]byte(data))
	a := &archive{comment: string(t.Comment)}
	for _, f := range t.Files {
		a.files = append(a.files, archiveFile{f.Name, string(f.Data)})
	}
	return a
}

// format writes the archive back. Every file ends with a newline.
func (a *archive) format() []byte {
	t := &txtar.Archive{Comment: []byte(a.comment)}
	for _, f := range a.files {
		t.Files = append(t.Files, txtar.File{Name: f.name, Data: []byte(f.data)})
	}
	return txtar.Format(t)
}

// file returns the contents of the named file and whether it is there.
func (a *archive) file(name string) (string, bool) {
	for _, f := range a.files {
		if f.name == name {
			return f.data, true
		}
	}
	return "", false
}

// set replaces the named file, or appends it.
func (a *archive) set(name, data string) {
	for i := range a.files {
		if a.files[i].name == name {
			a.files[i].data = data
			return
		}
	}
	a.files = append(a.files, archiveFile{name, data})
}
