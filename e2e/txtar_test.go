package e2e

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// archive is a txtar archive: a comment, then files, each introduced by a
// line "-- name --". It reads and writes the format of
// golang.org/x/tools/txtar, which the suite's cases use, without the
// dependency.
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
	a := &archive{}
	name, body := "", ""
	inFile := false
	for len(data) > 0 {
		line := data
		rest := ""
		if i := strings.IndexByte(data, '\n'); i >= 0 {
			line, rest = data[:i+1], data[i+1:]
		}
		if n, ok := fileMarker(line); ok {
			if inFile {
				a.files = append(a.files, archiveFile{name, body})
			} else {
				a.comment = body
			}
			name, body, inFile = n, "", true
		} else {
			body += line
		}
		data = rest
	}
	if inFile {
		a.files = append(a.files, archiveFile{name, body})
	} else {
		a.comment = body
	}
	return a
}

func fileMarker(line string) (string, bool) {
	line = strings.TrimRight(line, "\r\n")
	if !strings.HasPrefix(line, "-- ") || !strings.HasSuffix(line, " --") || len(line) < 7 {
		return "", false
	}
	name := strings.TrimSpace(line[3 : len(line)-3])
	return name, name != ""
}

// format writes the archive back. Every file ends with a newline.
func (a *archive) format() []byte {
	var b bytes.Buffer
	b.WriteString(fixNewline(a.comment))
	for _, f := range a.files {
		b.WriteString("-- " + f.name + " --\n")
		b.WriteString(fixNewline(f.data))
	}
	return b.Bytes()
}

func fixNewline(s string) string {
	if s == "" || strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
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

func TestArchive(t *testing.T) {
	const text = "# what it guards against\n\n-- a --\none\n-- b.js --\n{x: 1}\n\n-- empty --\n"
	a := parseArchive(text)
	assert.Equal(t, "# what it guards against\n\n", a.comment)
	assert.Equal(t, []archiveFile{{"a", "one\n"}, {"b.js", "{x: 1}\n\n"}, {"empty", ""}}, a.files)
	assert.Equal(t, text, string(a.format()), "format(parse(text))")
	a.set("a", "two")
	a.set("c", "three\n")
	got, ok := a.file("a")
	assert.True(t, ok)
	assert.Equal(t, "two", got)
	assert.Contains(t, string(a.format()), "-- a --\ntwo\n-- b.js --")
	assert.True(t, strings.HasSuffix(string(a.format()), "-- c --\nthree\n"))
}
