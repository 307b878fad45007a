package redisstore_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// skipEnv names the variable that lets the Redis tests skip when
// redis-server can't be started. Without it they fail: a test run that
// silently skipped the Redis store would prove nothing about it.
const skipEnv = "VEIL_SKIP_REDIS"

// server is a redis-server these tests start on a free loopback port.
type server struct {
	addr string
	dir  string
	args []string

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{} // closed once cmd has been waited for
	log    *syncBuffer
}

// syncBuffer is a bytes.Buffer the redis-server's output can be written
// to while a test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// startServer starts redis-server with the extra configuration given
// (pairs of directive and value), in a fresh directory.
func startServer(dir string, extra ...string) (*server, error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, fmt.Errorf("redis-server is not on PATH: %w", err)
	}
	var last error
	for range 3 { // another process may take the port between probe and bind
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		s := &server{addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), dir: dir}
		s.args = append([]string{bin,
			"--port", strconv.Itoa(port), "--bind", "127.0.0.1",
			"--dir", dir, "--save", "", "--appendonly", "no",
			"--daemonize", "no", "--logfile", "",
		}, extra...)
		if last = s.start(); last == nil {
			return s, nil
		}
	}
	return nil, last
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// start (re)starts the server with its port, directory and configuration,
// and waits until it answers PING.
func (s *server) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = new(syncBuffer)
	s.cmd = exec.Command(s.args[0], s.args[1:]...)
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("starting redis-server: %w", err)
	}
	exited := make(chan struct{})
	s.exited = exited
	go func(cmd *exec.Cmd) { cmd.Wait(); close(exited) }(s.cmd)

	c := newClient(s.addr)
	defer c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		select {
		case <-exited:
			return fmt.Errorf("redis-server exited at start: %s", s.log)
		default:
		}
		// Dial first: go-redis logs every refused connection.
		err := errors.New("not listening yet")
		if conn, dialErr := net.DialTimeout("tcp", s.addr, 200*time.Millisecond); dialErr == nil {
			conn.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			err = c.Ping(ctx).Err()
			if err == nil {
				err = s.answersItself(ctx, c)
			}
			cancel()
		}
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			s.cmd.Process.Kill()
			return fmt.Errorf("redis-server at %s did not answer PING: %v; log: %s", s.addr, err, s.log)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// answersItself tells whether the server that answered PING at s.addr is
// this process: another test's server may have bound the same port first
// (both probed it free), and this one then exits on its failed bind,
// which the start loop sees, rather than sharing the other's server.
func (s *server) answersItself(ctx context.Context, c *redis.Client) error {
	info, err := c.Info(ctx, "server").Result()
	if err != nil {
		return err
	}
	want := "process_id:" + strconv.Itoa(s.cmd.Process.Pid) + "\r\n"
	if !strings.Contains(info, want) {
		return fmt.Errorf("another redis-server answers at %s", s.addr)
	}
	return nil
}

// stop shuts the server down gracefully (SIGTERM, which flushes the AOF)
// or, with crash, kills it.
func (s *server) stop(crash bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	sig := syscall.SIGTERM
	if crash {
		sig = syscall.SIGKILL
	}
	if err := s.cmd.Process.Signal(sig); err != nil {
		return err
	}
	select {
	case <-s.exited:
		return nil
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		return errors.New("redis-server did not stop within 10s")
	}
}

// signal sends sig to the server's process (SIGSTOP and SIGCONT pause
// and resume it).
func (s *server) signal(sig syscall.Signal) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cmd.Process.Signal(sig)
}

// running reports whether the server's process is alive.
func (s *server) running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.exited:
		return false
	default:
		return true
	}
}

// newClient returns a client that gives up quickly, so that a stopped
// server turns into an error in milliseconds.
func newClient(addr string) *redis.Client {
	return redis.NewClient(&redis.Options{
		Addr:                     addr,
		DialTimeout:              time.Second,
		ReadTimeout:              2 * time.Second,
		MaxRetries:               1,
		DialerRetries:            1,
		DialerRetryTimeout:       10 * time.Millisecond,
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
	})
}

var (
	sharedOnce   sync.Once
	shared       *server
	sharedErr    error
	sharedDir    string
	sharedClient *redis.Client
)

// needServer returns a fresh server for tests that stop or restart it.
func needServer(t testing.TB, extra ...string) (*server, *redis.Client) {
	t.Helper()
	s, err := startServer(t.TempDir(), extra...)
	if err != nil {
		noRedis(t, err)
	}
	t.Cleanup(func() { s.stop(false) })
	c := newClient(s.addr)
	t.Cleanup(func() { c.Close() })
	return s, c
}

// sharedServer returns the client of the server most tests share, started
// on first use and stopped by TestMain.
func sharedServer(t testing.TB) *redis.Client {
	t.Helper()
	sharedOnce.Do(func() {
		sharedDir, sharedErr = os.MkdirTemp("", "redisstore-test-")
		if sharedErr != nil {
			return
		}
		shared, sharedErr = startServer(sharedDir)
		if sharedErr == nil {
			sharedClient = newClient(shared.addr)
		}
	})
	if sharedErr != nil {
		noRedis(t, sharedErr)
	}
	return sharedClient
}

func noRedis(t testing.TB, err error) {
	t.Helper()
	if os.Getenv(skipEnv) == "1" {
		t.Skipf("%s=1: skipping a Redis test: %v", skipEnv, err)
	}
	t.Fatalf("%v\nThe Redis tests need redis-server (make deps installs it); set %s=1 to skip them instead.", err, skipEnv)
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared != nil {
		sharedClient.Close()
		shared.stop(false)
	}
	if sharedDir != "" {
		os.RemoveAll(sharedDir)
	}
	if sharedCl != nil {
		sharedCl.stop()
		os.RemoveAll(sharedCl.dir)
	}
	os.Exit(code)
}
