package build_test

import (
	"log"

	"github.com/veilmcp/veil/js/build"
)

// Dist takes a while the first time (brotli at its best quality on the
// engine), so this example is compiled, not run; `make build` runs it.
func ExampleDist() {
	if err := build.Dist("dist"); err != nil {
		log.Fatal(err)
	}
	// dist now holds webmcp.js, worker.js, wasm_exec.js, veil.wasm,
	// veil-secrets.js, veil-confirm.js, veil-forms.js, veil-frames.js,
	// veil-redeem.js, veil-restart.js, veil-mcp.js and webmcp.d.ts, each
	// with .gz and .br beside it.
}
