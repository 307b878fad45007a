package build

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// NoticesFile is the file Dist writes beside the runtime with the license
// of everything in it that is not Veil's own code.
const NoticesFile = "THIRD_PARTY_NOTICES"

// linked is one module whose code veil.wasm links.
type linked struct {
	path, version, dir string
}

// licenseNames are the files, at a module's root, that hold its license
// and notices, in the order they are written.
var licenseNames = []string{"LICENSE", "LICENSE.md", "LICENSE.txt", "COPYING", "NOTICE", "NOTICE.md", "NOTICE.txt", "PATENTS"}

// linkedModules lists the modules other than this one whose packages the
// engine's build links, as the go command resolves them for GOOS=js
// GOARCH=wasm.
func linkedModules(gobin, root string) ([]linked, error) {
	cmd := exec.Command(gobin, "list", "-deps", "-f", "{{with .Module}}{{if not .Main}}{{.Path}}\t{{.Version}}\t{{with .Replace}}{{.Dir}}{{else}}{{.Dir}}{{end}}{{end}}{{end}}", "./wasm")
	cmd.Dir = root
	cmd.Env = append(buildEnv(), "GOOS=js", "GOARCH=wasm")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("listing the engine's modules: %w\n%s", err, stderr.Bytes())
	}
	var mods []linked
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 3 {
			continue
		}
		m := linked{f[0], f[1], f[2]}
		if !slices.Contains(mods, m) {
			mods = append(mods, m)
		}
	}
	slices.SortFunc(mods, func(a, b linked) int { return strings.Compare(a.path, b.path) })
	return mods, nil
}

// licenseTexts reads the license and notice files at the root of dir. It
// is an error for there to be none: what cannot be attributed must not
// ship.
func licenseTexts(what, dir string) ([]string, error) {
	var texts []string
	for _, name := range licenseNames {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		texts = append(texts, strings.TrimRight(string(b), "\n"))
	}
	if len(texts) == 0 {
		return nil, fmt.Errorf("%s: no license file (%s) in %s", what, strings.Join(licenseNames, ", "), dir)
	}
	return texts, nil
}

// notices is the text of NoticesFile: Go's license, for its runtime and
// standard library in veil.wasm and for wasm_exec.js, then each linked
// module's.
func notices(goVersion, goroot string, mods []linked) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString("Third-party notices for Veil's distribution\n\n" +
		"Veil's own code is under the Apache License 2.0 (LICENSE). veil.wasm also\n" +
		"holds the Go runtime and standard library and the modules listed below;\n" +
		"wasm_exec.js is Go's. Their licenses follow.\n")
	section := func(title string, texts []string) {
		buf.WriteString("\n" + strings.Repeat("=", 72) + "\n" + title + "\n" + strings.Repeat("-", 72) + "\n")
		buf.WriteString(strings.Join(texts, "\n\n"+strings.Repeat("-", 72)+"\n"))
		buf.WriteString("\n")
	}
	texts, err := licenseTexts("Go", goroot)
	if err != nil {
		return nil, err
	}
	section(fmt.Sprintf("Go %s: the runtime and standard library in veil.wasm, and wasm_exec.js", strings.TrimPrefix(goVersion, "go")), texts)
	for _, m := range mods {
		texts, err := licenseTexts(m.path, m.dir)
		if err != nil {
			return nil, err
		}
		section(m.path+" "+m.version, texts)
	}
	return buf.Bytes(), nil
}

// writeNotices writes NoticesFile into out for the engine the go command
// at gobin builds from root.
func writeNotices(gobin, root, goroot, out string) error {
	mods, err := linkedModules(gobin, root)
	if err != nil {
		return err
	}
	v, err := exec.Command(gobin, "env", "GOVERSION").Output()
	if err != nil {
		return fmt.Errorf("finding the Go version: %w", err)
	}
	b, err := notices(strings.TrimSpace(string(v)), goroot, mods)
	if err != nil {
		return fmt.Errorf("writing %s: %w", NoticesFile, err)
	}
	return update(filepath.Join(out, NoticesFile), b)
}
