package simplify

import (
	"slices"
	"testing"
)

// The blocked, chunked steps must give exactly what one sequential sweep
// gives, on a mesh of more than one block.
func TestBlockedStepsMatchOneSweep(t *testing.T) {
	m := sphere(140, 128)
	if n := len(m.idx) / 3; n <= kParBlock*kParChunk {
		t.Fatalf("test mesh has %d triangles, want more than one block", n)
	}
	opts := Options{TargetError: 1, AttributeWeights: Weights{Normal: 0.5}}
	_, s, err := prepare(m.idx, m.pos, m.attrs, opts)
	if err != nil {
		t.Fatal(err)
	}

	// Quadrics: the face and attribute sums in triangle order.
	vq := make([]quadric, s.n)
	aq := make([]quadric, s.n)
	ag := make([]gradient, s.n*s.k)
	g := make([]gradient, s.k)
	for f := 0; f+2 < len(s.result); f += 3 {
		a, b, c := s.result[f], s.result[f+1], s.result[f+2]
		var q quadric
		q.addTriangle(s.pos[a], s.pos[b], s.pos[c])
		for _, v := range [3]uint32{a, b, c} {
			vq[s.remap[v]].add(&q)
		}
		attributeQuadric(&q, g, s.pos[a], s.pos[b], s.pos[c],
			s.attr[int(a)*s.k:int(a+1)*s.k], s.attr[int(b)*s.k:int(b+1)*s.k], s.attr[int(c)*s.k:int(c+1)*s.k])
		for _, v := range [3]uint32{a, b, c} {
			aq[v].add(&q)
			for j := range g {
				d := &ag[int(v)*s.k+j]
				d.gx += g[j].gx
				d.gy += g[j].gy
				d.gz += g[j].gz
				d.gd += g[j].gd
			}
		}
	}
	// The sphere has no border, so fillQuadrics adds no edge quadrics.
	if !slices.Equal(vq, s.vq) || !slices.Equal(aq, s.aq) || !slices.Equal(ag, s.ag) {
		t.Fatal("blocked quadric sums differ from one sequential sweep")
	}

	// Candidates: listed and ranked block by block, against one range.
	s.adjOff, s.adj = buildAdjacency(s.result, s.n, s.remap, s.adjOff, s.adj)
	s.pickCollapses()
	want := s.pickRange(nil, 0, len(s.result))
	clear(s.ecache)
	s.rankRange(want)
	if len(want) == 0 || !slices.Equal(s.coll, want) {
		t.Fatalf("blocked candidates (%d) differ from one sweep's (%d)", len(s.coll), len(want))
	}
}
