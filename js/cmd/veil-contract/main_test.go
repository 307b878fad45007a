package main

import (
	"io/fs"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/js"
)

// TestContractCurrent: js/webmcp/contract.js is what this command writes
// from package ops now. When it fails, run go run ./js/cmd/veil-contract
// from the module's root, and see what the runtime must change.
func TestContractCurrent(t *testing.T) {
	got, err := fs.ReadFile(js.Files, "webmcp/contract.js")
	require.NoError(t, err)
	assert.Equal(t, string(contract()), string(got), "js/webmcp/contract.js is stale: run go run ./js/cmd/veil-contract")
}

func TestSnake(t *testing.T) {
	for in, want := range map[string]string{"init": "INIT", "timedout": "TIMEDOUT", "InvalidState": "INVALID_STATE", "Type": "TYPE", "NotSupported": "NOT_SUPPORTED"} {
		assert.Equal(t, want, snake(in), in)
	}
}
