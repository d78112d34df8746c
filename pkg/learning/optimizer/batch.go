package optimizer

import (
	"math"
	"slices"
)

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

// batch is at most Options.BatchSize items, stored as a trie of their
// histories: items whose earlier reviews are the same (most share their
// first reviews and intervals: the scheduler gives everyone the same
// learning steps) share the nodes, so the forward and backward passes run
// once per distinct history prefix, not once per item. The loss and its
// gradient are those of the items one by one, summed in another order.
type batch struct {
	// nodes are the distinct history prefixes, parents before children.
	nodes []node
	// labels are the items: the node of their history and their label.
	labels []label
}

// node is a history prefix: its parent prefix (-1 for a first review) and
// its last review.
type node struct {
	parent int32
	step   Step
}

// label is one item's labelled review: t days after the history ending
// at node, y 1 for a recall (rating > Again), 0 for a lapse, with its
// recency weight.
type label struct {
	node      int32
	t         float64
	y, weight float64
}

// buildBatches sorts the items by length (stably) and cuts them into
// batches of size (fsrs-rs build_plain_batches, what its compute_parameters
// uses without card ids).
func buildBatches(items []weighted, size int) []batch {
	sorted := sortByLength(items)
	var out []batch
	for chunk := range slices.Chunk(sorted, size) {
		out = append(out, newBatch(chunk))
	}
	return out
}

// sortByLength is a stable counting sort of the items by their number of
// reviews.
func sortByLength(items []weighted) []weighted {
	var starts []int
	for _, it := range items {
		n := len(it.item.Reviews)
		if n >= len(starts) {
			starts = append(starts, make([]int, n+1-len(starts))...)
		}
		starts[n]++
	}
	at := 0
	for n, c := range starts {
		starts[n], at = at, at+c
	}
	out := make([]weighted, len(items))
	for _, it := range items {
		n := len(it.item.Reviews)
		out[starts[n]] = it
		starts[n]++
	}
	return out
}

// newBatch builds the trie of the items' histories.
func newBatch(items []weighted) batch {
	type key struct {
		parent int32
		step   Step
	}
	index := map[key]int32{}
	var b batch
	for _, it := range items {
		rs := it.item.Reviews
		at := int32(-1)
		for _, s := range rs[:len(rs)-1] {
			k := key{at, s}
			n, ok := index[k]
			if !ok {
				n = int32(len(b.nodes))
				index[k] = n
				b.nodes = append(b.nodes, node{at, s})
			}
			at = n
		}
		l := label{node: at, t: float64(it.item.label().DeltaT), weight: it.weight}
		if it.item.label().Rating > 1 {
			l.y = 1
		}
		b.labels = append(b.labels, l)
	}
	return b
}

// scratch holds the buffers the passes over a batch reuse, one element per
// node.
type scratch struct {
	states []state
	steps  []step
	gs, gd []float64
}

func (sc *scratch) size(n int) {
	sc.states = slices.Grow(sc.states[:0], n)[:n]
	sc.steps = slices.Grow(sc.steps[:0], n)[:n]
	sc.gs = slices.Grow(sc.gs[:0], n)[:n]
	sc.gd = slices.Grow(sc.gd[:0], n)[:n]
}

// loss returns the batch's summed weighted cross-entropy and, when g is
// not nil, adds its gradient with respect to the weights to g (reverse
// mode through the trie).
func (b *batch) loss(w *Weights, sc *scratch, g *Weights) float64 {
	m := newModel(w)
	sc.size(len(b.nodes))
	for i, nd := range b.nodes {
		if nd.parent < 0 {
			st, sPass, dPass := m.initial(nd.step.Rating)
			sc.states[i], sc.steps[i] = st, step{rating: nd.step.Rating, sPass: sPass, dPass: dPass}
			continue
		}
		sc.states[i], sc.steps[i] = m.next(sc.states[nd.parent], float64(nd.step.DeltaT), nd.step.Rating)
	}
	clear(sc.gs)
	clear(sc.gd)
	loss := 0.0
	for _, l := range b.labels {
		s := sc.states[l.node].s
		r, lnBase := m.c.r(l.t, s)
		lo, dr := bce(r, l.y, l.weight)
		loss += lo
		if g != nil && dr != 0 {
			ds, dw20 := m.c.grad(l.t, s, r, lnBase)
			sc.gs[l.node] += dr * ds
			g[20] += dr * dw20
		}
	}
	if g != nil {
		b.backward(m, sc, g)
	}
	return loss
}

// backward carries the gradients of the nodes' states from the deepest
// nodes back to the first reviews, adding the weights' gradients to g.
func (b *batch) backward(m model, sc *scratch, g *Weights) {
	for i := len(b.nodes) - 1; i >= 0; i-- {
		gs, gd := sc.gs[i], sc.gd[i]
		if gs == 0 && gd == 0 {
			continue
		}
		rec, parent := &sc.steps[i], b.nodes[i].parent
		if parent < 0 {
			first := rec.rating
			if rec.sPass {
				g[first-1] += gs
			}
			if rec.dPass {
				g[4] += gd
				g[5] += gd * -float64(first-1) * math.Exp(m.w[5]*float64(first-1))
			}
			continue
		}
		ps, pd, pr := m.back(rec, gs, gd, g)
		if pr != 0 {
			ds, dw20 := m.c.grad(rec.t, rec.prev.s, rec.r, rec.lnBase)
			ps += pr * ds
			g[20] += pr * dw20
		}
		sc.gs[parent] += ps
		sc.gd[parent] += pd
	}
}
