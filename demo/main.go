// Command demo serves Veil's demo site (package
// [github.com/veilmcp/veil/demo/demoserver]) on 127.0.0.1:8080:
//
//	make demo            # builds dist/, then runs this
//	go run ./demo -addr 127.0.0.1:9000 -dist dist
//
// Environment:
//
//	VEIL_DEMO_ADDR   the address to listen on, when -addr is not given
//	REDIS_URL        keep redeemable secrets in Redis (redis://host:6379/0)
//	                 instead of in memory
//	VEIL_REDEEM_KEY  with REDIS_URL: the 32-byte redemption key, base64 or
//	                 hex, shared by every instance; random when unset
//
// It stops gracefully on SIGINT or SIGTERM.
package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/veilmcp/veil/demo/demoserver"
	"github.com/veilmcp/veil/redeem"
	"github.com/veilmcp/veil/redeem/redisstore"
)

const defaultAddr = "127.0.0.1:8080"

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

func run() error {
	addr := flag.String("addr", envOr("VEIL_DEMO_ADDR", defaultAddr), "address to listen on (env VEIL_DEMO_ADDR)")
	dist := flag.String("dist", "dist", "directory holding the built runtime")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))

	if fi, err := os.Stat(*dist); err != nil || !fi.IsDir() {
		return fmt.Errorf("no runtime in %s/: build it first with `make build` (or run `make demo`, which does)", *dist)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	ro, store, closeStore, err := redeemOptions(ctx, log)
	if err != nil {
		return err
	}
	defer closeStore()

	h, err := demoserver.New(&demoserver.Options{Dist: os.DirFS(*dist), Redeem: ro, Logger: log})
	if err != nil {
		return fmt.Errorf("%w; run `make build`", err)
	}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	fmt.Printf("Veil demo: http://%s/ (secrets in %s; Ctrl-C stops it)\n", ln.Addr(), store)

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	stop()
	fmt.Println("demo: shutting down")
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// redeemOptions chooses the redemption store: Redis when REDIS_URL is
// set, else redeem's memory store.
func redeemOptions(ctx context.Context, log *slog.Logger) (*redeem.Options, string, func(), error) {
	url := os.Getenv("REDIS_URL")
	if url == "" {
		return nil, "memory", func() {}, nil
	}
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, "", nil, fmt.Errorf("REDIS_URL: %w", err)
	}
	client := redis.NewClient(opt)
	ping, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := client.Ping(ping).Err(); err != nil {
		client.Close()
		return nil, "", nil, fmt.Errorf("connecting to Redis at %s: %w", opt.Addr, err)
	}
	key, err := redeemKey(log)
	if err != nil {
		client.Close()
		return nil, "", nil, err
	}
	ro := &redeem.Options{Key: key, Store: redisstore.New(client, nil)}
	return ro, "Redis at " + opt.Addr, func() { client.Close() }, nil
}

// redeemKey reads VEIL_REDEEM_KEY, or makes a random key: secrets then
// can't be redeemed by another instance or after a restart.
func redeemKey(log *slog.Logger) ([]byte, error) {
	text := os.Getenv("VEIL_REDEEM_KEY")
	if text == "" {
		log.Warn("demo: VEIL_REDEEM_KEY is not set; using a random key, so other instances and later runs cannot redeem this one's secrets")
		key := make([]byte, redeem.KeySize)
		_, _ = rand.Read(key)
		return key, nil
	}
	for _, decode := range []func(string) ([]byte, error){
		hex.DecodeString,
		base64.StdEncoding.DecodeString,
		base64.RawStdEncoding.DecodeString,
		base64.URLEncoding.DecodeString,
		base64.RawURLEncoding.DecodeString,
	} {
		if key, err := decode(text); err == nil && len(key) == redeem.KeySize {
			return key, nil
		}
	}
	return nil, fmt.Errorf("VEIL_REDEEM_KEY must be %d bytes in hex or base64", redeem.KeySize)
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
