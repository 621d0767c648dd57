package simplify

import "testing"

// BenchmarkSimplify reduces a ~200k-triangle sphere to 25%.
func BenchmarkSimplify(b *testing.B) {
	m := sphere(256, 400)
	target := len(m.idx) / 4 / 3 * 3
	b.ReportMetric(float64(len(m.idx)/3), "tris")
	b.ResetTimer()
	for b.Loop() {
		if _, err := Simplify(m.idx, m.pos, Attributes{}, Options{TargetIndexCount: target}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSimplifyAttributes is BenchmarkSimplify with weighted normals.
func BenchmarkSimplifyAttributes(b *testing.B) {
	m := sphere(256, 400)
	target := len(m.idx) / 4 / 3 * 3
	b.ResetTimer()
	for b.Loop() {
		if _, err := Simplify(m.idx, m.pos, m.attrs, Options{TargetIndexCount: target, AttributeWeights: Weights{Normal: 1}}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkChain builds the default two-level chain of the same sphere.
func BenchmarkChain(b *testing.B) {
	m := sphere(256, 400)
	b.ResetTimer()
	for b.Loop() {
		if _, err := Chain(m.idx, m.pos, Attributes{}, nil, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
