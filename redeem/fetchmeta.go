package redeem

import (
	"errors"
	"net/http"
)

// Why a request was refused before the store was touched.
var (
	errNoFetchMetadata = errors.New("request carries no Sec-Fetch-Site header")
	errNotSameOrigin   = errors.New("request is not a same-origin fetch")
)

// checkFetchMetadata accepts only what a page's own fetch() sends:
// Sec-Fetch-Site same-origin, Sec-Fetch-Mode cors or same-origin and
// Sec-Fetch-Dest empty. Browsers send cookies with cross-site <img> loads,
// no-cors fetches and top-level navigations too, and all of those are GETs
// that http.CrossOriginProtection lets through; any of them could burn a
// user's secret if they were let in here.
func checkFetchMetadata(r *http.Request, allowMissing bool) error {
	site, ok := single(r.Header, "Sec-Fetch-Site")
	if !ok {
		if allowMissing && len(r.Header["Sec-Fetch-Site"]) == 0 {
			return nil
		}
		return errNoFetchMetadata
	}
	if site != "same-origin" {
		return errNotSameOrigin
	}
	mode, _ := single(r.Header, "Sec-Fetch-Mode")
	if mode != "cors" && mode != "same-origin" {
		return errNotSameOrigin
	}
	if dest, _ := single(r.Header, "Sec-Fetch-Dest"); dest != "empty" {
		return errNotSameOrigin
	}
	return nil
}

// single returns a header's value when it is present exactly once: a
// repeated Fetch Metadata header didn't come from a browser.
func single(h http.Header, name string) (string, bool) {
	v := h[name]
	if len(v) != 1 {
		return "", false
	}
	return v[0], true
}
