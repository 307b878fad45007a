package redeem

import (
	"errors"
	"net/http"
)

// Why a request was refused before the store was touched.
var (
	// errNoFetchMetadata: no Sec-Fetch-Site header at all, from a browser
	// too old to send Fetch Metadata or from no browser; "no_fetch_metadata".
	errNoFetchMetadata = errors.New("request carries no Sec-Fetch-Site header")
	// errNotSameOrigin: Fetch Metadata that isn't a same-origin fetch(),
	// or a header sent more than once, which no browser does;
	// "cross_origin".
	errNotSameOrigin = errors.New("request is not a same-origin fetch")
)

// checkFetchMetadata accepts only what a page's own fetch() sends:
// Sec-Fetch-Site same-origin, Sec-Fetch-Mode cors or same-origin and
// Sec-Fetch-Dest empty. Browsers send cookies with cross-site <img> loads,
// no-cors fetches and top-level navigations too, and all of those are GETs
// that http.CrossOriginProtection lets through; any of them could burn a
// user's secret if they were let in here. A request without Sec-Fetch-Site
// gets errNoFetchMetadata, or passes when allowMissing.
func checkFetchMetadata(r *http.Request, allowMissing bool) error {
	if len(r.Header["Sec-Fetch-Site"]) == 0 {
		if allowMissing {
			return nil
		}
		return errNoFetchMetadata
	}
	site, ok := single(r.Header, "Sec-Fetch-Site")
	if !ok {
		return errNotSameOrigin
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
