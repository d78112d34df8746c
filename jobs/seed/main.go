// Command seed loads the WordNet word list, the library decks and the demo
// classes (package seed) into DATABASE_URL, and gives the first demo learner
// (Mia) a started deck and the demo class a deck, which each of its learners
// and later joiners gets, all cards due (seed.StartFirstLearner), and the
// third (Yui) 90 days of simulated reviews, enough for the fit job to fit
// and keep her own parameters (seed.SimulateHistory). It is
// idempotent: a second run inserts nothing.
// For local and staging use.
//
// With -teacher it instead creates one teacher and their class
// (seed.AddTeacher) and prints the teacher's id, class id and join code:
//
//	bin/seed -teacher cleo@example.com -name "Cleo Martin" -timezone Europe/Rome -class "Morning class"
package main

import (
	"context"
	"flag"
	"log/slog"

	"github.com/lexora-app/lexora/pkg/platform/clock"
	"github.com/lexora-app/lexora/pkg/platform/database"
	"github.com/lexora-app/lexora/pkg/platform/jobrun"
	"github.com/lexora-app/lexora/pkg/seed"
)

func main() {
	teacher := flag.String("teacher", "", "create a teacher with this email, and their class, instead of loading the seed")
	name := flag.String("name", "", "the new teacher's display name (with -teacher)")
	timezone := flag.String("timezone", "UTC", "the new teacher's IANA time zone (with -teacher)")
	class := flag.String("class", "My class", "the new teacher's class name (with -teacher)")
	flag.Parse()
	var cfg database.Config
	jobrun.MainOnDatabase("seed", &cfg, func(ctx context.Context, log *slog.Logger, pool *database.Pool) error {
		if *teacher != "" {
			t, err := seed.AddTeacher(ctx, pool.Pool, *teacher, *name, *timezone, *class)
			if err != nil {
				return err
			}
			log.Info("teacher created; they sign in with a verified ID token for their email",
				slog.String("teacher_id", t.TeacherID.String()), slog.String("email", t.Email),
				slog.String("class_id", t.ClassID.String()), slog.String("join_code", t.JoinCode))
			return nil
		}
		rep, err := seed.Load(ctx, pool.Pool, clock.System{})
		if err != nil {
			return err
		}
		if err := seed.StartFirstLearner(ctx, pool.Pool, clock.System{}); err != nil {
			return err
		}
		if err := seed.SimulateHistory(ctx, pool.Pool, clock.System{}.Now()); err != nil {
			return err
		}
		log.Info("seed loaded", slog.Int64("lexemes", rep.Lexemes), slog.Int64("decks", rep.Decks), slog.Int64("users", rep.Users))
		return nil
	})
}
