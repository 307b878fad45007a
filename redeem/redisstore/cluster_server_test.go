package redisstore_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// cluster is a Redis Cluster of three masters with one replica each,
// started by the tests on free loopback ports.
type cluster struct {
	nodes []*server
	dir   string
}

// startCluster starts six cluster-enabled servers, joins them with
// redis-cli --cluster create and waits until every node reports the
// cluster ok with all of its slots served.
func startCluster(dir string) (*cluster, error) {
	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		return nil, fmt.Errorf("redis-cli is not on PATH: %w", err)
	}
	c := &cluster{dir: dir}
	for i := range 6 {
		d := filepath.Join(dir, fmt.Sprint(i))
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
		s, err := startServer(d, "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
			"--cluster-node-timeout", "1000", "--cluster-replica-validity-factor", "0")
		if err != nil {
			c.stop()
			return nil, err
		}
		c.nodes = append(c.nodes, s)
	}
	args := []string{"--cluster", "create"}
	for _, s := range c.nodes {
		args = append(args, s.addr)
	}
	args = append(args, "--cluster-replicas", "1", "--cluster-yes")
	if out, err := exec.Command(cli, args...).CombinedOutput(); err != nil {
		c.stop()
		return nil, fmt.Errorf("redis-cli --cluster create: %v: %s", err, out)
	}
	if err := c.waitOK(20 * time.Second); err != nil {
		c.stop()
		return nil, err
	}
	return c, nil
}

// waitOK waits until every running node reports cluster_state:ok and the
// same view of the masters and their replicas.
func (c *cluster) waitOK(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	ctx := context.Background()
	for {
		var last error
		views := map[string]bool{}
		for _, s := range c.nodes {
			if !s.running() {
				continue
			}
			n := newClient(s.addr)
			info, err := n.ClusterInfo(ctx).Result()
			nodes, err2 := n.ClusterNodes(ctx).Result()
			n.Close()
			switch {
			case err != nil:
				last = err
			case err2 != nil:
				last = err2
			case !strings.Contains(info, "cluster_state:ok") || !strings.Contains(info, "cluster_slots_ok:16384"):
				last = fmt.Errorf("%s: %s", s.addr, firstLine(info))
			default:
				views[topology(nodes)] = true
			}
		}
		if last == nil && len(views) == 1 {
			return nil
		}
		if last == nil {
			last = fmt.Errorf("the nodes disagree on the topology: %d views", len(views))
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the cluster did not settle in %v: %v", timeout, last)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// topology reduces CLUSTER NODES to who is master, who replicates whom,
// and the slots, leaving out what changes by the second.
func topology(nodes string) string {
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(nodes), "\n") {
		f := strings.Fields(l)
		if len(f) < 8 || strings.Contains(f[2], "fail") {
			continue
		}
		role := strings.ReplaceAll(f[2], "myself,", "")
		lines = append(lines, strings.Join(append([]string{f[0], role, f[3]}, f[8:]...), " "))
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return strings.TrimSpace(s[:i])
	}
	return s
}

func (c *cluster) addrs() []string {
	var a []string
	for _, s := range c.nodes {
		a = append(a, s.addr)
	}
	return a
}

// client returns a cluster client that gives up quickly.
func (c *cluster) client() *redis.ClusterClient {
	return redis.NewClusterClient(&redis.ClusterOptions{
		Addrs:                    c.addrs(),
		DialTimeout:              time.Second,
		ReadTimeout:              2 * time.Second,
		MaxRedirects:             8,
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
	})
}

// node is one line of CLUSTER NODES.
type node struct {
	id, addr, master string
	isMaster         bool
}

// nodes reads CLUSTER NODES from a running node.
func (c *cluster) nodesView() ([]node, error) {
	for _, s := range c.nodes {
		if !s.running() {
			continue
		}
		n := newClient(s.addr)
		out, err := n.ClusterNodes(context.Background()).Result()
		n.Close()
		if err != nil {
			return nil, err
		}
		var list []node
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			f := strings.Fields(l)
			if len(f) < 8 || strings.Contains(f[2], "fail") {
				continue
			}
			list = append(list, node{id: f[0], addr: strings.Split(f[1], "@")[0], master: f[3], isMaster: strings.Contains(f[2], "master")})
		}
		return list, nil
	}
	return nil, fmt.Errorf("no node of the cluster is running")
}

// server returns the cluster's server at addr.
func (c *cluster) server(addr string) *server {
	for _, s := range c.nodes {
		if s.addr == addr {
			return s
		}
	}
	return nil
}

func (c *cluster) stop() {
	for _, s := range c.nodes {
		if s.running() {
			s.stop(true)
		}
	}
}

var (
	clusterOnce sync.Once
	sharedCl    *cluster
	clusterErr  error
)

// sharedCluster returns the cluster the cluster tests share, started on
// first use and stopped by TestMain.
func sharedCluster(t testing.TB) *cluster {
	t.Helper()
	clusterOnce.Do(func() {
		dir, err := os.MkdirTemp("", "redisstore-cluster-")
		if err != nil {
			clusterErr = err
			return
		}
		sharedCl, clusterErr = startCluster(dir)
		if clusterErr != nil {
			os.RemoveAll(dir)
		}
	})
	if clusterErr != nil {
		noRedis(t, clusterErr)
	}
	return sharedCl
}
