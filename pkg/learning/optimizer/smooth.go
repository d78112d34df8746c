package optimizer

import (
	"math"

	"github.com/lexora-app/lexora/pkg/learning"
)

// smoothAndFill makes the initial stabilities of the first ratings seen
// (have[r] and counts[r] > 0) increase from Again to Easy, a pair out of
// order taking the value of the rating seen more often, then fills the
// ratings not seen from the others with fsrs-rs's fixed ratios (w1 = 0.41,
// w2 = 0.54 in the log domain; one rating seen scales the defaults), and
// clamps them to [0.001, 100] (fsrs-rs smooth_and_fill). It returns false
// when no rating was seen.
func smoothAndFill(stab [5]float64, have [5]bool, counts [5]int) ([4]float64, bool) {
	n := 0
	for r := range have {
		have[r] = have[r] && counts[r] > 0
		if have[r] {
			n++
		}
	}
	for _, p := range [][2]int{{1, 2}, {2, 3}, {3, 4}, {1, 3}, {2, 4}, {1, 4}} {
		small, big := p[0], p[1]
		if have[small] && have[big] && stab[small] > stab[big] {
			if counts[small] > counts[big] {
				stab[big] = stab[small]
			} else {
				stab[small] = stab[big]
			}
		}
	}
	switch n {
	case 0:
		return [4]float64{}, false
	case 1:
		def := learning.DefaultParams().Weights
		for r := 1; r <= 4; r++ {
			if have[r] {
				factor := stab[r] / def[r-1]
				for k := 1; k <= 4; k++ {
					stab[k] = def[k-1] * factor
				}
				break
			}
		}
	case 2:
		fillTwo(&stab, have)
	case 3:
		fillThree(&stab, have)
	}
	var out [4]float64
	for r := range out {
		out[r] = clamp(stab[r+1], sMin, initSMax)
	}
	return out, true
}

// Log-domain ratios between neighbouring initial stabilities (fsrs-rs).
const (
	ratioW1 = 0.41
	ratioW2 = 0.54
)

// geo is a^x b^y.
func geo(a, x, b, y float64) float64 { return math.Pow(a, x) * math.Pow(b, y) }

// fillTwo fills the two missing stabilities when two ratings were seen.
func fillTwo(s *[5]float64, have [5]bool) {
	const w1, w2 = ratioW1, ratioW2
	switch {
	case have[3] && have[4]:
		s[2] = geo(s[3], 1/(1-w2), s[4], 1-1/(1-w2))
		s[1] = geo(s[2], 1/w1, s[3], 1-1/w1)
	case have[2] && have[4]:
		s[3] = geo(s[2], 1-w2, s[4], w2)
		s[1] = geo(s[2], 1/w1, s[3], 1-1/w1)
	case have[2] && have[3]:
		s[4] = geo(s[2], 1-1/w2, s[3], 1/w2)
		s[1] = geo(s[2], 1/w1, s[3], 1-1/w1)
	case have[1] && have[4]:
		k := w1*-w2 + (w1 + w2)
		s[2] = geo(s[1], w1/k, s[4], 1-w1/k)
		s[3] = geo(s[1], 1-w2/k, s[4], w2/k)
	case have[1] && have[3]:
		s[2] = geo(s[1], w1, s[3], 1-w1)
		s[4] = geo(s[2], 1-1/w2, s[3], 1/w2)
	case have[1] && have[2]:
		s[3] = geo(s[1], 1-1/(1-w1), s[2], 1/(1-w1))
		s[4] = geo(s[2], 1-1/w2, s[3], 1/w2)
	}
}

// fillThree fills the one missing stability when three ratings were seen.
func fillThree(s *[5]float64, have [5]bool) {
	const w1, w2 = ratioW1, ratioW2
	switch {
	case !have[1]:
		s[1] = geo(s[2], 1/w1, s[3], 1-1/w1)
	case !have[2]:
		s[2] = geo(s[1], w1, s[3], 1-w1)
	case !have[3]:
		s[3] = geo(s[2], 1-w2, s[4], w2)
	default:
		s[4] = geo(s[2], 1-1/w2, s[3], 1/w2)
	}
}
