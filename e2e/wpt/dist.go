package wpt

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/veilmcp/veil/js/build"
	"github.com/veilmcp/veil/js/serve"
)

// modulePath is the module whose checkout ModuleRoot looks for.
const modulePath = "github.com/veilmcp/veil"

// ModuleRoot returns the root of the checkout of Veil that holds the
// current directory: the directory of the go.mod that declares the
// module. The runner finds node_modules (testharness.js, puppeteer-core)
// and firefox.mjs from there.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && declares(b, modulePath) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod of %s in the current directory or above it: run from a checkout of Veil", modulePath)
		}
		dir = parent
	}
}

func declares(gomod []byte, module string) bool {
	sc := bufio.NewScanner(bytes.NewReader(gomod))
	for sc.Scan() {
		if f := bytes.Fields(sc.Bytes()); len(f) == 2 && string(f[0]) == "module" && string(f[1]) == module {
			return true
		}
	}
	return false
}

// BuildDist writes the runtime into dir, as `go run ./js/cmd/veil-dist`
// does; the browser suite of package e2e builds its copy with it too. It
// builds into a directory in the user's cache first, under a lock, and
// copies from there: the build compresses only the files that changed,
// and compressing the engine takes most of a cold build. Where there is
// no cache or no lock, it builds into dir directly.
func BuildDist(dir string) error {
	cache, err := os.UserCacheDir()
	if err != nil {
		return build.Dist(dir)
	}
	cached := filepath.Join(cache, "veil-e2e", "dist")
	if err := os.MkdirAll(cached, 0o755); err != nil {
		return build.Dist(dir)
	}
	unlock, err := lockDir(cached)
	if err != nil {
		return build.Dist(dir)
	}
	defer unlock()
	if err := build.Dist(cached); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// Only this build's files: the cache may hold others that builds of
	// other checkouts wrote.
	for _, name := range append(build.Files[:len(build.Files):len(build.Files)], build.NoticesFile, serve.SumsFile) {
		for _, f := range []string{name, name + ".br", name + ".gz"} {
			err := CopyFile(filepath.Join(cached, f), filepath.Join(dir, f))
			if errors.Is(err, fs.ErrNotExist) && f != name {
				continue
			}
			if err != nil {
				return fmt.Errorf("copying the runtime: %w", err)
			}
		}
	}
	return nil
}

// CopyFile copies the file from into a new file to.
func CopyFile(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.Create(to)
	if err != nil {
		return err
	}
	_, err = io.Copy(dst, src)
	return errors.Join(err, dst.Close())
}
