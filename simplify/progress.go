package simplify

// progress is Options.Progress's state: the triangle counts the
// simplification runs from and to, and the last done reported.
type progress struct {
	fn       func(done, total int)
	from, to int  // triangles: at the start, at the (last) target
	last     int  // the last done reported
	started  bool // progressRange ran
}

// progressRange starts progress reports toward target (indices).
func (s *state) progressRange(target int) {
	s.prog.from, s.prog.to = len(s.result)/3, max(target/3, 0)
	s.prog.last, s.prog.started = -1, true
}

// total is the triangles to remove (at least 1, so a fraction exists).
func (p *progress) total() int { return max(p.from-p.to, 1) }

// reportProgress tells Options.Progress the triangles removed so far, if
// that moved since the last report (the collapse passes call it through
// stop, on the simplifying goroutine).
func (s *state) reportProgress() {
	p := &s.prog
	if p.fn == nil || !p.started {
		return
	}
	done := min(max(p.from-len(s.result)/3, 0), p.total())
	if done > p.last {
		p.last = done
		p.fn(done, p.total())
	}
}

// progressDone reports the simplification finished.
func (s *state) progressDone() {
	p := &s.prog
	if p.fn != nil && p.started && p.last < p.total() {
		p.last = p.total()
		p.fn(p.last, p.last)
	}
}
