package childproc_test

import (
	"bytes"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/jobs/dev/internal/childproc"
	"github.com/lexora-app/lexora/pkg/testkit/leaktest"
)

// TestMain fails the package's tests when they leave goroutines running.
func TestMain(m *testing.M) { leaktest.Main(m) }

// lineRecorder keeps the lines OnLine receives.
type lineRecorder struct {
	mu    sync.Mutex
	lines []string
}

func (l *lineRecorder) add(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, line)
}

func sh(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("sh")
	require.NoError(t, err)
	return path
}

func TestStartReadsEveryLine(t *testing.T) {
	t.Parallel()
	var log bytes.Buffer
	var rec lineRecorder
	p, err := childproc.Start(childproc.Spec{
		Name: "echo", Path: sh(t),
		Args:   []string{"-c", `echo "$GREETING"; echo; echo err >&2; printf 'last\r\n'; printf tail; exit 3`},
		Env:    []string{"GREETING=hello"},
		Log:    &log,
		OnLine: rec.add,
	})
	require.NoError(t, err)
	<-p.Done()

	assert.Equal(t, []string{"hello", "", "err", "last", "tail"}, rec.lines)
	assert.Equal(t, 3, p.ExitCode())
	var exit *exec.ExitError
	require.ErrorAs(t, p.Err(), &exit)
	assert.Equal(t, "echo", p.Name())
	first := strings.SplitN(log.String(), "\n", 2)[0]
	assert.Regexp(t, `^\[echo \d+\] hello$`, first)
}

func TestStartMissingExecutable(t *testing.T) {
	t.Parallel()
	_, err := childproc.Start(childproc.Spec{Name: "ghost", Path: "/nonexistent/ghost"})
	require.ErrorContains(t, err, "start ghost")
}

func TestStopTerminates(t *testing.T) {
	t.Parallel()
	// exec: the shell becomes sleep, which SIGTERM ends.
	p, err := childproc.Start(childproc.Spec{Name: "sleep", Path: sh(t), Args: []string{"-c", "exec sleep 60"}})
	require.NoError(t, err)
	killed, err := p.Stop(time.Minute, nil)
	require.NoError(t, err)
	assert.False(t, killed)
	assert.Equal(t, -1, p.ExitCode())

	// Stopping an exited child does nothing.
	killed, err = p.Stop(time.Minute, nil)
	require.NoError(t, err)
	assert.False(t, killed)
}

func TestStopKillsWhenForced(t *testing.T) {
	t.Parallel()
	ready := make(chan struct{})
	var once sync.Once
	// The child ignores SIGTERM and says so once its trap is set.
	p, err := childproc.Start(childproc.Spec{
		Name: "stubborn", Path: sh(t),
		Args:   []string{"-c", `trap '' TERM; echo ready; while :; do sleep 1; done`},
		OnLine: func(string) { once.Do(func() { close(ready) }) },
	})
	require.NoError(t, err)
	<-ready
	force := make(chan struct{})
	close(force)
	killed, err := p.Stop(time.Minute, force)
	require.NoError(t, err)
	assert.True(t, killed)
	var exit *exec.ExitError
	require.ErrorAs(t, p.Err(), &exit)
	ws, ok := exit.Sys().(syscall.WaitStatus)
	require.True(t, ok)
	assert.Equal(t, syscall.SIGKILL, ws.Signal())
}
