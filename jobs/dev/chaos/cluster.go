package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// cluster is a private PostgreSQL cluster made with initdb in a temporary
// folder, so that the harness may crash and restart it
// (pg_ctl restart -m immediate) without touching anyone else's server.
type cluster struct {
	dir   string // data directory
	port  int
	owner string // the system user that runs postgres when the harness is root; "" otherwise
	bin   string // folder of initdb and pg_ctl
}

// clusterSettings are written into postgresql.conf. They are the defaults
// of a PostgreSQL 15 server with two differences: autovacuum stays on (as on
// Cloud SQL; the machine's shared server runs with it off) and, with
// durable=false, fsync is off, which only matters when the machine itself
// crashes (an immediate shutdown loses nothing that was committed).
func clusterSettings(durable bool) []string {
	s := []string{
		"listen_addresses = '127.0.0.1'",
		"max_connections = 200",
		"autovacuum = on",
		"log_min_messages = warning",
		"logging_collector = off",
	}
	if !durable {
		s = append(s, "fsync = off", "full_page_writes = off")
	}
	return s
}

// newCluster runs initdb in a new folder under parent and starts the
// server on a free loopback port.
func newCluster(ctx context.Context, parent string, durable bool) (*cluster, error) {
	bin, err := pgBin()
	if err != nil {
		return nil, err
	}
	c := &cluster{dir: filepath.Join(parent, "pg"), port: freePort(), bin: bin}
	if os.Geteuid() == 0 {
		// initdb and postgres refuse to run as root (CI runs as root).
		c.owner = "postgres"
		if _, err := user.Lookup(c.owner); err != nil {
			return nil, fmt.Errorf("running as root needs the system user %q to own the cluster: %w", c.owner, err)
		}
	}
	if err := os.MkdirAll(c.dir, 0o700); err != nil {
		return nil, err
	}
	if c.owner != "" {
		// The owner must reach the folder through every parent.
		for d := c.dir; d != filepath.Dir(d) && strings.HasPrefix(d, parent); d = filepath.Dir(d) {
			if err := exec.Command("chown", c.owner, d).Run(); err != nil {
				return nil, fmt.Errorf("chown %s: %w", d, err)
			}
		}
		if err := os.Chmod(parent, 0o755); err != nil {
			return nil, err
		}
	}
	if out, err := c.run(ctx, "initdb", "-D", c.dir, "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--locale=C"); err != nil {
		return nil, fmt.Errorf("initdb: %w: %s", err, out)
	}
	conf := strings.Join(append(clusterSettings(durable), "port = "+strconv.Itoa(c.port),
		"unix_socket_directories = '"+c.dir+"'"), "\n") + "\n"
	f, err := os.OpenFile(filepath.Join(c.dir, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return nil, err
	}
	_, err = f.WriteString(conf)
	if err = errors.Join(err, f.Close()); err != nil {
		return nil, err
	}
	if out, err := c.run(ctx, "pg_ctl", "-D", c.dir, "-l", filepath.Join(c.dir, "server.log"), "-w", "-t", "60", "start"); err != nil {
		return nil, fmt.Errorf("pg_ctl start: %w: %s", err, out)
	}
	return c, nil
}

// URL is the connection string of database db, directly (not through a proxy).
func (c *cluster) URL(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", c.port, db)
}

// Addr is the server's host:port.
func (c *cluster) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(c.port)) }

// crashRestart stops the server the way a crash does (every backend killed,
// no checkpoint; the next start runs crash recovery) and starts it again.
func (c *cluster) crashRestart(ctx context.Context) error {
	// -l again: without it the new server would write to, and hold open,
	// this command's output pipe.
	if out, err := c.run(ctx, "pg_ctl", "-D", c.dir, "-l", filepath.Join(c.dir, "server.log"), "-m", "immediate", "-w", "-t", "60", "restart"); err != nil {
		return fmt.Errorf("pg_ctl restart -m immediate: %w: %s", err, out)
	}
	return nil
}

// stop shuts the server down (fast mode).
func (c *cluster) stop() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if out, err := c.run(ctx, "pg_ctl", "-D", c.dir, "-m", "fast", "-w", "stop"); err != nil {
		return fmt.Errorf("pg_ctl stop: %w: %s", err, out)
	}
	return nil
}

// exec runs one SQL statement on database db.
func (c *cluster) exec(ctx context.Context, db, sql string) (err error) {
	conn, err := pgx.Connect(ctx, c.URL(db))
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, conn.Close(ctx)) }()
	_, err = conn.Exec(ctx, sql)
	return err
}

func (c *cluster) run(ctx context.Context, tool string, args ...string) ([]byte, error) {
	path := filepath.Join(c.bin, tool)
	var cmd *exec.Cmd
	if c.owner != "" {
		cmd = exec.CommandContext(ctx, "runuser", append([]string{"-u", c.owner, "--", path}, args...)...)
	} else {
		cmd = exec.CommandContext(ctx, path, args...)
	}
	cmd.Dir = "/"
	return cmd.CombinedOutput()
}

// pgBin finds the folder of initdb and pg_ctl: on the PATH, or Debian's
// /usr/lib/postgresql/<version>/bin (the newest).
func pgBin() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool {
		vi, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[i])))
		vj, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[j])))
		return vi > vj
	})
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	return "", fmt.Errorf("cannot find initdb: install PostgreSQL (apt-get install postgresql)")
}

// freePort returns a loopback TCP port that was free a moment ago.
func freePort() int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(fmt.Sprintf("find a free port: %v", err))
	}
	port := l.Addr().(*net.TCPAddr).Port //nolint:forcetypeassert // a "tcp" listener's address is a *net.TCPAddr
	if err := l.Close(); err != nil {
		panic(fmt.Sprintf("free port %d: %v", port, err))
	}
	return port
}
