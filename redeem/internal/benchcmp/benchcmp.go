// Package benchcmp times a workload and its baseline in the same benchmark
// run and reports their ratio as a metric, so that results read directly
// and don't depend on the machine being as fast as in another run.
// testing.Benchmark can't be used for this: it deadlocks when called from
// a running benchmark.
package benchcmp

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Result is what one workload cost over its N calls.
type Result struct {
	N       int
	Elapsed time.Duration
	Allocs  uint64
	Bytes   uint64
}

// NsPerOp returns the mean time of a call.
func (r Result) NsPerOp() float64 { return float64(r.Elapsed.Nanoseconds()) / float64(r.N) }

// Chunks is how many slices each workload's b.N calls are cut into; the
// slices of the workloads alternate, so that warm-up, frequency scaling, a
// garbage collection or a noisy neighbour weigh on each about equally.
const Chunks = 200

// Run calls each fn with i from 0 to b.N-1, from workers goroutines at
// once, and returns one Result per fn. The benchmark timer runs only while
// calls do.
func Run(b *testing.B, workers int, fns ...func(i int)) []Result {
	b.Helper()
	res := make([]Result, len(fns))
	chunk := max(b.N/Chunks, 1)
	b.StopTimer()
	for lo := 0; lo < b.N; lo += chunk {
		hi := min(lo+chunk, b.N)
		for k, fn := range fns {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			b.StartTimer()
			start := time.Now()
			parallel(workers, lo, hi, fn)
			res[k].Elapsed += time.Since(start)
			b.StopTimer()
			runtime.ReadMemStats(&after)
			res[k].N += hi - lo
			res[k].Allocs += after.Mallocs - before.Mallocs
			res[k].Bytes += after.TotalAlloc - before.TotalAlloc
		}
	}
	return res
}

func parallel(workers, lo, hi int, fn func(int)) {
	if workers <= 1 {
		for i := lo; i < hi; i++ {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	next.Store(int64(lo))
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= hi {
					return
				}
				fn(i)
			}
		}()
	}
	wg.Wait()
}

// Report shows measured as the benchmark's ns/op, B/op and allocs/op, the
// baseline's time as <name>-ns/op, measured's throughput as a fraction of
// the baseline's as x-<name>, and its cost per call as a multiple of the
// baseline's as cost-vs-<name>.
func Report(b *testing.B, measured, baseline Result, name string) {
	b.ReportMetric(measured.NsPerOp(), "ns/op")
	b.ReportMetric(float64(measured.Bytes)/float64(measured.N), "B/op")
	b.ReportMetric(float64(measured.Allocs)/float64(measured.N), "allocs/op")
	b.ReportMetric(baseline.NsPerOp(), name+"-ns/op")
	b.ReportMetric(baseline.NsPerOp()/measured.NsPerOp(), "x-"+name)
	b.ReportMetric(measured.NsPerOp()/baseline.NsPerOp(), "cost-vs-"+name)
}
