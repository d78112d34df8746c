package optimizer

import (
	"math"

	"github.com/lexora-app/lexora/pkg/learning"
)

// Bounds of the FSRS-6 memory state and of the predicted probability, as
// fsrs-rs 6.5 has them (simulation.rs S_MIN..S_MAX, D_MIN..D_MAX;
// analytic.rs MIN_PROB..MAX_PROB).
const (
	sMin    = 0.001
	sMax    = 36500.0
	dMin    = 1.0
	dMax    = 10.0
	probMin = 1e-7
	probMax = 1 - 1e-7
)

// Weights are the 21 FSRS-6 weights w0..w20 ([learning.Params.Weights]).
type Weights = [21]float64

// curve holds the forgetting curve's constants for a decay w20:
// R(t, S) = (1 + factor*t/S)^decay with decay = -w20 and
// factor = 0.9^(1/decay) - 1, so that R(S, S) = 0.9.
type curve struct {
	decay, factor float64
	// dFactor is d factor / d decay.
	dFactor float64
}

func newCurve(w20 float64) curve {
	decay := -w20
	e := math.Exp(math.Log(0.9) / decay)
	return curve{decay: decay, factor: e - 1, dFactor: e * (-math.Log(0.9) / (decay * decay))}
}

// r is the retrievability t days after a review that left stability s,
// and ln(1 + factor t/s) for grad.
func (c curve) r(t, s float64) (r, lnBase float64) {
	lnBase = math.Log1p(t / s * c.factor)
	return math.Exp(c.decay * lnBase), lnBase
}

// grad returns dR/ds and dR/dw20 at (t, s), where r, lnBase = c.r(t, s).
func (c curve) grad(t, s, r, lnBase float64) (ds, dw20 float64) {
	base := 1 + t/s*c.factor
	ds = r * c.decay / base * (-t * c.factor / (s * s))
	dDecay := r * (lnBase + c.decay/base*(t/s*c.dFactor))
	return ds, -dDecay
}

// initDifficulty is w4 - e^(w5*(rating-1)) + 1, unclamped.
func initDifficulty(w *Weights, rating learning.Rating) float64 {
	return w[4] - math.Exp(w[5]*float64(rating-1)) + 1
}

// state is a card's memory state: stability s in days, difficulty d.
type state struct{ s, d float64 }

// Stability branches of one review step.
const (
	branchShort      = iota // same study day: S * e^(w17(G-3+w18)) * S^-w19
	branchShortFloor        // same day, G >= Hard, multiplier floored at 1
	branchFail              // lapse: w11 D^-w12 ((S+1)^w13 - 1) e^(w14(1-R))
	branchFailFloor         // lapse, capped at S / e^(w17 w18)
	branchSuccess           // S (1 + e^w8 (11-D) S^-w9 (e^(w10(1-R)) - 1) hard easy)
)

// step is the record of one review step that the backward pass reads.
type step struct {
	prev   state // state before the review (within bounds)
	t      float64
	rating learning.Rating
	r      float64 // retrievability at the review
	lnBase float64 // ln(1 + factor t/S), see curve.r
	branch int8
	// lnS is ln prev.s; x holds the branch's powers and exponentials:
	// short: S^-w19; lapse: D^-w12, (S+1)^w13, e^(w14(1-R)), ln(S+1);
	// success: S^-w9, e^(w10(1-R)).
	lnS float64
	x   [4]float64
	// sPass and dPass report the new stability and difficulty were within
	// their bounds before clamping, so their gradients pass the clamp.
	sPass, dPass bool
}

// model is a set of weights with the constants derived from them.
type model struct {
	w     *Weights
	c     curve
	easyD float64 // initDifficulty(Easy), the mean-reversion target
	expW8 float64
	// failDiv is e^(w17 w18), the lapse's floor divisor; shortMul[G] is
	// e^(w17 (G-3+w18)).
	failDiv  float64
	shortMul [5]float64
}

func newModel(w *Weights) model {
	m := model{w: w, c: newCurve(w[20]), easyD: initDifficulty(w, learning.Easy),
		expW8: math.Exp(w[8]), failDiv: math.Exp(w[17] * w[18])}
	for g := learning.Again; g <= learning.Easy; g++ {
		m.shortMul[g] = math.Exp(w[17] * (float64(g) - 3 + w[18]))
	}
	return m
}

// initial returns the state after a card's first review and whether the
// stability and difficulty were within their bounds (fsrs-rs clamps them).
func (m model) initial(rating learning.Rating) (st state, sPass, dPass bool) {
	s := m.w[rating-1]
	d := initDifficulty(m.w, rating)
	return state{clamp(s, sMin, sMax), clamp(d, dMin, dMax)}, inside(s, sMin, sMax), inside(d, dMin, dMax)
}

// next applies a review with rating g, t study days after the review that
// left prev, and records it (FSRS-6, fsrs-rs model.rs step).
func (m model) next(prev state, t float64, g learning.Rating) (state, step) {
	w := m.w
	st := step{prev: prev, t: t, rating: g, lnS: math.Log(prev.s)}
	st.r, st.lnBase = m.c.r(t, prev.s)
	var s float64
	switch {
	case t == 0:
		st.x[0] = math.Exp(-w[19] * st.lnS)
		sinc := m.shortMul[g] * st.x[0]
		st.branch = branchShort
		if g >= learning.Hard && sinc < 1 {
			st.branch, sinc = branchShortFloor, 1
		}
		s = prev.s * sinc
	case g == learning.Again:
		lnS1 := math.Log1p(prev.s)
		st.x = [4]float64{math.Exp(-w[12] * math.Log(prev.d)), math.Exp(w[13] * lnS1), math.Exp((1 - st.r) * w[14]), lnS1}
		raw := w[11] * st.x[0] * (st.x[1] - 1) * st.x[2]
		floor := prev.s / m.failDiv
		st.branch, s = branchFail, raw
		if floor < raw {
			st.branch, s = branchFailFloor, floor
		}
	default:
		st.x[0], st.x[1] = math.Exp(-w[9]*st.lnS), math.Exp((1-st.r)*w[10])
		s = prev.s * (1 + m.expW8*(11-prev.d)*st.x[0]*(st.x[1]-1)*factor(w, g))
		st.branch = branchSuccess
	}
	d := m.meanReverted(prev.d, g)
	st.sPass, st.dPass = inside(s, sMin, sMax), inside(d, dMin, dMax)
	return state{clamp(s, sMin, sMax), clamp(d, dMin, dMax)}, st
}

// factor is the success multiplier of rating g: w15 for Hard, w16 for
// Easy, 1 for Good.
func factor(w *Weights, g learning.Rating) float64 {
	switch g {
	case learning.Hard:
		return w[15]
	case learning.Easy:
		return w[16]
	}
	return 1
}

// meanReverted is the new difficulty before clamping: D' = D + (10-D)
// (-w6 (G-3))/9 (linear damping), then w7 (D0(Easy) - D') + D' (mean
// reversion).
func (m model) meanReverted(d float64, g learning.Rating) float64 {
	nd := d + (10-d)*(-m.w[6]*float64(g-3))/9
	return m.w[7]*(m.easyD-nd) + nd
}

func clamp(x, lo, hi float64) float64 { return min(max(x, lo), hi) }

// inside reports lo <= x <= hi: a clamp's gradient passes on its bounds and
// stops outside them (Burn's and PyTorch's clamp, which fsrs-rs follows).
func inside(x, lo, hi float64) bool { return x >= lo && x <= hi }
