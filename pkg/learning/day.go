package learning

import (
	"time"
	_ "time/tzdata" // see Zone

	"github.com/lexora-app/lexora/pkg/platform/clock"
)

// RolloverHour is the local hour at which a learner's study day begins
// (Anki's default day cutoff, 04:00): a review at 01:30 counts for the day
// before.
const RolloverHour = 4

// Precision is the resolution of every instant Lexora stores, answers and
// publishes, the product clock's (clock.Precision): PostgreSQL's timestamptz
// keeps microseconds (pgx truncates finer digits), so instants are
// truncated to it before they are used.
const Precision = clock.Precision

// StudyDay returns the study day of instant t in the zone tz, as
// YYYY-MM-DD: its local date, or the day before when the local wall-clock
// time is before RolloverHour (wall clock, so that daylight-saving days
// roll over at 04:00 too). It is the one definition of a day: FSRS elapsed
// days, the review log, the schedule's forecast, streaks and reminders all
// count in it.
func StudyDay(t time.Time, tz *time.Location) string {
	return studyDate(t, tz).Format(time.DateOnly)
}

// StudyDayBounds returns the instants [start, end) of the study day that
// holds t in the zone tz: from RolloverHour local time on its date to
// RolloverHour on the next (23, 24 or 25 hours apart around daylight-saving
// changes).
func StudyDayBounds(t time.Time, tz *time.Location) (start, end time.Time) {
	d := studyDate(t, tz)
	return StudyDayStart(d, tz), StudyDayStart(d.AddDate(0, 0, 1), tz)
}

// StudyDayStart returns the instant the study day of date day (only its
// year, month and day are read) begins in the zone tz: RolloverHour local
// time on that date.
func StudyDayStart(day time.Time, tz *time.Location) time.Time {
	return time.Date(day.Year(), day.Month(), day.Day(), RolloverHour, 0, 0, 0, tz)
}

// StudyDaysBetween counts the study days (in the zone tz) from the one
// holding last to the one holding cur: 0 on the same study day, and 0 when
// cur is on an earlier day than last.
func StudyDaysBetween(last, cur time.Time, tz *time.Location) uint64 {
	days := studyDate(cur, tz).Sub(studyDate(last, tz)).Hours() / 24
	if days < 0 {
		return 0
	}
	return uint64(days)
}

// studyDate is t's study day as midnight UTC of that date, so that dates
// subtract to whole multiples of 24 hours.
func studyDate(t time.Time, tz *time.Location) time.Time {
	local := t.In(tz)
	d := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, time.UTC)
	if local.Hour() < RolloverHour {
		d = d.AddDate(0, 0, -1)
	}
	return d
}

// libInstant maps t to the instant go-fsrs is given in its place: one whose
// UTC calendar date is t's study day in tz, at the time elapsed since that
// study day began (kept inside the day on a 25-hour day). go-fsrs v4 counts
// elapsed days between UTC dates (dateDiffInDays), so it then counts study
// days. The map keeps order: a <= b gives libInstant(a) <= libInstant(b).
func libInstant(t time.Time, tz *time.Location) time.Time {
	start, _ := StudyDayBounds(t, tz)
	return studyDate(t, tz).Add(min(t.Sub(start), 24*time.Hour-Precision))
}

// Zone returns the IANA time zone name (a learner's users.timezone), or UTC
// when the name is unknown: the one place a stored zone name is interpreted.
// The zone database is embedded (time/tzdata), so a container image without
// one does not silently put every learner in UTC.
func Zone(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		return time.UTC
	}
	return loc
}

// The daily limit of new cards (Anki's "new cards/day"): how many cards
// never reviewed a learner is served in one study day. A class may set its
// own, from 0 (reviews only) to MaxNewCardsPerDay; a class that sets none,
// and a learner in no class, has DefaultNewCardsPerDay (Anki's default).
const (
	DefaultNewCardsPerDay = 20
	MaxNewCardsPerDay     = 9999
)
