package wpt

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// findWebKit returns WebKitWebDriver and Xvfb, the X server its browser
// (MiniBrowser) draws into.
func findWebKit() (driver, xvfb string, err error) {
	driver, err = lookPath("VEIL_WEBKIT_DRIVER", "WebKitWebDriver")
	if err != nil {
		return "", "", fmt.Errorf("webkit: %w (make deps installs webkit2gtk-driver)", err)
	}
	xvfb, err = lookPath("VEIL_XVFB_PATH", "Xvfb")
	if err != nil {
		return "", "", fmt.Errorf("webkit: %w (make deps installs xvfb)", err)
	}
	return driver, xvfb, nil
}

// webkit is WebKitGTK's MiniBrowser driven over W3C WebDriver by
// WebKitWebDriver, on an Xvfb display of its own.
type webkit struct {
	xvfb, driver *exec.Cmd
	driverErr    *tailBuffer
	base         string // http://127.0.0.1:PORT/session/ID
}

func startWebKit(ctx context.Context, _ Mode, _ string) (Browser, error) {
	driverPath, xvfbPath, err := findWebKit()
	if err != nil {
		return nil, err
	}
	b := &webkit{driverErr: &tailBuffer{max: 4096}}
	display, err := b.startXvfb(xvfbPath)
	if err != nil {
		b.Close()
		return nil, fmt.Errorf("webkit: starting %s: %w", xvfbPath, err)
	}
	if err := b.startDriver(ctx, driverPath, display); err != nil {
		b.Close()
		return nil, fmt.Errorf("webkit: starting %s: %w%s", driverPath, err, b.driverErr.note())
	}
	return b, nil
}

// startXvfb starts Xvfb on a display it picks as free, and returns the
// display's number.
func (b *webkit) startXvfb(xvfbPath string) (int, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return 0, err
	}
	defer r.Close()
	errs := &tailBuffer{max: 2048}
	// -displayfd 3: Xvfb writes the display it found free to fd 3.
	cmd := exec.Command(xvfbPath, "-displayfd", "3", "-screen", "0", "1280x1024x24", "-nolisten", "tcp")
	cmd.ExtraFiles = []*os.File{w}
	cmd.Stderr = errs
	ownGroup(cmd)
	if err := cmd.Start(); err != nil {
		w.Close()
		return 0, err
	}
	w.Close()
	b.xvfb = cmd
	got := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		got <- strings.TrimSpace(line)
	}()
	select {
	case line := <-got:
		n, err := strconv.Atoi(line)
		if err != nil {
			return 0, fmt.Errorf("no display number from -displayfd (%q)%s", line, errs.note())
		}
		return n, nil
	case <-time.After(startTimeout()):
		return 0, fmt.Errorf("no display within %v%s", startTimeout(), errs.note())
	}
}

// startDriver starts WebKitWebDriver on a free port and opens a session,
// whose navigations return without waiting for the page to load.
func (b *webkit) startDriver(ctx context.Context, driverPath string, display int) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	cmd := exec.Command(driverPath, "--port="+strconv.Itoa(port))
	cmd.Env = append(os.Environ(), fmt.Sprintf("DISPLAY=:%d", display))
	cmd.Stdout = b.driverErr
	cmd.Stderr = b.driverErr
	ownGroup(cmd)
	if err := cmd.Start(); err != nil {
		return err
	}
	b.driver = cmd
	root := fmt.Sprintf("http://127.0.0.1:%d", port)
	ctx, cancel := context.WithTimeout(ctx, startTimeout())
	defer cancel()
	for {
		var status struct {
			Ready bool `json:"ready"`
		}
		if err := webDriver(ctx, http.MethodGet, root+"/status", nil, &status); err == nil && status.Ready {
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("not ready on port %d within %v", port, startTimeout())
		case <-time.After(50 * time.Millisecond):
		}
	}
	var session struct {
		SessionID string `json:"sessionId"`
	}
	caps := map[string]any{"capabilities": map[string]any{"alwaysMatch": map[string]any{
		"pageLoadStrategy":        "none",
		"unhandledPromptBehavior": "dismiss",
		// The arguments replace the driver's own, so --automation is
		// repeated; tests may open windows (window.open), as WPT's
		// runners let them.
		"webkitgtk:browserOptions": map[string]any{
			"args": []string{"--automation", "--javascript-can-open-windows-automatically=true"},
		},
	}}}
	if err := webDriver(ctx, http.MethodPost, root+"/session", caps, &session); err != nil {
		return fmt.Errorf("new session: %w", err)
	}
	b.base = root + "/session/" + session.SessionID
	return nil
}

// Open navigates; the session's page load strategy "none" makes it
// return once the navigation has started.
func (b *webkit) Open(ctx context.Context, url string) error {
	ctx, cancel := context.WithTimeout(ctx, openTimeout())
	defer cancel()
	return webDriver(ctx, http.MethodPost, b.base+"/url", map[string]string{"url": url}, nil)
}

// Close deletes the session, which closes the browser, and stops
// WebKitWebDriver and Xvfb.
func (b *webkit) Close() error {
	if b.base != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		webDriver(ctx, http.MethodDelete, b.base, nil, nil)
		cancel()
	}
	for _, cmd := range []*exec.Cmd{b.driver, b.xvfb} {
		if cmd != nil {
			killGroup(cmd)
			cmd.Wait()
		}
	}
	return nil
}

// webDriver sends one W3C WebDriver command and decodes its value into
// out; a WebDriver error is returned as an error that names it.
func webDriver(ctx context.Context, method, url string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var reply struct {
		Value json.RawMessage `json:"value"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&reply); err != nil {
		return fmt.Errorf("%s %s: %s, reading the reply: %w", method, url, resp.Status, err)
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error   string `json:"error"`
			Message string `json:"message"`
		}
		json.Unmarshal(reply.Value, &e)
		return fmt.Errorf("%s %s: %s: %s: %s", method, url, resp.Status, e.Error, e.Message)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(reply.Value, out)
}

// freePort returns a loopback port that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
