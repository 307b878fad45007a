package ops

import (
	"runtime"
	"runtime/metrics"

	"github.com/veilmcp/veil/wasm/engine"
)

// statsMetrics are the runtime metrics a StatsReply carries, in its order.
var statsMetrics = []string{"/gc/heap/live:bytes", "/memory/classes/heap/objects:bytes", "/memory/classes/total:bytes"}

// stats reads the engine's memory, after a garbage collection when gc is
// set, and counts what e holds.
func stats(e *engine.Engine, gc bool) StatsReply {
	if gc {
		// Twice: what sync.Pools keep survives one collection, in their
		// victim caches, though nothing uses it.
		runtime.GC()
		runtime.GC()
	}
	samples := make([]metrics.Sample, len(statsMetrics))
	for i, name := range statsMetrics {
		samples[i].Name = name
	}
	metrics.Read(samples)
	v := make([]uint64, len(samples))
	for i, s := range samples {
		if s.Value.Kind() == metrics.KindUint64 {
			v[i] = s.Value.Uint64()
		}
	}
	needles, full := e.ScrubNeedles()
	return StatsReply{HeapLiveBytes: v[0], HeapObjectsBytes: v[1], TotalBytes: v[2], Held: len(e.Items()), ScrubNeedles: needles, ScrubFull: full}
}
