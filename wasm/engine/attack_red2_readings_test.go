//go:build attack

package engine_test

// Red-team corpus against the reading and pass-through changes: a text of
// ASCII is read again in other encodings only with a <, a [ or a "--"
// (readings.go), and the pass-through test reads a base64 or hex run's
// decoded bytes once (mentionruns.go, binaryMayMention).
// testdata/red2/readings.jsonl, written by gen_readings.py with Python's
// and Node's own encoders, holds later outputs that carry a withheld key
// (whole, or 16 characters of it) or a secret_reference object in an
// encoding, beside text with single hyphens. Each case must not pass
// unchanged. With R2_VERDICTS set, each case's verdict is written to that
// file, one a line, so that runs on two branches can be compared
// (a regression is a case main withholds and this branch passes).

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/veilmcp/veil/wasm/engine"
)

func TestRed2ReadingsCorpus(t *testing.T) {
	f, err := os.Open("testdata/red2/readings.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var verdicts []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var c struct{ Name, Key, Later string }
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		e := redSession(t)
		if c.Key != "" {
			redWithhold(t, e, c.Key)
		}
		r := e.OutputOf("read_log", engine.Outcome{Kind: engine.Text, Data: c.Later})
		verdict := "withheld"
		switch {
		case r.Err != nil:
			verdict = "refused"
		case r.Agent == c.Later:
			verdict = "PASSED"
			t.Errorf("%s passed unchanged: %q", c.Name, c.Later)
		}
		verdicts = append(verdicts, fmt.Sprintf("%s\t%s", c.Name, verdict))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(verdicts) < 200 {
		t.Fatalf("only %d cases read", len(verdicts))
	}
	sort.Strings(verdicts)
	if out := os.Getenv("R2_VERDICTS"); out != "" {
		if err := os.WriteFile(out, []byte(strings.Join(verdicts, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
