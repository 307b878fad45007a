package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/e2e/bound"
)

// The bounds of a tab, as on a quiet machine; bound.Of scales each.
const (
	// tabTimeout bounds each call a test makes in its tab (a navigation,
	// an evaluation, a poll, a DevTools call through tab.call). Most
	// tests run side by side, on two cores that others may share.
	tabTimeout = time.Minute
	// tabBackstop bounds everything one test does in its tab, for what
	// it does with the tab's context directly rather than through
	// tab.call: a hang the per-call bound does not see. It is no
	// budget: a test of many calls on a busy machine may take minutes.
	tabBackstop = 5 * time.Minute
	// tabOpenTimeout bounds the opening of a tab whose calls are bounded
	// one by one (openCorpusTab).
	tabOpenTimeout = 30 * time.Second
	// consoleFlushTimeout bounds the wait for the console marker at the
	// end of a test.
	consoleFlushTimeout = 5 * time.Second
	// pollTimeout bounds tab.poll.
	pollTimeout = 10 * time.Second
)

// tab is one browser tab that belongs to one test. Every console error and
// uncaught exception in it fails the test, unless the test allowed it.
type tab struct {
	t   testing.TB
	ctx context.Context
	// perCall, when set, bounds each call in the tab (openTab,
	// openCorpusTab); ctx then has at most the backstop's deadline.
	perCall time.Duration

	mu      sync.Mutex
	msgs    []chromedp.ConsoleMessage
	allowed []*regexp.Regexp
	marks   map[string]chan struct{}

	closeOnce sync.Once
	closeTab  func()
}

// openTab opens a new tab in b for the test. The tab closes when the test
// ends, or earlier with close, after the console has been checked. Each
// call in it is bounded by tabTimeout, and the whole tab only by
// tabBackstop, both scaled by bound.Of: no bound that fails a test covers
// its many steps at once.
func openTab(t testing.TB, b *browser) *tab {
	t.Helper()
	return openTabWith(t, b, bound.Of(tabBackstop), bound.Of(tabTimeout))
}

// openTabFor opens a tab as openTab does, bounded by timeout instead of
// tabTimeout: for a soak that runs for minutes. The timeout is taken as it
// is; a caller that gives a bound wraps it in bound.Of.
func openTabFor(t testing.TB, b *browser, timeout time.Duration) *tab {
	t.Helper()
	return openTabWith(t, b, timeout, 0)
}

// openCorpusTab opens a tab for a test that runs a corpus of cases in it.
// No bound covers the whole tab, which would grow with the corpus and
// with the machine's load at once: each call in it (a navigation, an
// evaluation, a poll, a DevTools call) is bounded by perCall instead,
// scaled by bound.Of, and so is the opening.
func openCorpusTab(t testing.TB, b *browser, perCall time.Duration) *tab {
	t.Helper()
	return openTabWith(t, b, 0, bound.Of(perCall))
}

// openTabWith opens a tab whose context ends after timeout, or never when
// timeout is 0, and whose calls are each bounded by perCall when it is
// not 0.
func openTabWith(t testing.TB, b *browser, timeout, perCall time.Duration) *tab {
	t.Helper()
	if skipReason != "" {
		t.Skip(skipReason)
	}
	tabCtx, cancelTab := chromedp.NewContext(b.ctx)
	ctx, cancel := tabCtx, context.CancelFunc(func() {})
	if timeout > 0 {
		ctx, cancel = context.WithTimeout(tabCtx, timeout)
	}
	tb := &tab{t: t, ctx: ctx, perCall: perCall, marks: make(map[string]chan struct{})}

	// Open the target first, so that the console subscription sees the
	// page from its first script on. The tab lives as long as the context
	// of that first call, so a bound of the opening alone only watches it.
	opened := make(chan error, 1)
	go func() { opened <- chromedp.Do(ctx) }()
	var err error
	select {
	case err = <-opened:
	case <-time.After(bound.Of(tabOpenTimeout)):
		err = fmt.Errorf("not opened within %v", bound.Of(tabOpenTimeout))
	}
	if err != nil {
		cancel()
		cancelTab()
		require.NoError(t, err, "opening a tab")
	}
	messages := chromedp.Console(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range messages {
			if err != nil {
				return
			}
			tb.record(m)
		}
	}()

	tb.closeTab = func() {
		tb.flushConsole()
		cancel()
		cancelTab()
		<-done
		tb.checkConsole()
	}
	t.Cleanup(tb.close)
	return tb
}

// close checks the console and closes the tab, once; the test's cleanup
// calls it too. A test that opens many tabs closes each when done with
// it, so that their renderers don't pile up.
func (tb *tab) close() {
	tb.closeOnce.Do(tb.closeTab)
}

// record keeps a console message, or releases the waiter of a marker.
func (tb *tab) record(m chromedp.ConsoleMessage) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if ch, ok := tb.marks[m.Text]; ok && m.Type == chromedp.ConsoleDebug {
		close(ch)
		delete(tb.marks, m.Text)
		return
	}
	tb.msgs = append(tb.msgs, m)
}

// flushConsole logs a marker in the page and waits until the listener has
// seen it. The console keeps the order of messages, so every message that the
// page wrote before the marker has been recorded when it returns.
func (tb *tab) flushConsole() {
	mark := fmt.Sprintf("e2e console mark %p", tb)
	ch := make(chan struct{})
	tb.mu.Lock()
	tb.marks[mark] = ch
	tb.mu.Unlock()
	flush := bound.Of(consoleFlushTimeout)
	ctx, cancel := context.WithTimeout(tb.ctx, flush)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](fmt.Sprintf("console.debug(%q)", mark))); err != nil {
		tb.t.Errorf("flushing the console: %v", err)
		return
	}
	select {
	case <-ch:
	case <-ctx.Done():
		tb.t.Errorf("flushing the console: the marker did not arrive within %v", flush)
	}
}

// checkConsole fails the test for each console error and uncaught exception
// that the test did not allow.
func (tb *tab) checkConsole() {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	for _, m := range tb.msgs {
		if m.Type != chromedp.ConsoleError && !m.IsException() {
			continue
		}
		if tb.isAllowed(m.Text) {
			continue
		}
		where := ""
		if m.URL != "" {
			where = fmt.Sprintf(" (%s:%d)", m.URL, m.Line+1)
		}
		tb.t.Errorf("page console: %s%s", m, where)
	}
}

func (tb *tab) isAllowed(text string) bool {
	for _, re := range tb.allowed {
		if re.MatchString(text) {
			return true
		}
	}
	return false
}

// allowConsole lets console errors whose text matches pattern pass. Use it
// for errors that the browser itself logs on purpose, never to hide a bug.
func (tb *tab) allowConsole(pattern string) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	tb.allowed = append(tb.allowed, regexp.MustCompile(pattern))
}

// consoleTexts returns the texts of the console messages seen so far.
func (tb *tab) consoleTexts() []string {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	var texts []string
	for _, m := range tb.msgs {
		texts = append(texts, m.String())
	}
	return texts
}

// call returns the context of one call in the tab: the tab's own, or,
// in a tab opened by openTab or openCorpusTab, one that ends after
// perCall.
func (tb *tab) call() (context.Context, context.CancelFunc) {
	if tb.perCall == 0 {
		return tb.ctx, func() {}
	}
	return context.WithTimeout(tb.ctx, tb.perCall)
}

// navigate loads the page at path on the test server and waits for its load
// event.
func (tb *tab) navigate(path string) {
	tb.t.Helper()
	ctx, cancel := tb.call()
	defer cancel()
	url := server.URL + "/" + strings.TrimPrefix(path, "/")
	require.NoError(tb.t, chromedp.Do(ctx, chromedp.Navigate(url)), "navigating to %s", path)
}

// eval evaluates the expression in the page, waits for the promise it
// returns, if any, and decodes the result into a value of type T.
func eval[T any](tb *tab, expression string) T {
	tb.t.Helper()
	ctx, cancel := tb.call()
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expression, chromedp.EvalAwaitPromise))
	require.NoError(tb.t, err, "evaluating %s", expression)
	return v
}

// poll waits until the expression is truthy in the page.
func (tb *tab) poll(expression string) {
	tb.t.Helper()
	ctx, cancel := tb.call()
	defer cancel()
	_, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](expression,
		chromedp.WithPollingInterval(10*time.Millisecond),
		chromedp.WithPollingTimeout(bound.Of(pollTimeout))))
	require.NoError(tb.t, err, "waiting for %s", expression)
}

// js renders v as a JavaScript literal.
func js(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("rendering %T as JavaScript: %v", v, err))
	}
	return string(b)
}

// settled is what e2e.settle in harness.js reports for a promise.
type settled struct {
	OK    bool            `json:"ok"`
	Value json.RawMessage `json:"value"`
	Type  string          `json:"type"`
	Error *jsError        `json:"error"`
}

// jsError is an exception as harness.js reports it.
type jsError struct {
	Name         string `json:"name"`
	Message      string `json:"message"`
	DOMException bool   `json:"domException"`
}

// String returns the string that a promise resolved with, and fails the test
// when it rejected or resolved with something else.
func (s settled) String(t testing.TB) string {
	t.Helper()
	require.Nil(t, s.Error, "the promise rejected")
	require.Equal(t, "string", s.Type, "type of the resolved value")
	var str string
	require.NoError(t, json.Unmarshal(s.Value, &str))
	return str
}
