module github.com/veilmcp/veil

go 1.25.0

require github.com/santhosh-tekuri/jsonschema/v6 v6.0.3

require (
	github.com/andybalholm/brotli v1.2.8
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/chromedp/cdproto v0.159.0
	github.com/chromedp/chromedp v0.23.0
	github.com/davecgh/go-spew v1.1.1 // indirect
	github.com/evanw/esbuild v0.28.2
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	github.com/redis/go-redis/v9 v9.22.0
	github.com/stretchr/testify v1.11.1
	go.uber.org/atomic v1.11.0 // indirect
	golang.org/x/sys v0.47.0 // indirect
	golang.org/x/text v0.14.0
	golang.org/x/time v0.15.0
	golang.org/x/tools v0.49.0
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
