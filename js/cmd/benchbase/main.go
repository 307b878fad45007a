// Command benchbase times one of the engine's benchmarks against the same
// benchmark of the engine at an earlier revision, in the same run: it
// builds both test binaries, runs them in turns, and prints each round's
// ratio, the median of each run and the range over the runs, with the
// verdict against a budget.
//
// A round's time is CPU time (user and system) an operation, not the
// benchmark's wall time: each binary runs the benchmark twice, with few
// and with many operations, and the difference of the two processes' CPU
// time over the difference of their operations leaves out the start-up
// and the benchmark's set-up, and counts the garbage collector's work on
// other threads. On a machine shared with other work, wall time swings
// with what the others do; the CPU a run takes swings far less.
//
//	go run ./js/cmd/benchbase -base eeb5459 -bench 'BenchmarkOutput/1MiB-x-sensitive$' -budget 1.15
//
// The earlier revision is checked out in a temporary git worktree, which
// is removed afterwards. Run it from the module's root.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

func main() {
	base := flag.String("base", "", "the revision to compare with (required)")
	bench := flag.String("bench", `BenchmarkOutput/1MiB-x-sensitive$`, "the benchmark of ./wasm/engine, a -test.bench pattern that matches one")
	few := flag.Int("few", 5, "operations of the shorter run")
	many := flag.Int("many", 25, "operations of the longer run")
	rounds := flag.Int("rounds", 7, "rounds a run: one call of each binary a round")
	runs := flag.Int("runs", 3, "runs, whose medians give the range")
	budget := flag.Float64("budget", 1.15, "the largest ratio of the working tree's time to the base's that is within budget")
	flag.Parse()
	log.SetFlags(0)
	if *base == "" {
		log.Fatal("benchbase: -base is required")
	}
	tmp, err := os.MkdirTemp("", "benchbase")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	wt := filepath.Join(tmp, "base")
	if err := run("", "git", "worktree", "add", "--detach", wt, *base); err != nil {
		log.Fatalf("benchbase: checking out %s: %v", *base, err)
	}
	defer run("", "git", "worktree", "remove", "--force", wt)
	bins := map[string]string{"base": filepath.Join(tmp, "base.test"), "new": filepath.Join(tmp, "new.test")}
	if err := run(wt, "go", "test", "-c", "-o", bins["base"], "./wasm/engine"); err != nil {
		log.Fatalf("benchbase: building the base's benchmark: %v", err)
	}
	if err := run("", "go", "test", "-c", "-o", bins["new"], "./wasm/engine"); err != nil {
		log.Fatalf("benchbase: building the working tree's benchmark: %v", err)
	}

	out, _ := exec.Command("git", "rev-parse", "--short", *base).Output()
	fmt.Printf("%s, CPU time an operation, against %s (%s), %s, %d CPUs, %s, %s\n", *bench, *base, strings.TrimSpace(string(out)),
		time.Now().UTC().Format("2006-01-02 15:04 MST"), runtime.NumCPU(), runtime.Version(), runtime.GOARCH)
	var medians []float64
	for r := range *runs {
		var ratios []float64
		for k := range *rounds {
			// The order alternates, so that neither binary always runs
			// on a machine the other just warmed.
			order := []string{"base", "new"}
			if k%2 == 1 {
				slices.Reverse(order)
			}
			ns := map[string]float64{}
			for _, which := range order {
				v, err := cpuPerOp(bins[which], *bench, *few, *many)
				if err != nil {
					log.Fatalf("benchbase: %s: %v", which, err)
				}
				ns[which] = v
			}
			ratios = append(ratios, ns["new"]/ns["base"])
		}
		slices.Sort(ratios)
		m := ratios[len(ratios)/2]
		medians = append(medians, m)
		fmt.Printf("run %d: median %.3f× (rounds %.3f–%.3f×)\n", r+1, m, ratios[0], ratios[len(ratios)-1])
	}
	lo, hi := slices.Min(medians), slices.Max(medians)
	verdict := "within"
	switch {
	case lo > *budget:
		verdict = "OVER"
	case hi > *budget:
		verdict = fmt.Sprintf("OVER in %d of %d", count(medians, *budget), len(medians))
	}
	fmt.Printf("range %.3f–%.3f×, budget ≤ %.2f×: %s\n", lo, hi, *budget, verdict)
}

func count(xs []float64, above float64) int {
	n := 0
	for _, x := range xs {
		if x > above {
			n++
		}
	}
	return n
}

// cpuPerOp runs one benchmark of a test binary twice, with few and with
// many operations, and returns the CPU time an operation took, in
// nanoseconds.
func cpuPerOp(bin, bench string, few, many int) (float64, error) {
	a, err := cpuTime(bin, bench, few)
	if err != nil {
		return 0, err
	}
	b, err := cpuTime(bin, bench, many)
	if err != nil {
		return 0, err
	}
	return float64((b - a).Nanoseconds()) / float64(many-few), nil
}

// cpuTime runs one benchmark of a test binary for n operations and
// returns the CPU time its process took.
func cpuTime(bin, bench string, n int) (time.Duration, error) {
	var b bytes.Buffer
	cmd := exec.Command(bin, "-test.run", "^$", "-test.bench", bench, "-test.benchtime", strconv.Itoa(n)+"x")
	cmd.Stdout, cmd.Stderr = &b, &b
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("%v: %s", err, b.String())
	}
	if !strings.Contains(b.String(), "ns/op") {
		return 0, fmt.Errorf("the pattern %q ran no benchmark: %s", bench, b.String())
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), nil
}

func run(dir, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	return cmd.Run()
}
