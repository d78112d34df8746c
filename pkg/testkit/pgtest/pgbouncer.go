package pgtest

import (
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lexora-app/lexora/pkg/testkit/testport"
)

// PgBouncer starts a private PgBouncer (Debian's package, found through
// LEXORA_PGBOUNCER or /usr/sbin/pgbouncer; `make test` installs it) in
// transaction pooling mode in front of pool's database, and returns a
// connection URL through it. It is stopped when the test ends. The test fails
// when PgBouncer is missing or does not start.
func PgBouncer(t testing.TB, pool *pgxpool.Pool) string {
	t.Helper()
	bin := os.Getenv("LEXORA_PGBOUNCER")
	if bin == "" {
		bin = "/usr/sbin/pgbouncer"
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("pgtest: pgbouncer not found at %s (make test installs Debian's package): %v", bin, err)
	}
	admin, err := url.Parse(AdminURL())
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	// PgBouncer refuses to run as root; it drops to the postgres user, who
	// must be able to read its files.
	dir, err := os.MkdirTemp("", "lexora-pgbouncer-")
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() {
		if err := os.RemoveAll(dir); err != nil {
			t.Errorf("pgtest: %v", err)
		}
	})
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	port := testport.Free(t)
	ini := fmt.Sprintf(`[databases]
* = host=%s port=%s
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = %d
unix_socket_dir =
auth_type = trust
auth_file = %s
pool_mode = transaction
default_pool_size = 10
max_client_conn = 200
ignore_startup_parameters = extra_float_digits,statement_timeout,idle_in_transaction_session_timeout
logfile = %s
`, admin.Hostname(), admin.Port(), port, filepath.Join(dir, "users.txt"), filepath.Join(dir, "pgbouncer.log"))
	for name, body := range map[string]string{"pgbouncer.ini": ini, "users.txt": `"postgres" ""` + "\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatalf("pgtest: %v", err)
		}
	}
	args := []string{filepath.Join(dir, "pgbouncer.ini")}
	if os.Geteuid() == 0 {
		args = append([]string{"-u", "postgres"}, args...)
	}
	cmd := exec.Command(bin, args...)
	if err := cmd.Start(); err != nil {
		t.Fatalf("pgtest: start pgbouncer: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited //nolint:errcheck // killed by this cleanup: Wait only says so
	})
	addr := "127.0.0.1:" + strconv.Itoa(port)
	if err := testport.Await(addr, 10*time.Second, exited); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "pgbouncer.log"))
		t.Fatalf("pgtest: pgbouncer: %v\n%s", err, log)
	}
	u := *admin
	u.Host = addr
	u.Path = "/" + pool.Config().ConnConfig.Database
	return u.String()
}
