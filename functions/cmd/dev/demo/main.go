// Command demo plays a teacher's assignment and a learner's review session
// against a running local stack (make run), over HTTP, then waits for the
// downstream effects and prints them with the time each took to appear after
// the request committed: the emails in the mailpit sink, the signed webhooks
// at a receiver the demo starts and registers as the teacher's endpoint, and
// the progress projection.
//
// Environment: LEXORA_URL (default http://127.0.0.1:8080), MAILPIT_URL
// (default http://127.0.0.1:8025), DATABASE_URL (the local database, read to
// pick a deck not yet assigned and to show the progress rows).
package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/lexora-app/lexora/functions/api"
	"github.com/lexora-app/lexora/pkg/classroom"
	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/platform/auth"
	"github.com/lexora-app/lexora/pkg/seed"
	"github.com/lexora-app/lexora/pkg/testkit/mailpit"
)

func main() {
	if err := run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

type demo struct {
	api  string
	box  mailpit.Client
	pool *pgxpool.Pool
}

func run(ctx context.Context) error {
	d := demo{
		api: cmp.Or(os.Getenv("LEXORA_URL"), "http://127.0.0.1:8080"),
		box: mailpit.Client{URL: cmp.Or(os.Getenv("MAILPIT_URL"), "http://127.0.0.1:8025")},
	}
	pool, err := pgxpool.New(ctx, cmp.Or(os.Getenv("DATABASE_URL"), "postgres://postgres@127.0.0.1:5432/lexora?sslmode=disable"))
	if err != nil {
		return err
	}
	defer pool.Close()
	d.pool = pool
	learner := seed.Learners[0]

	hooks, err := startReceiver()
	if err != nil {
		return err
	}
	defer hooks.Close()
	var ep api.WebhookEndpoint
	if err := d.call(http.MethodPost, "/RegisterWebhookEndpoint", seed.TeacherID, map[string]any{"url": hooks.url}, &ep); err != nil {
		return err
	}
	hooks.secret.Store(*ep.Secret)
	defer func() {
		if err := d.call(http.MethodPost, "/DeleteWebhookEndpoint", seed.TeacherID, map[string]any{"id": ep.Id}, &ep); err != nil {
			fmt.Fprintln(os.Stderr, "demo: delete the demo's webhook endpoint:", err)
		}
	}()
	fmt.Printf("0. %s registers a webhook endpoint at %s (the demo's receiver, which checks every signature)\n",
		seed.Teacher.Name, hooks.url)

	var deck uuid.UUID
	var title string
	// A library deck none of whose words the learner has met: a deck she
	// started on her own, or one sharing words with her other decks, has
	// cards that are not due, and the assignment would not complete.
	err = pool.QueryRow(ctx, `SELECT d.id, d.title FROM decks d
		WHERE d.owner_id IS NULL AND NOT EXISTS (SELECT 1 FROM deck_items i
			JOIN cards c ON c.lexeme_id = i.lexeme_id AND c.learner_id = $1 WHERE i.deck_id = d.id)
		ORDER BY d.title LIMIT 1`, learner.ID).Scan(&deck, &title)
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("%s has cards in every library deck already, so no assignment of one can show a completion; "+
			"`make reset` (with make run stopped) starts from the seed again", learner.Name)
	}
	if err != nil {
		return fmt.Errorf("pick a deck (is `make run` running?): %w", err)
	}
	fmt.Printf("1. %s (teacher) assigns %q to %s\n", seed.Teacher.Name, title, learner.Name)
	zone, err := time.LoadLocation(seed.Teacher.Timezone) // due at the end of the day in her zone, as her form sets it
	if err != nil {
		return fmt.Errorf("load %s's zone: %w", seed.Teacher.Name, err)
	}
	var out api.ClassAssignment
	if err := d.call(http.MethodPost, "/CreateAssignment", seed.TeacherID, map[string]any{
		"class_id": seed.ClassID, "learner_id": learner.ID, "deck_id": deck,
		"due_at": classroom.EndOfDay(time.Now().AddDate(0, 0, 7), zone).Format(time.RFC3339),
	}, &out); err != nil {
		return err
	}
	if len(out.Learners) != 1 || out.Learners[0].Assignment == nil {
		return fmt.Errorf("%s already has %q from the demo class; reset with `make reset`", learner.Name, title)
	}
	a := *out.Learners[0].Assignment
	assigned := time.Now()
	fmt.Printf("   committed: assignment %s, %d cards (%d new)\n", a.Id, a.Cards, a.NewCards)
	welcome, err := d.waitForMail(ctx, learner.Email, "New assignment: "+title)
	if err != nil {
		return err
	}
	fmt.Printf("   effect: email to %s %q, %s after commit\n", welcome.To[0].Address, welcome.Subject, ms(welcome.Created.Sub(assigned)))
	at, err := hooks.wait("assignment.created")
	if err != nil {
		return err
	}
	fmt.Printf("   effect: signed webhook assignment.created at the teacher's endpoint, %s after commit\n", ms(at.Sub(assigned)))

	restore, err := d.roomForNewCards(learner, a.NewCards)
	if err != nil {
		return err
	}
	defer restore()

	fmt.Printf("2. %s reviews the deck's cards (Easy moves a new card straight to Review)\n", learner.Name)
	var sched api.Schedule
	if err := d.call(http.MethodGet, "/GetSchedule?limit=200&days=7&assignment_id="+a.Id.String(), learner.ID, nil, &sched); err != nil {
		return err
	}
	fmt.Printf("   schedule of the assignment: %d cards due now; forecast %v\n", sched.DueCount, sched.Forecast)
	var last api.ReviewResult
	reviewed := 0
	var firstCommit time.Time
	for _, c := range sched.Due {
		if err := d.call(http.MethodPost, "/SubmitReview", learner.ID, map[string]any{"card_id": c.CardId, "rating": 4}, &last); err != nil {
			return err
		}
		if reviewed == 0 {
			firstCommit = time.Now()
			latency, err := d.waitForProgress(ctx, a.Id, 1, firstCommit)
			if err != nil {
				return err
			}
			fmt.Printf("   %-12s rated Easy -> %s, due %s; progress row updated %s after commit\n",
				c.Lemma, last.Card.State, last.Card.Due.Format(time.DateOnly), ms(latency))
		}
		reviewed++
	}
	finished := time.Now()
	fmt.Printf("   %d reviews committed; completed assignments: %v\n", reviewed, last.CompletedAssignments)
	if len(last.CompletedAssignments) == 0 {
		return fmt.Errorf("the assignment is not complete after reviewing its due cards")
	}

	done, err := d.waitForMail(ctx, seed.Teacher.Email, learner.Name+" finished "+title)
	if err != nil {
		return err
	}
	fmt.Printf("   effect: email to %s %q, %s after the last review's commit\n", done.To[0].Address, done.Subject, ms(done.Created.Sub(finished)))
	at, err = hooks.wait("assignment.completed")
	if err != nil {
		return err
	}
	fmt.Printf("   effect: signed webhook assignment.completed at the teacher's endpoint, %s after the last review's commit\n", ms(at.Sub(finished)))
	latency, err := d.waitForProgress(ctx, a.Id, a.Cards, finished)
	if err != nil {
		return err
	}
	fmt.Printf("   effect: progress caught up %s after the last review's commit\n", ms(latency))

	fmt.Println("3. Effects now in place")
	// Effects cause effects (streak and achievement events feed the feed):
	// wait until nothing is due in the outbox before reading the projections.
	if err := d.waitForQuietOutbox(ctx); err != nil {
		return err
	}
	var prog api.Progress
	if err := d.call(http.MethodGet, "/GetProgress", learner.ID, nil, &prog); err != nil {
		return err
	}
	fmt.Printf("   GetProgress: streak %d (longest %d), achievements %v\n", prog.Streak.Current, prog.Streak.Longest, achievementCodes(prog))
	for _, item := range prog.Feed[:min(len(prog.Feed), 5)] {
		fmt.Printf("     feed: %s\n", item.Message)
	}
	var seen, learned, reviews, total int
	if err := pool.QueryRow(ctx, `SELECT cards_total, cards_seen, cards_learned, reviews FROM assignment_progress
		WHERE assignment_id = $1`, a.Id).Scan(&total, &seen, &learned, &reviews); err != nil {
		return err
	}
	fmt.Printf("   progress: %d cards, %d seen, %d learned, %d reviews\n", total, seen, learned, reviews)
	msgs, err := d.box.Messages(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("   mailbox (%s): %d messages, newest first:\n", d.box.URL, len(msgs))
	for _, m := range msgs[:min(len(msgs), 5)] {
		fmt.Printf("     %-20s %-45q <%s>\n", m.To[0].Address, m.Subject, m.MessageID)
	}
	return nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%d ms", max(d, 0).Milliseconds()) }

// roomForNewCards makes sure that learner's daily limit of new cards (the
// demo class's, the only one of theirs) leaves room for n more today, so
// that the assignment can complete: if not, the teacher raises the class's
// limit (SetNewCardsPerDay) for the demo, and the function it answers sets
// it back.
func (d demo) roomForNewCards(learner seed.User, n int) (func(), error) {
	var sched api.Schedule
	if err := d.call(http.MethodGet, "/GetSchedule?limit=1&days=1", learner.ID, nil, &sched); err != nil {
		return nil, err
	}
	fmt.Printf("   %s has %d new cards left today (%d of %d a day studied)\n", learner.Name, sched.NewCardsLeft,
		sched.NewCardsToday, sched.NewCardsPerDay)
	if sched.NewCardsLeft >= n {
		return func() {}, nil
	}
	var classes api.ClassList
	if err := d.call(http.MethodGet, "/ListClasses", seed.TeacherID, nil, &classes); err != nil {
		return nil, err
	}
	i := slices.IndexFunc(classes.Classes, func(c api.Class) bool { return c.Id == seed.ClassID })
	if i < 0 {
		return nil, fmt.Errorf("the demo class is not %s's; reset with `make reset`", seed.Teacher.Name)
	}
	was, raised := classes.Classes[i].NewCardsPerDay, min(sched.NewCardsToday+n, learning.MaxNewCardsPerDay)
	set := func(perDay int) error {
		var out api.NewCardsPerDay
		return d.call(http.MethodPost, "/SetNewCardsPerDay", seed.TeacherID, map[string]any{"class_id": seed.ClassID,
			"new_cards_per_day": perDay}, &out)
	}
	if err := set(raised); err != nil {
		return nil, err
	}
	fmt.Printf("   %s raises the demo class's daily limit of new cards from %d to %d for the demo\n", seed.Teacher.Name, was, raised)
	return func() {
		if err := set(was); err != nil {
			fmt.Fprintln(os.Stderr, "demo: set the demo class's daily limit of new cards back:", err)
			return
		}
		fmt.Printf("   %s sets the demo class's daily limit of new cards back to %d\n", seed.Teacher.Name, was)
	}, nil
}

func (d demo) call(method, path string, actor uuid.UUID, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, d.api+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	tok, err := auth.DevToken("lexora-dev", actor.String(), "", time.Hour) // seeded users' subject is their id
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s (is `make run` running?): %w", method, path, err)
	}
	raw, err := io.ReadAll(resp.Body)
	if err = errors.Join(err, resp.Body.Close()); err != nil {
		return err
	}
	if resp.StatusCode >= 300 {
		return fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, raw)
	}
	return json.Unmarshal(raw, out)
}

// waitForMail polls the sink until a message to to with subject arrives.
func (d demo) waitForMail(ctx context.Context, to, subject string) (mailpit.Message, error) {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		msgs, err := d.box.Messages(ctx)
		if err != nil {
			return mailpit.Message{}, err
		}
		for _, m := range msgs {
			if m.Subject == subject && len(m.To) > 0 && m.To[0].Address == to {
				return m, nil
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	return mailpit.Message{}, fmt.Errorf("no email %q to %s within 30 s: is the drain running?", subject, to)
}

// waitForProgress polls the projection until it counts reviews reviews and
// returns the time since since.
func (d demo) waitForProgress(ctx context.Context, assignment uuid.UUID, reviews int, since time.Time) (time.Duration, error) {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		var n int
		err := d.pool.QueryRow(ctx, "SELECT reviews FROM assignment_progress WHERE assignment_id = $1", assignment).Scan(&n)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return 0, err
		}
		if n >= reviews {
			return time.Since(since), nil
		}
		time.Sleep(5 * time.Millisecond)
	}
	return 0, fmt.Errorf("progress of %s did not reach %d reviews within 30 s: is the drain running?", assignment, reviews)
}

// receiver is the teacher's webhook endpoint for the demo: it verifies each
// request's Standard Webhooks signature and records when each type arrived.
type receiver struct {
	url    string
	secret atomic.Value
	srv    *http.Server
	mu     sync.Mutex
	got    map[string]time.Time
}

func startReceiver() (*receiver, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &receiver{url: "http://" + l.Addr().String() + "/hooks", got: map[string]time.Time{}}
	r.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		secret, _ := r.secret.Load().(string)
		wh, err := standardwebhooks.NewWebhook(secret)
		if err != nil || wh.Verify(body, req.Header) != nil {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		var m struct{ Type string }
		_ = json.Unmarshal(body, &m)
		r.mu.Lock()
		r.got[m.Type] = time.Now()
		r.mu.Unlock()
	}), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = r.srv.Serve(l) }()
	return r, nil
}

func (r *receiver) Close() { _ = r.srv.Close() }

// wait returns when a verified webhook of the type arrived.
func (r *receiver) wait(typ string) (time.Time, error) {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		r.mu.Lock()
		at, ok := r.got[typ]
		r.mu.Unlock()
		if ok {
			return at, nil
		}
		time.Sleep(5 * time.Millisecond)
	}
	return time.Time{}, fmt.Errorf("no signed %s webhook within 30 s: is the drain running?", typ)
}

func achievementCodes(p api.Progress) []string {
	var out []string
	for _, a := range p.Achievements {
		out = append(out, a.Code)
	}
	return out
}

// waitForQuietOutbox polls until no delivery is due or being delivered
// (delayed reminders may wait).
func (d demo) waitForQuietOutbox(ctx context.Context) error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		var busy int
		if err := d.pool.QueryRow(ctx, `SELECT count(*) FROM outbox_deliveries
			WHERE state = 'running' OR (state = 'pending' AND available_at <= now())`).Scan(&busy); err != nil {
			return err
		}
		if busy == 0 {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return errors.New("the outbox did not drain within 30 s: is the drain running?")
}
