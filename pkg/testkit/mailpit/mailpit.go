// Package mailpit reads the messages held by a mailpit SMTP sink through its
// HTTP API (/api/v1/messages), and starts a private mailpit for a test.
//
// The run and test commands install mailpit (github.com/axllent/mailpit)
// into bin/; tests find it through LEXORA_MAILPIT, else in the bin/ folder of
// the module they run in (so a plain `go test ./...` finds what `make test`
// installed), else on the PATH, and fail, never skip, when it is missing.
package mailpit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/lexora-app/lexora/pkg/testkit/testport"
)

// Address is one mailbox of a message.
type Address struct {
	Name    string `json:"Name"`
	Address string `json:"Address"`
}

// Message is the summary mailpit lists for one stored message.
type Message struct {
	ID        string    `json:"ID"`
	MessageID string    `json:"MessageID"`
	Subject   string    `json:"Subject"`
	To        []Address `json:"To"`
	Created   time.Time `json:"Created"`
}

// Client talks to one mailpit's HTTP API.
type Client struct {
	// URL is the base URL of the web UI and API, e.g. http://127.0.0.1:8025.
	URL string
}

// Messages returns up to 1,000 stored messages, newest first. It returns an
// error when mailpit cannot be reached, answers with a non-200 status, or
// its answer cannot be read to the end and closed.
func (c Client) Messages(ctx context.Context) (_ []Message, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.URL+"/api/v1/messages?limit=1000", nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("mailpit: list messages: %w", err)
	}
	defer func() { err = errors.Join(err, resp.Body.Close()) }()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("mailpit: list messages: status %s", resp.Status)
	}
	var out struct {
		Messages []Message `json:"messages"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, fmt.Errorf("mailpit: decode messages: %w", err)
	}
	return out.Messages, nil
}

// Start runs a private mailpit on free loopback ports for the duration of
// the test and returns its SMTP port and an API client. A port found free
// can be taken by another test's server before mailpit binds it (mailpit
// then exits, or the API answering is another server's), so it tries up to
// three times, on new ports each time. It fails the test when the binary
// cannot be found or no try answers within 10 seconds.
func Start(t testing.TB) (smtpPort int, client Client) {
	t.Helper()
	bin, err := binary()
	if err != nil {
		t.Fatalf("mailpit: no binary: set LEXORA_MAILPIT, or run .ci/ensure-mailpit (make test and make run do): %v", err)
	}
	var tries []error
	for range 3 {
		smtpPort = testport.Free(t)
		client, stop, err := start(bin, t.TempDir(), smtpPort, testport.Free(t))
		if err == nil {
			t.Cleanup(stop)
			return smtpPort, client
		}
		tries = append(tries, err)
	}
	t.Fatalf("mailpit: %v", errors.Join(tries...))
	return 0, Client{}
}

// start runs bin with its database in dir, SMTP on smtpPort and its API on
// httpPort, and returns once the API answers, with stop, which kills it; or
// it returns why not, mailpit stopped.
func start(bin, dir string, smtpPort, httpPort int) (client Client, stop func(), err error) {
	cmd := exec.Command(bin,
		"--smtp", "127.0.0.1:"+strconv.Itoa(smtpPort),
		"--listen", "127.0.0.1:"+strconv.Itoa(httpPort),
		"--database", filepath.Join(dir, "mailpit.db"),
		"--disable-version-check")
	if err := cmd.Start(); err != nil {
		return Client{}, nil, fmt.Errorf("start %s: %w", bin, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop = func() {
		_ = cmd.Process.Kill()
		<-exited //nolint:errcheck // killed by stop: Wait only says so
	}
	client = Client{URL: (&url.URL{Scheme: "http", Host: "127.0.0.1:" + strconv.Itoa(httpPort)}).String()}
	for _, port := range []int{smtpPort, httpPort} {
		if err := testport.Await("127.0.0.1:"+strconv.Itoa(port), 10*time.Second, exited); err != nil {
			stop()
			return Client{}, nil, err
		}
	}
	if _, err := client.Messages(context.Background()); err != nil {
		stop()
		return Client{}, nil, fmt.Errorf("listening but its API does not answer: %w", err)
	}
	return client, stop, nil
}

// binary returns the mailpit to start: LEXORA_MAILPIT when set, else
// bin/mailpit in the nearest folder above the working directory that holds
// go.mod (a test runs in its package's folder), else mailpit on the PATH.
func binary() (string, error) {
	if bin := os.Getenv("LEXORA_MAILPIT"); bin != "" {
		return bin, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("working directory: %w", err)
	}
	for ; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			bin := filepath.Join(dir, "bin", "mailpit")
			if _, err := os.Stat(bin); err == nil {
				return bin, nil
			}
			break
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	bin, err := exec.LookPath("mailpit")
	if err != nil {
		return "", fmt.Errorf("look up mailpit: %w", err)
	}
	return bin, nil
}
