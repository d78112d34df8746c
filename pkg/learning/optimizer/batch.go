package optimizer

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// column is one card inside a batch: its reviews up to its last label and
// the labels along them, by position (fsrs-rs's windowed batch column).
type column struct {
	reviews []Step
	labels  []columnLabel
}

// columnLabel is a label at position pos of a column: y is 1 for a recall
// (rating > Again), 0 for a lapse; weight is its recency weight.
type columnLabel struct {
	pos       int
	y, weight float64
}

// batch is a set of whole cards with at most Options.BatchSize labels in
// all (a card with more labels has a batch of its own).
type batch struct {
	columns []column
	labels  int
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

// buildBatches groups the items by card (each card's items are prefixes of
// its longest), orders cards by card number and then, stably, by their
// longest item, and packs consecutive cards into batches of at most size
// labels (fsrs-rs build_windowed_batches). Errors: two items of one card
// that are not prefixes of one another wrap [ErrInvalidLog].
func buildBatches(items []weighted, size int) ([]batch, error) {
	byCard := map[int][]weighted{}
	for _, it := range items {
		byCard[it.item.Card] = append(byCard[it.item.Card], it)
	}
	cards := make([][]weighted, 0, len(byCard))
	for _, c := range slices.Sorted(func(yield func(int) bool) {
		for k := range byCard {
			if !yield(k) {
				return
			}
		}
	}) {
		card := byCard[c]
		slices.SortStableFunc(card, func(a, b weighted) int { return cmp.Compare(len(a.item.Reviews), len(b.item.Reviews)) })
		cards = append(cards, card)
	}
	last := func(card []weighted) int { return len(card[len(card)-1].item.Reviews) }
	slices.SortStableFunc(cards, func(a, b []weighted) int { return cmp.Compare(last(a), last(b)) })
	var out []batch
	var cur batch
	for _, card := range cards {
		col, err := newColumn(card)
		if err != nil {
			return nil, err
		}
		if len(cur.columns) > 0 && cur.labels+len(col.labels) > size {
			out = append(out, cur)
			cur = batch{}
		}
		cur.columns = append(cur.columns, col)
		cur.labels += len(col.labels)
	}
	if len(cur.columns) > 0 {
		out = append(out, cur)
	}
	return out, nil
}

// newColumn makes the column of one card's items, sorted by length.
func newColumn(card []weighted) (column, error) {
	full := card[len(card)-1].item.Reviews
	col := column{reviews: full, labels: make([]columnLabel, 0, len(card))}
	for i, it := range card {
		n := len(it.item.Reviews)
		if (i > 0 && n == len(card[i-1].item.Reviews)) || !slices.Equal(it.item.Reviews, full[:n]) {
			return column{}, fmt.Errorf("%w: items of card %d are not prefixes of one history", ErrInvalidLog, it.item.Card)
		}
		y := 0.0
		if it.item.label().Rating > 1 {
			y = 1
		}
		col.labels = append(col.labels, columnLabel{pos: n - 1, y: y, weight: it.weight})
	}
	return col, nil
}

// scratch holds the buffers one pass over a batch reuses.
type scratch struct {
	steps []step
	gPred []float64
}

// columnLoss returns the weighted cross-entropy of a column's labels and,
// when g is not nil, adds its gradient with respect to the weights to g
// (reverse mode through the recorded steps).
func (m model) columnLoss(col *column, sc *scratch, g *Weights) float64 {
	n := len(col.reviews)
	first := col.reviews[0].Rating
	st, sPass, dPass := m.initial(first)
	sc.steps = sc.steps[:0]
	sc.gPred = slices.Grow(sc.gPred[:0], n)[:n]
	clear(sc.gPred)
	loss, li := 0.0, 0
	for k := 1; k < n; k++ {
		var rec step
		st, rec = m.next(st, float64(col.reviews[k].DeltaT), col.reviews[k].Rating)
		if li < len(col.labels) && col.labels[li].pos == k {
			l, dr := bce(rec.r, col.labels[li].y, col.labels[li].weight)
			loss += l
			sc.gPred[k] = dr
			li++
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
