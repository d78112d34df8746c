package oracle

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/lexora-app/lexora/pkg/learning/optimizer"
)

// Oracle is a running fsrs-rs oracle (run.sh, oracle.mjs). Its methods
// may be called from several goroutines; requests are answered one at a
// time.
type Oracle struct {
	mu  sync.Mutex
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

// Start runs the oracle of the folder dir (this package's folder),
// installing its pinned npm packages first when they are missing (npm ci;
// its output goes to stderr). Stop it with Close; cancelling ctx kills it.
func Start(ctx context.Context, dir string) (*Oracle, error) {
	script, err := filepath.Abs(filepath.Join(dir, "run.sh"))
	if err != nil {
		return nil, fmt.Errorf("oracle: %w", err)
	}
	cmd := exec.CommandContext(ctx, script)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("oracle: %w", err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("oracle: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("oracle: start %s: %w", script, err)
	}
	return &Oracle{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}, nil
}

// Close ends the oracle (end of input) and waits for it.
func (o *Oracle) Close() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if err := o.in.Close(); err != nil {
		return fmt.Errorf("oracle: close: %w", err)
	}
	if err := o.cmd.Wait(); err != nil {
		return fmt.Errorf("oracle: wait: %w", err)
	}
	return nil
}

// request is one line to oracle.mjs.
type request struct {
	Op     string        `json:"op"`
	Items  [][][2]uint32 `json:"items"`
	Params []float64     `json:"params,omitempty"`
	PollMS int           `json:"pollMs,omitempty"`
}

// answer is one line from oracle.mjs.
type answer struct {
	Params   []float64 `json:"params"`
	MS       float64   `json:"ms"`
	CPUMS    float64   `json:"cpuMs"`
	LogLoss  float64   `json:"logLoss"`
	RMSEBins float64   `json:"rmseBins"`
	Error    string    `json:"error"`
}

// ErrOracle wraps the errors fsrs-rs reports (e.g. "NotEnoughData").
var ErrOracle = errors.New("oracle: fsrs-rs failed")

func (o *Oracle) call(req request) (answer, error) {
	line, err := json.Marshal(req)
	if err != nil {
		return answer{}, fmt.Errorf("oracle: %w", err)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, err := o.in.Write(append(line, '\n')); err != nil {
		return answer{}, fmt.Errorf("oracle: send: %w", err)
	}
	reply, err := o.out.ReadBytes('\n')
	if err != nil {
		return answer{}, fmt.Errorf("oracle: read: %w", err)
	}
	var a answer
	if err := json.Unmarshal(reply, &a); err != nil {
		return answer{}, fmt.Errorf("oracle: decode %q: %w", reply, err)
	}
	if a.Error != "" {
		return answer{}, fmt.Errorf("%w: %s", ErrOracle, a.Error)
	}
	return a, nil
}

func wire(items []optimizer.Item) [][][2]uint32 {
	out := make([][][2]uint32, len(items))
	for i, it := range items {
		out[i] = make([][2]uint32, len(it.Reviews))
		for k, s := range it.Reviews {
			out[i][k] = [2]uint32{uint32(s.Rating), s.DeltaT}
		}
	}
	return out
}

// Fit is fsrs-rs computeParameters(items, {enableShortTerm: true}): the
// weights and the time computeParameters took inside the oracle.
func (o *Oracle) Fit(items []optimizer.Item) (optimizer.Weights, time.Duration, error) {
	w, t, err := o.FitPolling(items, 0)
	return w, t.Wall, err
}

// FitTime is how long a fit took in the oracle: Wall, and CPU, the node
// process's CPU time (user and system, all threads) meanwhile.
type FitTime struct {
	Wall, CPU time.Duration
}

// FitPolling is Fit with the binding's progress poll interval (its
// timeout option) set to pollMS milliseconds (0: the binding's 500). The
// binding waits for its poller to end, so the interval adds to the time
// computeParameters takes.
func (o *Oracle) FitPolling(items []optimizer.Item, pollMS int) (optimizer.Weights, FitTime, error) {
	a, err := o.call(request{Op: "fit", Items: wire(items), PollMS: pollMS})
	if err != nil {
		return optimizer.Weights{}, FitTime{}, err
	}
	var w optimizer.Weights
	if len(a.Params) != len(w) {
		return w, FitTime{}, fmt.Errorf("%w: %d parameters", ErrOracle, len(a.Params))
	}
	copy(w[:], a.Params)
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	return w, FitTime{Wall: ms(a.MS), CPU: ms(a.CPUMS)}, nil
}

// Evaluate is fsrs-rs new FSRSBinding(w).evaluate(items). The binding
// first applies fsrs-rs's outlier filter to the items and puts the cards'
// first intervals first.
func (o *Oracle) Evaluate(w optimizer.Weights, items []optimizer.Item) (optimizer.Metrics, error) {
	a, err := o.call(request{Op: "evaluate", Items: wire(items), Params: w[:]})
	if err != nil {
		return optimizer.Metrics{}, err
	}
	return optimizer.Metrics{LogLoss: a.LogLoss, RMSEBins: a.RMSEBins}, nil
}
