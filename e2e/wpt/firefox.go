package wpt

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// findFirefox returns Firefox, after checking that Node, which runs
// firefox.mjs, is there too.
func findFirefox() (string, error) {
	path, err := lookPath("VEIL_FIREFOX_PATH", "firefox-esr", "firefox")
	if err != nil {
		return "", fmt.Errorf("firefox: %w (make deps installs firefox-esr)", err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		return "", errors.New("firefox: node, which drives it, is not on PATH (make test installs npm, and with it node)")
	}
	return path, nil
}

// firefox is headless Firefox driven over WebDriver BiDi by firefox.mjs,
// a Node script that puppeteer-core runs it with.
type firefox struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	replies chan ffReply
	stderr  *tailBuffer
	mu      sync.Mutex // one Open at a time
	id      int        // of the last Open
}

// ffReply is one line of firefox.mjs.
type ffReply struct {
	ID    int    `json:"id"`
	Ready string `json:"ready"`
	OK    bool   `json:"ok"`
	Error string `json:"error"`
}

func startFirefox(ctx context.Context, _ Mode, root string) (Browser, error) {
	ffPath, err := findFirefox()
	if err != nil {
		return nil, err
	}
	script := filepath.Join(root, "e2e", "wpt", "firefox.mjs")
	if _, err := os.Stat(filepath.Join(root, "node_modules", "puppeteer-core", "package.json")); err != nil {
		return nil, fmt.Errorf("firefox: puppeteer-core, which drives it, is not installed (npm ci installs it): %w", err)
	}
	cmd := exec.Command("node", script, ffPath)
	cmd.Dir = root
	ownGroup(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	b := &firefox{cmd: cmd, stdin: stdin, replies: make(chan ffReply, 1), stderr: &tailBuffer{max: 4096}}
	cmd.Stderr = b.stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("firefox: starting node %s: %w", script, err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var r ffReply
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				r.Error = fmt.Sprintf("firefox.mjs wrote %q", sc.Text())
			}
			b.replies <- r
		}
		close(b.replies)
	}()
	r, err := b.reply(ctx, 0, startTimeout())
	if err == nil && r.Error != "" {
		err = errors.New(r.Error)
	}
	if err == nil && r.Ready == "" {
		err = errors.New("firefox.mjs did not say it was ready")
	}
	if err != nil {
		b.Close()
		return nil, fmt.Errorf("firefox: starting %s: %w%s", ffPath, err, b.stderr.note())
	}
	return b, nil
}

// reply waits for the script's next line about request id (0 for the
// start), passing over answers to requests no longer waited for.
func (b *firefox) reply(ctx context.Context, id int, timeout time.Duration) (ffReply, error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	for {
		select {
		case r, ok := <-b.replies:
			if !ok {
				return r, errors.New("firefox.mjs exited")
			}
			if r.ID != id {
				continue
			}
			return r, nil
		case <-t.C:
			return ffReply{}, fmt.Errorf("no answer from firefox.mjs within %v", timeout)
		case <-ctx.Done():
			return ffReply{}, ctx.Err()
		}
	}
}

// Open asks firefox.mjs to navigate and waits for the page's
// DOMContentLoaded.
func (b *firefox) Open(ctx context.Context, url string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.id++
	line, _ := json.Marshal(map[string]any{"id": b.id, "url": url})
	if _, err := b.stdin.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("firefox.mjs: %w%s", err, b.stderr.note())
	}
	r, err := b.reply(ctx, b.id, openTimeout())
	if err != nil {
		return fmt.Errorf("%w%s", err, b.stderr.note())
	}
	if r.Error != "" {
		return errors.New(r.Error)
	}
	return nil
}

// Close ends firefox.mjs's input, which closes Firefox, and kills what
// is left of both after a grace period.
func (b *firefox) Close() error {
	b.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- b.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		killGroup(b.cmd)
		<-done
	}
	killGroup(b.cmd)
	return nil
}

// tailBuffer keeps the last max bytes written to it: a program's
// stderr, to quote when it fails.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

// note returns "; stderr: …" with what was kept, or "".
func (t *tailBuffer) note() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.TrimSpace(string(bytes.ToValidUTF8(t.b, nil)))
	if s == "" {
		return ""
	}
	return "; stderr: " + s
}
