package api

import (
	"encoding/json"
	"strings"
)

// JoinCode is a join code as sent (EnrollLearner's join_code), without the
// white space around it (a code pasted with a space or a line break),
// dropped when it is decoded, before it is validated: white space inside is
// still refused. Case does not matter (classroom.Enroll).
type JoinCode string

// UnmarshalJSON decodes a JSON string and trims its surrounding white space
// (unicode.IsSpace, as strings.TrimSpace does).
func (c *JoinCode) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err //nolint:wrapcheck // encoding/json names the field of its own type error
	}
	*c = JoinCode(strings.TrimSpace(s))
	return nil
}
