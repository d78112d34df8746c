package optimizer

import (
	"cmp"
	"math"
	"slices"
)

// column is one item inside a batch: its reviews and its label, at the
// last position (y is 1 for a recall, rating > Again, 0 for a lapse;
// weight is its recency weight).
type column struct {
	reviews   []Step
	y, weight float64
}

// batch is at most Options.BatchSize items.
type batch struct {
	columns []column
}

// weighted is an item with its recency weight.
type weighted struct {
	item   Item
	weight float64
}

// recencyWeights gives item i of n the weight 0.25 + 0.75 (i/(n-1))^3, so
// later reviews count up to four times as much as the earliest (fsrs-rs
// recency_weighted_fsrs_items).
func recencyWeights(items []Item) []weighted {
	n := max(float64(len(items))-1, 1)
	out := make([]weighted, len(items))
	for i, it := range items {
		out[i] = weighted{it, 0.25 + 0.75*math.Pow(float64(i)/n, 3)}
	}
	return out
}

// buildBatches sorts the items by length (stably) and cuts them into
// batches of size (fsrs-rs build_plain_batches, what its compute_parameters
// uses without card ids).
func buildBatches(items []weighted, size int) []batch {
	sorted := slices.Clone(items)
	slices.SortStableFunc(sorted, func(a, b weighted) int { return cmp.Compare(len(a.item.Reviews), len(b.item.Reviews)) })
	cols := make([]column, len(sorted))
	for i, it := range sorted {
		cols[i] = column{reviews: it.item.Reviews, weight: it.weight}
		if it.item.label().Rating > 1 {
			cols[i].y = 1
		}
	}
	var out []batch
	for chunk := range slices.Chunk(cols, size) {
		out = append(out, batch{columns: chunk})
	}
	return out
}

// scratch holds the buffers one pass over a batch reuses.
type scratch struct {
	steps []step
	gPred []float64
}

// columnLoss returns the weighted cross-entropy of a column's label and,
// when g is not nil, adds its gradient with respect to the weights to g
// (reverse mode through the recorded steps).
func (m model) columnLoss(col *column, sc *scratch, g *Weights) float64 {
	n := len(col.reviews)
	first := col.reviews[0].Rating
	st, sPass, dPass := m.initial(first)
	sc.steps = sc.steps[:0]
	sc.gPred = slices.Grow(sc.gPred[:0], n)[:n]
	clear(sc.gPred)
	loss := 0.0
	for k := 1; k < n; k++ {
		var rec step
		st, rec = m.next(st, float64(col.reviews[k].DeltaT), col.reviews[k].Rating)
		if k == n-1 {
			l, dr := bce(rec.r, col.y, col.weight)
			loss += l
			sc.gPred[k] = dr
		}
		if g != nil {
			sc.steps = append(sc.steps, rec)
		}
	}
	if g == nil {
		return loss
	}
	gs, gd := 0.0, 0.0
	for k := n - 1; k >= 1; k-- {
		rec := &sc.steps[k-1]
		ps, pd, pr := m.back(rec, gs, gd, g)
		if pr += sc.gPred[k]; pr != 0 {
			ds, dw20 := m.c.grad(rec.t, rec.prev.s, rec.r)
			ps += pr * ds
			g[20] += pr * dw20
		}
		gs, gd = ps, pd
	}
	if sPass {
		g[first-1] += gs
	}
	if dPass {
		g[4] += gd
		g[5] += gd * -float64(first-1) * math.Exp(m.w[5]*float64(first-1))
	}
	return loss
}

// loss returns the batch's summed weighted cross-entropy and, when g is
// not nil, adds its gradient to g.
func (b *batch) loss(w *Weights, sc *scratch, g *Weights) float64 {
	m := newModel(w)
	total := 0.0
	for i := range b.columns {
		total += m.columnLoss(&b.columns[i], sc, g)
	}
	return total
}
