package api

import (
	"cmp"
	"encoding/json"
	"strings"
)

// JoinCode is a join code as sent (EnrollLearner's join_code), without the
// white space around it (a code pasted with a space or a line break),
// dropped when it is decoded, before it is validated: white space inside is
// still refused, and so is a code of white space alone: it is kept as sent,
// so that it fails the code's rules instead of reading as no code at all.
// Case does not matter (classroom.Enroll).
type JoinCode string

// UnmarshalJSON decodes a JSON string and trims its surrounding white space
// (unicode.IsSpace, as strings.TrimSpace does), unless nothing is left.
func (c *JoinCode) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err //nolint:wrapcheck // encoding/json names the field of its own type error
	}
	*c = JoinCode(cmp.Or(strings.TrimSpace(s), s))
	return nil
}
