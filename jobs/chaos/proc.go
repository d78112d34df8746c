package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// proc is one child process of the harness. Its stdout and stderr go, line
// by line, to a log file and to onLine (when set).
type proc struct {
	name string
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited and its output is read
	err  error         // from Wait; read after done
}

// startProc starts path with args and env (added to the harness's own) in
// its own process group, killed if the harness dies.
func startProc(name, path string, args, env []string, log io.Writer, onLine func(string)) (*proc, error) {
	cmd := exec.Command(path, args...)
	cmd.Env = append(os.Environ(), env...)
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = w, w
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	err = cmd.Start()
	w.Close()
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, done: make(chan struct{})}
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64*1024), 1024*1024)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintf(log, "[%s %d] %s\n", name, cmd.Process.Pid, line)
			if onLine != nil {
				onLine(line)
			}
		}
	}()
	go func() {
		p.err = cmd.Wait()
		<-read
		r.Close()
		close(p.done)
	}()
	return p, nil
}

// signal sends sig to the process group; a process that has exited is not an error.
func (p *proc) signal(sig syscall.Signal) error {
	if err := syscall.Kill(-p.cmd.Process.Pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("%s %s: %w", sig, p.name, err)
	}
	return nil
}

// stop sends SIGTERM, then SIGKILL after grace, and waits for the exit.
func (p *proc) stop(grace time.Duration) {
	_ = p.signal(syscall.SIGCONT) // a stopped process cannot handle SIGTERM
	_ = p.signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = p.signal(syscall.SIGKILL)
		<-p.done
	}
}

// lockedWriter serialises whole writes of several goroutines to one file.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// waitDialable waits until addr accepts TCP connections, for at most timeout.
func waitDialable(addr string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			conn.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("nothing listens on %s after %s: %w", addr, timeout, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
