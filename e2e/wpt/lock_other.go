//go:build !unix

package wpt

import "errors"

// lockDir is not available here: BuildDist builds without the cache.
func lockDir(string) (func(), error) {
	return nil, errors.New("no file locks on this system")
}
