package optimizer

import (
	"math"

	"github.com/lexora-app/lexora/pkg/learning"
)

// back differentiates one recorded step: given gs and gd, the gradients of
// the loss with respect to the step's new stability and difficulty (after
// clamping), it adds the weights' gradients to g and returns the gradients
// with respect to the previous stability, the previous difficulty and the
// step's retrievability.
func (m model) back(st *step, gs, gd float64, g *Weights) (ps, pd, pr float64) {
	if !st.sPass {
		gs = 0
	}
	if !st.dPass {
		gd = 0
	}
	if gs != 0 {
		ps, pd, pr = m.backStability(st, gs, g)
	}
	if gd != 0 {
		pd += m.backDifficulty(st, gd, g)
	}
	return ps, pd, pr
}

// backStability differentiates the new stability of st's branch (see the
// branch constants for the formulas).
func (m model) backStability(st *step, gs float64, g *Weights) (ps, pd, pr float64) {
	w, s, d, r := m.w, st.prev.s, st.prev.d, st.r
	gr := float64(st.rating)
	switch st.branch {
	case branchShortFloor:
		return gs, 0, 0
	case branchShort:
		sinc := m.shortMul[st.rating] * st.x[0]
		g[17] += gs * s * sinc * (gr - 3 + w[18])
		g[18] += gs * s * sinc * w[17]
		g[19] += gs * s * sinc * -st.lnS
		return gs * sinc * (1 - w[19]), 0, 0
	case branchFailFloor:
		floor := s / m.failDiv
		g[17] -= gs * floor * w[18]
		g[18] -= gs * floor * w[17]
		return gs / m.failDiv, 0, 0
	case branchFail:
		pD, pS, e, lnS1 := st.x[0], st.x[1], st.x[2], st.x[3]
		raw := w[11] * pD * (pS - 1) * e
		g[11] += gs * pD * (pS - 1) * e
		g[12] += gs * raw * -math.Log(d)
		g[13] += gs * w[11] * pD * pS * lnS1 * e
		g[14] += gs * raw * (1 - r)
		return gs * w[11] * pD * w[13] * pS / (s + 1) * e, gs * raw * (-w[12] / d), gs * raw * -w[14]
	}
	return m.backSuccess(st, gs, g)
}

// backSuccess differentiates S' = S (1 + inc), inc = A (11-D) P Q H with
// A = e^w8, P = S^-w9, Q = e^(w10(1-R)) - 1 and H the Hard/Easy factor.
func (m model) backSuccess(st *step, gs float64, g *Weights) (ps, pd, pr float64) {
	w, s, d, r := m.w, st.prev.s, st.prev.d, st.r
	h := factor(w, st.rating)
	a, p, e10 := m.expW8, st.x[0], st.x[1]
	base := a * (11 - d) * p * (e10 - 1) // inc without the Hard/Easy factor
	inc := base * h
	g[8] += gs * s * inc
	g[9] += gs * s * inc * -st.lnS
	g[10] += gs * s * a * (11 - d) * p * h * e10 * (1 - r)
	switch st.rating {
	case learning.Hard:
		g[15] += gs * s * base
	case learning.Easy:
		g[16] += gs * s * base
	}
	ps = gs * (1 + inc*(1-w[9]))
	pd = gs * s * -(a * p * (e10 - 1) * h)
	pr = gs * s * a * (11 - d) * p * h * e10 * -w[10]
	return ps, pd, pr
}

// backDifficulty differentiates D” = w7 (D0(Easy) - D') + D' with
// D' = D + (10-D) delta/9, delta = -w6 (G-3), D0(Easy) = w4 - e^(3 w5) + 1,
// and returns dD”/dD times gd.
func (m model) backDifficulty(st *step, gd float64, g *Weights) float64 {
	w, d := m.w, st.prev.d
	gr := float64(st.rating) - 3
	delta := -w[6] * gr
	nd := d + (10-d)*delta/9
	g[6] += gd * (1 - w[7]) * (10 - d) / 9 * -gr
	g[7] += gd * (m.easyD - nd)
	g[4] += gd * w[7]
	g[5] += gd * w[7] * -3 * (w[4] + 1 - m.easyD) // e^(3 w5) = w4 + 1 - D0(Easy)
	return gd * (1 - w[7]) * (1 - delta/9)
}

// bce is the weighted binary cross-entropy of label y (1 = recalled)
// against retrievability r clamped to [probMin, probMax], and its
// derivative with respect to r (0 where the clamp is active).
func bce(r, y, weight float64) (loss, dr float64) {
	rc := clamp(r, probMin, probMax)
	loss = -weight * (y*math.Log(rc) + (1-y)*math.Log(1-rc))
	if r > probMin && r < probMax {
		dr = -weight * (y/rc - (1-y)/(1-rc))
	}
	return loss, dr
}
