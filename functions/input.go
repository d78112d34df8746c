package functions

import (
	"errors"

	"github.com/google/uuid"
)

// parseUUID accepts only the canonical form (36 characters with dashes), as
// the request bodies' uuid rule does; uuid.Parse also takes urn:uuid:,
// braced and undashed forms.
func parseUUID(raw string) (uuid.UUID, error) {
	if len(raw) != 36 {
		return uuid.UUID{}, errors.New("not a canonical UUID")
	}
	return uuid.Parse(raw)
}

// printableASCII reports whether s is 1 to maxLen printable ASCII
// characters without spaces.
func printableASCII(s string, maxLen int) bool {
	if len(s) == 0 || len(s) > maxLen {
		return false
	}
	for _, c := range []byte(s) {
		if c < 0x21 || c > 0x7e {
			return false
		}
	}
	return true
}
