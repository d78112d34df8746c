// Package childproc starts and stops the child processes of the development
// tools (devstack, chaos): each child leads its own process group, dies with
// its parent, and has its stdout and stderr read line by line.
package childproc

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// Spec says what to start.
type Spec struct {
	Name string   // the child's name in log lines and errors
	Path string   // the executable
	Args []string // its arguments, without the program name
	Env  []string // added to the parent's environment; later entries win
	// Log, when not nil, receives each output line as "[name pid] line".
	Log io.Writer
	// OnLine, when not nil, is called with each output line (without its
	// line ending), after Log, from one goroutine per child.
	OnLine func(line string)
}

// Proc is a started child process.
type Proc struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
	err  error // from Wait; read only after done is closed
}

// pipeGrace bounds the wait for the rest of a child's output after it has
// exited: a grandchild may still hold the pipe open.
const pipeGrace = time.Second

// Start starts the child with stdin from /dev/null and stdout and stderr
// merged into one pipe. The child leads its own process group, so that a
// terminal's Ctrl-C reaches the parent alone (which then stops its children
// in order) and a signal from Signal or Stop reaches grandchildren too; it
// gets SIGKILL when the parent dies, so that no child outlives it (Linux).
// The error wraps the one from exec when the child cannot be started.
func Start(s Spec) (*Proc, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", s.Name, err)
	}
	cmd := exec.Command(s.Path, s.Args...)
	cmd.Env = append(os.Environ(), s.Env...)
	cmd.Stdout, cmd.Stderr = w, w
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	err = cmd.Start()
	// The child holds its own copy of the write end: ours must be closed
	// for the reader to see the end of the output.
	_ = w.Close() // a pipe's close frees a descriptor; it cannot lose data
	if err != nil {
		_ = r.Close()
		return nil, fmt.Errorf("start %s: %w", s.Name, err)
	}
	p := &Proc{name: s.Name, cmd: cmd, done: make(chan struct{})}
	read := make(chan struct{})
	go func() {
		defer close(read)
		p.readLines(r, s)
	}()
	go func() {
		p.err = cmd.Wait()
		select {
		case <-read:
		case <-time.After(pipeGrace):
		}
		_ = r.Close() // ends a read still blocked on a grandchild's copy
		<-read
		close(p.done)
	}()
	return p, nil
}

// readLines passes every line of r to s.Log and s.OnLine, including a last
// line without a line ending. It reads lines of any length.
func (p *Proc) readLines(r io.Reader, s Spec) {
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		if line = strings.TrimRight(line, "\r\n"); line != "" || err == nil {
			if s.Log != nil {
				// A lost log line must not stop the child's output from being read.
				_, _ = fmt.Fprintf(s.Log, "[%s %d] %s\n", s.Name, p.cmd.Process.Pid, line)
			}
			if s.OnLine != nil {
				s.OnLine(line)
			}
		}
		if err != nil {
			return
		}
	}
}

// Name is the child's name from its Spec.
func (p *Proc) Name() string { return p.name }

// Done is closed when the child has exited and its output has been read.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Err is the child's exit error from exec.Cmd.Wait (an *exec.ExitError
// when it failed or was killed); nil when it exited with status 0. Call it
// only after Done is closed.
func (p *Proc) Err() error { return p.err }

// ExitCode is the child's exit status, or -1 when a signal ended it. Call
// it only after Done is closed.
func (p *Proc) ExitCode() int { return p.cmd.ProcessState.ExitCode() }

// Signal sends sig to the child's process group. A group that has exited
// is not an error.
func (p *Proc) Signal(sig syscall.Signal) error {
	// Negative pid: the whole process group, which the child leads.
	if err := syscall.Kill(-p.cmd.Process.Pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("%s %s: %w", sig, p.name, err)
	}
	return nil
}

// Stop sends SIGCONT (a stopped process cannot handle SIGTERM) and SIGTERM
// to the child's process group, then SIGKILL after grace or as soon as force
// is closed (a nil force never is), and returns once the child has exited.
// killed reports that SIGKILL was needed; err joins the errors of the
// signals that could not be sent.
func (p *Proc) Stop(grace time.Duration, force <-chan struct{}) (killed bool, err error) {
	select {
	case <-p.done:
		return false, nil
	default:
	}
	err = errors.Join(p.Signal(syscall.SIGCONT), p.Signal(syscall.SIGTERM))
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case <-p.done:
		return false, err
	case <-timer.C:
	case <-force:
	}
	err = errors.Join(err, p.Signal(syscall.SIGKILL))
	<-p.done
	return true, err
}
