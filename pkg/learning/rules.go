package learning

import "time"

// LeechLapses is the number of lapses (Again on a card in Review) at which a
// card is a leech and is suspended; 8 is Anki's default leech threshold.
const LeechLapses = 8

// DailyReminderHour is the local hour of a learner's daily study reminder.
const DailyReminderHour = 18

// DueSoonLead is how long before an assignment's due date its due-soon
// reminder (the reminder.due_soon event) fires: 24 hours. An assignment due
// sooner than that after it is made gets no such reminder.
const DueSoonLead = 24 * time.Hour

// NextDailyReminder returns the first DailyReminderHour:00 in the zone tz
// strictly after t.
func NextDailyReminder(t time.Time, tz *time.Location) time.Time {
	local := t.In(tz)
	next := time.Date(local.Year(), local.Month(), local.Day(), DailyReminderHour, 0, 0, 0, tz)
	if !next.After(t) {
		next = time.Date(local.Year(), local.Month(), local.Day()+1, DailyReminderHour, 0, 0, 0, tz)
	}
	return next
}
