package wpt

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/veilmcp/veil/e2e/bound"
)

// startTimeout bounds the start of one browser: two minutes, scaled by
// bound.Of. Firefox alone starts in about five seconds; beside the
// browser suite on two shared cores it has taken more than thirty.
func startTimeout() time.Duration { return bound.Of(2 * time.Minute) }

// openTimeout bounds one navigation's start (Firefox: up to the page's
// DOMContentLoaded): a minute, scaled by bound.Of.
func openTimeout() time.Duration { return bound.Of(time.Minute) }

func findChromium() (string, error) {
	p, err := lookPath("CHROME_PATH", "chromium", "chromium-browser", "google-chrome")
	if err != nil {
		return "", fmt.Errorf("chromium: %w (make deps installs it)", err)
	}
	return p, nil
}

// chromium is headless Chromium driven over the DevTools protocol.
type chromium struct {
	ctx    context.Context
	cancel context.CancelFunc
}

// startChromium starts headless Chromium kept off the network, with its
// own WebMCP turned on in native mode and below the runtime in the
// layered modes.
func startChromium(ctx context.Context, mode Mode, _ string) (Browser, error) {
	execPath, err := findChromium()
	if err != nil {
		return nil, err
	}
	opts := ChromiumOptions(execPath, mode.nativeOn())
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.WithoutCancel(ctx), opts...)
	tabCtx, cancelTab := chromedp.NewContext(allocCtx)
	b := &chromium{ctx: tabCtx, cancel: func() { cancelTab(); cancelAlloc() }}
	// The first Do starts the browser; it must not carry a timeout, so
	// the timeout only watches it.
	done := make(chan error, 1)
	go func() { done <- chromedp.Do(tabCtx) }()
	select {
	case err := <-done:
		if err != nil {
			b.cancel()
			return nil, fmt.Errorf("starting %s: %w", execPath, err)
		}
	case <-time.After(startTimeout()):
		b.cancel()
		return nil, fmt.Errorf("starting %s: not started within %v", execPath, startTimeout())
	case <-ctx.Done():
		b.cancel()
		return nil, ctx.Err()
	}
	// A dialog would stop the page until someone answers it.
	err = chromedp.Listen(tabCtx, func(ev any) {
		if _, ok := ev.(*page.EventJavascriptDialogOpening); ok {
			go chromedp.Call(tabCtx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{})
		}
	})
	if err != nil {
		b.cancel()
		return nil, fmt.Errorf("listening for dialogs: %w", err)
	}
	return b, nil
}

// Open navigates without waiting for the load event.
func (b *chromium) Open(ctx context.Context, url string) error {
	ctx, cancel := context.WithTimeout(ctx, openTimeout())
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		res, err := chromedp.Call(b.ctx, page.Navigate, page.NavigateParams{URL: url})
		if err == nil && res.ErrorText != "" {
			err = errors.New(res.ErrorText)
		}
		errc <- err
	}()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		return fmt.Errorf("navigating: %w", ctx.Err())
	}
}

// Close stops Chromium.
func (b *chromium) Close() error {
	b.cancel()
	return nil
}

// ChromiumOptions are the flags Chromium runs with in the runner and in
// the browser suite of package e2e: headless, off the network (it talks
// to the test servers only), without its sandbox as root, and with its
// own WebMCP when nativeWebMCP is set.
func ChromiumOptions(execPath string, nativeWebMCP bool) []chromedp.ExecAllocatorOption {
	features := "NetworkService,NetworkServiceInProcess"
	if nativeWebMCP {
		// The flag replaces chromedp's own enable-features value, so
		// that value is repeated here.
		features = "WebMCP," + features
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(execPath),
		chromedp.Flag("enable-features", features),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
	)
	if os.Geteuid() == 0 {
		// Chromium refuses to start its sandbox as root (containers, CI).
		opts = append(opts, chromedp.NoSandbox)
	}
	return opts
}
