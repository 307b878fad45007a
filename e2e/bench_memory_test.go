package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/heapprofiler"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/tracing"
	"github.com/chromedp/chromedp"
)

// The benchmark measures memory in two ways, each after a garbage
// collection in the page and its workers:
//
//   - WebAssembly memory: the byteLength of every WebAssembly.Memory that
//     Runtime.queryObjects finds in the page and in each dedicated worker
//     it started (in Worker mode the engine's memory lives in the worker's
//     isolate, which the page's context does not see). WebAssembly memory
//     only grows, so its size after a call is paid for the life of the tab.
//   - the tab's memory: the private resident memory (RssAnon in
//     /proc/PID/status) of the renderer process that holds the page and
//     its workers. A dedicated worker is a thread of its page's renderer.

// wasmMemory is the total byteLength of the WebAssembly memories of the
// tab's page and of the workers it started, after a garbage collection.
func wasmMemory(tb *tab) (int64, error) {
	total, err := wasmMemoryIn(tb.ctx)
	if err != nil {
		return 0, fmt.Errorf("in the page: %w", err)
	}
	workers, release, err := workerTargets(tb)
	defer release()
	if err != nil {
		return 0, err
	}
	for _, w := range workers {
		n, err := wasmMemoryIn(w)
		if err != nil {
			return 0, fmt.Errorf("in a worker: %w", err)
		}
		total += n
	}
	return total, nil
}

// wasmMemoryIn sums the memories of the execution context of ctx's target.
func wasmMemoryIn(ctx context.Context) (int64, error) {
	const group = "veil-bench-memory"
	if _, err := chromedp.Call(ctx, heapprofiler.CollectGarbage, cdp.Empty{}); err != nil {
		return 0, fmt.Errorf("HeapProfiler.collectGarbage: %w", err)
	}
	proto, err := chromedp.Call(ctx, runtime.Evaluate, runtime.EvaluateParams{Expression: "WebAssembly.Memory.prototype", ObjectGroup: group})
	if err == nil && proto.ExceptionDetails != nil {
		err = errors.New(proto.ExceptionDetails.Text)
	}
	if err != nil {
		return 0, fmt.Errorf("finding WebAssembly.Memory.prototype: %w", err)
	}
	defer chromedp.Call(ctx, runtime.ReleaseObjectGroup, runtime.ReleaseObjectGroupParams{ObjectGroup: group})
	objs, err := chromedp.Call(ctx, runtime.QueryObjects, runtime.QueryObjectsParams{PrototypeObjectID: proto.Result.ObjectID, ObjectGroup: group})
	if err != nil {
		return 0, fmt.Errorf("Runtime.queryObjects: %w", err)
	}
	byValue := true
	sum, err := chromedp.Call(ctx, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: "function () { return this.reduce((n, m) => n + m.buffer.byteLength, 0); }",
		ObjectID:            objs.Objects.ObjectID,
		ReturnByValue:       &byValue,
	})
	if err != nil {
		return 0, fmt.Errorf("reading the memories' sizes: %w", err)
	}
	if sum.ExceptionDetails != nil {
		return 0, fmt.Errorf("reading the memories' sizes: %s", sum.ExceptionDetails.Text)
	}
	var n int64
	if err := json.Unmarshal(sum.Result.Value, &n); err != nil {
		return 0, fmt.Errorf("reading the memories' sizes: %w", err)
	}
	return n, nil
}

// workerTargets attaches to the dedicated workers the tab's page started
// and returns a context for each, and release, which detaches from them
// and leaves them running.
func workerTargets(tb *tab) (ctxs []context.Context, release func(), err error) {
	var cancels []context.CancelFunc
	release = func() {
		for _, cancel := range cancels {
			cancel()
		}
	}
	infos, err := chromedp.Targets(tb.ctx)
	if err != nil {
		return nil, release, fmt.Errorf("listing targets: %w", err)
	}
	page := chromedp.FromContext(tb.ctx).Target.TargetID
	for _, info := range infos {
		if info.Type != "worker" || string(info.ParentFrameID) != string(page) {
			continue
		}
		ctx, cancel := chromedp.NewContext(tb.ctx, chromedp.WithTargetID(info.TargetID), chromedp.WithDetachOnCancel())
		cancels = append(cancels, cancel)
		if err := chromedp.Do(ctx); err != nil {
			return nil, release, fmt.Errorf("attaching to the worker %s: %w", info.URL, err)
		}
		ctxs = append(ctxs, ctx)
	}
	return ctxs, release, nil
}

// tabMemory is the private resident memory of the tab's renderer process,
// after a garbage collection in the page and its workers.
func tabMemory(tb *tab) (int64, error) {
	ctxs, release, err := workerTargets(tb)
	defer release()
	if err != nil {
		return 0, err
	}
	for _, ctx := range append(ctxs, tb.ctx) {
		if _, err := chromedp.Call(ctx, heapprofiler.CollectGarbage, cdp.Empty{}); err != nil {
			return 0, fmt.Errorf("HeapProfiler.collectGarbage: %w", err)
		}
	}
	pid, err := rendererPID(tb)
	if err != nil {
		return 0, err
	}
	return privateMemory(pid)
}

// rendererPID finds the tab's renderer process. The DevTools protocol
// lists the browser's processes (SystemInfo.getProcessInfo) but not which
// tab each holds; a trace does: Chromium starts one with a
// TracingStartedInBrowser event that lists the traced tab's frames with
// the process that renders each.
func rendererPID(tb *tab) (int64, error) {
	ctx, cancel := context.WithCancel(tb.ctx)
	defer cancel()
	var mu sync.Mutex
	var events []jsonv2.Value
	done := make(chan struct{})
	err := chromedp.Listen(ctx, func(ev any) {
		switch ev := ev.(type) {
		case *tracing.EventDataCollected:
			mu.Lock()
			events = append(events, ev.Value...)
			mu.Unlock()
		case *tracing.EventTracingComplete:
			close(done)
		}
	})
	if err != nil {
		return 0, err
	}
	_, err = chromedp.Call(ctx, tracing.Start, tracing.StartParams{
		TransferMode: tracing.StartTransferModeReportEvents,
		TraceConfig:  &tracing.TraceConfig{IncludedCategories: []string{"disabled-by-default-devtools.timeline"}},
	})
	if err != nil {
		return 0, fmt.Errorf("Tracing.start: %w", err)
	}
	if _, err := chromedp.Call(ctx, tracing.End, cdp.Empty{}); err != nil {
		return 0, fmt.Errorf("Tracing.end: %w", err)
	}
	select {
	case <-done:
	case <-ctx.Done():
		return 0, ctx.Err()
	}

	page := string(chromedp.FromContext(tb.ctx).Target.TargetID)
	mu.Lock()
	defer mu.Unlock()
	for _, raw := range events {
		var ev struct {
			Name string `json:"name"`
			Args struct {
				Data struct {
					Frames []struct {
						Frame     string `json:"frame"`
						ProcessID int64  `json:"processId"`
					} `json:"frames"`
				} `json:"data"`
			} `json:"args"`
		}
		if json.Unmarshal(raw, &ev) != nil || ev.Name != "TracingStartedInBrowser" {
			continue
		}
		for _, f := range ev.Args.Data.Frames {
			if f.Frame == page && f.ProcessID > 0 {
				return f.ProcessID, nil
			}
		}
	}
	return 0, errors.New("the trace named no process for the tab's frame")
}

// privateMemory is the process's private resident memory: RssAnon in
// /proc/PID/status, which Linux has.
func privateMemory(pid int64) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		k, v, ok := strings.Cut(s.Text(), ":")
		if !ok || k != "RssAnon" {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("reading RssAnon of process %d: %w", pid, err)
		}
		return kb << 10, nil
	}
	if err := s.Err(); err != nil {
		return 0, err
	}
	return 0, errors.New("no RssAnon in /proc/PID/status")
}
