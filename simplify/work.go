package simplify

import (
	"fmt"
	"math"
)

// Work bounds. Walking a class's fan costs its valence, and on ordinary
// meshes a class is walked a few times per pass (once per candidate edge
// it is an end of, until one commits). Around a vertex of huge valence
// (a fan of 200,000 triangles around one vertex is a valid file) that is
// quadratic: every one of its candidate edges walks the whole fan, and as
// long as none commits (invalid, deferred) the next one walks it again. So
// every class has a budget per pass: the fan triangles walked for it, as
// mover or target, may pass fanBudget once; after that, candidates that
// touch it wait for the next pass, as if it had moved. A pass then walks
// at most fanBudget + 2·valence triangles per class, and valences sum to
// three times the triangle count, so a pass is linear in the triangles
// whatever the valence (meshoptimizer bounds per-vertex work similarly).
// A class of valence v is walked about 2v times per pass at most, so the
// budget never binds below a valence of about sqrt(fanBudget/2) = 90:
// ordinary meshes simplify exactly as without it.
const fanBudget = 1 << 14

// pollWork is how many work units (candidates visited, fan triangles
// walked) pass between two checks of the context: a few milliseconds.
const pollWork = 1 << 16

// admit charges the evaluation of collapsing class r0 onto r1 to both
// classes' fan budgets and w's work, or reports false (and charges
// nothing) when either class has used its budget in this pass.
func (s *state) admit(w *walk, r0, r1 uint32) bool {
	sp0, sp1 := s.spent[r0], s.spent[r1]
	if sp0 >= fanBudget || sp1 >= fanBudget {
		return false
	}
	f0 := s.adjOff[r0+1] - s.adjOff[r0]
	f1 := s.adjOff[r1+1] - s.adjOff[r1]
	s.spent[r0] = saturate(uint64(sp0) + uint64(f0))
	s.spent[r1] = saturate(uint64(sp1) + uint64(f1))
	w.work += int64(f0) + int64(f1)
	return true
}

func saturate(x uint64) uint32 { return uint32(min(x, math.MaxUint32)) }

// poll tells the test hook the work done so far and reports whether the
// context is done. Region walks call it concurrently; it writes nothing.
func (s *state) poll(work int64) bool {
	if s.onPoll != nil {
		s.onPoll(work)
	}
	return s.ctx.Err() != nil
}

// probe observes one simplification (tests): onPoll is called with the
// work done so far at every check of the context (concurrently from region
// walks), and work holds the total when Simplify or Chain returns.
type probe struct {
	onPoll func(work int64)
	work   int64
}

// observed stores the total work in p, if set.
func (s *state) observed(p *probe) {
	if p != nil {
		p.work = s.work
	}
}

// stop records that the context is done, if it is, and reports it.
func (s *state) stop() bool {
	s.reportProgress()
	if s.poll(s.work) {
		s.err = fmt.Errorf("simplify: %w", s.ctx.Err())
	}
	return s.err != nil
}
