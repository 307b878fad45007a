package e2e

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/veilmcp/veil/js/build"
)

// buildDist writes the runtime into dir. It builds into a directory in the
// user's cache first and copies from there: the build compresses only the
// files that changed, and compressing the engine takes most of a cold
// build. A lock keeps concurrent test runs from writing it at once; where
// there is no cache or no lock, it builds into dir directly.
func buildDist(dir string) error {
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
	entries, err := os.ReadDir(cached)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || e.Name()[0] == '.' {
			continue
		}
		if err := copyFile(filepath.Join(cached, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			return fmt.Errorf("copying the runtime: %w", err)
		}
	}
	return nil
}

func copyFile(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}
