package bound

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

// MaxLoad is the most [Load] returns: past it a machine is not busy but
// overrun, and a bound that grew further would only delay the report of a
// test that hangs.
const MaxLoad = 4

// loadFile is where Linux says how many processes wanted a CPU, on
// average, over the last minute.
const loadFile = "/proc/loadavg"

// loadTTL is how long one reading of loadFile serves: the average it
// holds moves over a minute, not a millisecond.
const loadTTL = time.Second

var loadCache struct {
	sync.Mutex
	at    time.Time
	value float64
}

// Load returns how much busier than a quiet machine this one is now: the
// one-minute load average over the number of CPUs, at least 1 and at most
// [MaxLoad]. Where the load average cannot be read (a system without
// /proc/loadavg), it returns 1 and the bounds are as written.
func Load() float64 {
	loadCache.Lock()
	defer loadCache.Unlock()
	if now := time.Now(); now.Sub(loadCache.at) >= loadTTL || loadCache.value == 0 {
		loadCache.at, loadCache.value = now, 1
		if b, err := os.ReadFile(loadFile); err == nil {
			if avg, ok := parseLoadavg(string(b)); ok {
				loadCache.value = loadFactor(avg, runtime.NumCPU())
			}
		}
	}
	return loadCache.value
}

// parseLoadavg reads the one-minute average from loadFile's text, "0.52
// 0.58 0.59 1/467 12345".
func parseLoadavg(s string) (float64, bool) {
	field, _, _ := strings.Cut(strings.TrimSpace(s), " ")
	avg, err := strconv.ParseFloat(field, 64)
	if err != nil || avg < 0 || avg != avg || avg > 1e6 {
		return 0, false
	}
	return avg, true
}

// loadFactor is avg processes wanting cpus CPUs, as a factor between 1 and
// MaxLoad.
func loadFactor(avg float64, cpus int) float64 {
	if cpus < 1 {
		cpus = 1
	}
	return min(max(avg/float64(cpus), 1), MaxLoad)
}
