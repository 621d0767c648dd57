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

// groupMesh is a cluster-LOD-like group: a bumpy 32×31 grid (1,984
// triangles) with normals whose border vertices are locked, as clusterlod
// locks the borders between groups.
func groupMesh() (testMesh, []bool) {
	const nx, ny = 32, 31
	m := grid(nx, ny, bumpy)
	m.attrs.Normals = make([][3]float32, len(m.pos))
	for i, p := range m.pos {
		m.attrs.Normals[i] = [3]float32{-p[2], p[2], 1}
	}
	locked := make([]bool, len(m.pos))
	for j := 0; j <= ny; j++ {
		for i := 0; i <= nx; i++ {
			locked[j*(nx+1)+i] = i == 0 || j == 0 || i == nx || j == ny
		}
	}
	return m, locked
}

// BenchmarkGroup simplifies one cluster-LOD-sized group to half, as
// clusterlod does (absolute, no error limit, locked border, normals).
func BenchmarkGroup(b *testing.B) {
	m, locked := groupMesh()
	opts := Options{TargetIndexCount: len(m.idx) / 2 / 3 * 3, TargetError: 1e30, Absolute: true, Locked: locked,
		AttributeWeights: Weights{Normal: 0.5}}
	b.ReportMetric(float64(len(m.idx)/3), "tris")
	b.ResetTimer()
	for b.Loop() {
		if _, err := Simplify(m.idx, m.pos, Attributes{Normals: m.attrs.Normals}, opts); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkChainBig builds the default chain of a ~1M-triangle sphere.
func BenchmarkChainBig(b *testing.B) {
	m := sphere(700, 720)
	b.ReportMetric(float64(len(m.idx)/3), "tris")
	b.ResetTimer()
	for b.Loop() {
		if _, err := Chain(m.idx, m.pos, Attributes{}, nil, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
