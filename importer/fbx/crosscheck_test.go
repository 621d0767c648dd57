package fbx_test

// Cross-check of the cooked corpus against two independent FBX readers:
// FBX2glTF 0.9.7 (npm fbx2gltf, a Linux binary built on Autodesk's FBX SDK;
// installed by `npm ci --prefix importer/fbx/testdata/node`) and assimp
// (Debian assimp-utils, `assimp export … -fgltf2`). Each corpus FBX is cooked
// by meshcook (cook.Run: .hmesh + .hanim) and converted to glTF by each tool;
// the test compares triangle counts, positions after units, joint names and
// hierarchy, and skinned vertices posed at several times of every clip. Both
// sides are evaluated here by a small evaluator of its own (float64 TRS
// matrices, linear / step / cubic glTF samplers, linear .hanim keys), not
// by meshcook's math. Under CI a missing tool fails the test.

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	qgltf "github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshcook/meshcook/cook"
	"github.com/meshcook/meshcook/formats/hanim"
	"github.com/meshcook/meshcook/formats/hmesh"
	"github.com/meshcook/meshcook/importer/fbx"
	"github.com/meshcook/meshcook/internal/testkit"
	"github.com/meshcook/meshcook/mesh"
)

// m4 is a column-major 4×4 matrix.
type m4 [16]float64

func ident() m4 { return m4{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1} }

func (a m4) mul(b m4) m4 {
	var r m4
	for c := range 4 {
		for row := range 4 {
			var s float64
			for k := range 4 {
				s += a[k*4+row] * b[c*4+k]
			}
			r[c*4+row] = s
		}
	}
	return r
}

func (a m4) apply(p [3]float64) [3]float64 {
	return [3]float64{
		a[0]*p[0] + a[4]*p[1] + a[8]*p[2] + a[12],
		a[1]*p[0] + a[5]*p[1] + a[9]*p[2] + a[13],
		a[2]*p[0] + a[6]*p[1] + a[10]*p[2] + a[14],
	}
}

func trsMatrix(t [3]float64, q [4]float64, s [3]float64) m4 {
	l := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
	if l == 0 {
		q, l = [4]float64{0, 0, 0, 1}, 1
	}
	x, y, z, w := q[0]/l, q[1]/l, q[2]/l, q[3]/l
	r := m4{
		1 - 2*(y*y+z*z), 2 * (x*y + z*w), 2 * (x*z - y*w), 0,
		2 * (x*y - z*w), 1 - 2*(x*x+z*z), 2 * (y*z + x*w), 0,
		2 * (x*z + y*w), 2 * (y*z - x*w), 1 - 2*(x*x+y*y), 0,
		0, 0, 0, 1,
	}
	for c := range 3 {
		for row := range 3 {
			r[c*4+row] *= s[c]
		}
	}
	r[12], r[13], r[14] = t[0], t[1], t[2]
	return r
}

// track is one animated TRS property: key times and values (comps per
// key, × 3 for cubic).
type track struct {
	times  []float64
	values []float64
	comps  int
	interp string // LINEAR, STEP, CUBICSPLINE
}

func (tr *track) at(t float64) []float64 {
	n, c := len(tr.times), tr.comps
	per := c
	if tr.interp == "CUBICSPLINE" {
		per = 3 * c
	}
	val := func(k int) []float64 {
		if tr.interp == "CUBICSPLINE" {
			return tr.values[k*per+c : k*per+2*c]
		}
		return tr.values[k*per : k*per+c]
	}
	if t <= tr.times[0] || n == 1 {
		return slices.Clone(val(0))
	}
	if t >= tr.times[n-1] {
		return slices.Clone(val(n - 1))
	}
	k := 0
	for k+1 < n && tr.times[k+1] <= t {
		k++
	}
	t0, t1 := tr.times[k], tr.times[k+1]
	u := 0.0
	if t1 > t0 {
		u = (t - t0) / (t1 - t0)
	}
	out := make([]float64, c)
	switch tr.interp {
	case "STEP":
		copy(out, val(k))
	case "CUBICSPLINE":
		dt := t1 - t0
		v0, b0 := tr.values[k*per+c:], tr.values[k*per+2*c:]
		a1, v1 := tr.values[(k+1)*per:], tr.values[(k+1)*per+c:]
		u2, u3 := u*u, u*u*u
		for i := range out {
			out[i] = (2*u3-3*u2+1)*v0[i] + (u3-2*u2+u)*dt*b0[i] + (-2*u3+3*u2)*v1[i] + (u3-u2)*dt*a1[i]
		}
	default:
		a, b := val(k), val(k+1)
		dot := 0.0
		if c == 4 {
			for i := range 4 {
				dot += a[i] * b[i]
			}
		}
		for i := range out {
			bi := b[i]
			if dot < 0 {
				bi = -bi
			}
			out[i] = a[i] + (bi-a[i])*u
		}
	}
	return out
}

// rig is a posable skinned point set: joints with parents and rest TRS,
// per-clip tracks, and skinned points.
type rig struct {
	names   []string
	parents []int // -1 for a root
	rest    []trsVal
	// pre[j] is a fixed transform above root joint j (the glTF nodes above
	// it), identity for ours.
	pre   []m4
	ib    []m4
	clips map[string]*clipTracks
	// points, their influences.
	pts     [][3]float64
	joints  [][4]int
	weights [][4]float64
	// static points (not skinned) in world space; bindPts are the skinned
	// points placed by their mesh node (glTF side: the mesh as bound).
	static  [][3]float64
	bindPts [][3]float64
	tris    int
}

type trsVal struct {
	t [3]float64
	r [4]float64
	s [3]float64
	m *m4 // a static matrix instead of t, r, s
}

// local is v's matrix with tracks (path → track) applied.
func (v trsVal) local(tr func(path int) *track, t float64) m4 {
	animated := false
	for path := range 3 {
		if x := tr(path); x != nil {
			animated = true
			switch path {
			case 0:
				copy(v.t[:], x.at(t))
			case 1:
				copy(v.r[:], x.at(t))
			case 2:
				copy(v.s[:], x.at(t))
			}
		}
	}
	if v.m != nil && !animated {
		return *v.m
	}
	return trsMatrix(v.t, v.r, v.s)
}

type clipTracks struct {
	duration float64
	tracks   map[[2]int]*track // joint, path (0 T, 1 R, 2 S)
	// above animates non-joint nodes above root joints (glTF side):
	// node index → path → track; aboveNodes lists them per root.
	nodeTracks map[[2]int]*track
}

// globals returns the joints' world matrices at time t of clip (nil: rest).
func (r *rig) globals(clip *clipTracks, t float64, preAt func(j int) m4) []m4 {
	g := make([]m4, len(r.names))
	for j := range r.names {
		local := r.rest[j].local(func(path int) *track {
			if clip == nil {
				return nil
			}
			return clip.tracks[[2]int{j, path}]
		}, t)
		if p := r.parents[j]; p >= 0 {
			g[j] = g[p].mul(local)
		} else {
			g[j] = preAt(j).mul(local)
		}
	}
	return g
}

// clipNames lists the reference's animations that move some node.
func (rs *refScene) clipNames() []string {
	var out []string
	for name, c := range rs.rig.clips {
		if len(c.nodeTracks) > 0 {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// motionless reports whether every track of the clip holds one value.
func (c *clipTracks) motionless() bool {
	for _, tr := range c.tracks {
		for i, v := range tr.values {
			if math.Abs(v-tr.values[i%tr.comps]) > 1e-6 {
				return false
			}
		}
	}
	return true
}

// keyNear is the key time of the clip's tracks nearest t.
func (c *clipTracks) keyNear(t float64) float64 {
	best := t
	d := math.Inf(1)
	for _, tr := range c.nodeTracks {
		for _, x := range tr.times {
			if math.Abs(x-t) < d {
				best, d = x, math.Abs(x-t)
			}
		}
	}
	return best
}

// pose returns the skinned points at time t of clip (nil clip: rest).
func (r *rig) pose(clip *clipTracks, t float64, preAt func(j int) m4) [][3]float64 {
	g := r.globals(clip, t, preAt)
	out := make([][3]float64, len(r.pts))
	for i, p := range r.pts {
		var acc [3]float64
		for k := range 4 {
			w := r.weights[i][k]
			if w == 0 {
				continue
			}
			q := g[r.joints[i][k]].mul(r.ib[r.joints[i][k]]).apply(p)
			for c := range 3 {
				acc[c] += w * q[c]
			}
		}
		out[i] = acc
	}
	return out
}

// ours reads a cooked .hmesh and .hanim.
func ours(t *testing.T, meshPath, animPath string, clipNames *[]string) *rig {
	b, err := os.ReadFile(meshPath)
	require.NoError(t, err)
	f, err := hmesh.Decode(b)
	require.NoError(t, err)
	r := &rig{clips: map[string]*clipTracks{}}
	for _, s := range f.Submeshes {
		r.tris += int(s.IndexCount) / 3
	}
	for _, jt := range f.Joints {
		r.parents = append(r.parents, int(jt.Parent))
		r.rest = append(r.rest, trsVal{t: f64s3(jt.BindT), r: f64s4(jt.BindR), s: f64s3(jt.BindS)})
		var ib m4
		for i, v := range jt.InverseBind {
			ib[i] = float64(v)
		}
		r.ib = append(r.ib, ib)
		r.names = append(r.names, "")
		r.pre = append(r.pre, ident())
	}
	for i, v := range f.Vertices {
		p := [3]float64{float64(v.Position[0]), float64(v.Position[1]), float64(v.Position[2])}
		if len(f.Skin) == len(f.Vertices) {
			sv := f.Skin[i]
			r.pts = append(r.pts, p)
			r.joints = append(r.joints, [4]int{int(sv.Joints[0]), int(sv.Joints[1]), int(sv.Joints[2]), int(sv.Joints[3])})
			r.weights = append(r.weights, [4]float64{float64(sv.Weights[0]), float64(sv.Weights[1]), float64(sv.Weights[2]), float64(sv.Weights[3])})
		} else {
			r.static = append(r.static, p)
		}
	}
	if animPath == "" {
		return r
	}
	b, err = os.ReadFile(animPath)
	require.NoError(t, err)
	clips, err := hanim.Decode(b)
	require.NoError(t, err)
	for _, c := range clips {
		ct := &clipTracks{duration: float64(c.Duration), tracks: map[[2]int]*track{}}
		for _, ch := range c.Channels {
			tr := &track{comps: ch.Path.Components(), interp: "LINEAR"}
			if ch.Interp == hanim.InterpStep {
				tr.interp = "STEP"
			}
			for _, x := range ch.Times {
				tr.times = append(tr.times, float64(x))
			}
			for _, x := range ch.Values {
				tr.values = append(tr.values, float64(x))
			}
			ct.tracks[[2]int{int(ch.Joint), int(ch.Path)}] = tr
		}
		r.clips[c.Name] = ct
		*clipNames = append(*clipNames, c.Name)
	}
	return r
}

func f64s3(v [3]float32) [3]float64 { return [3]float64{float64(v[0]), float64(v[1]), float64(v[2])} }
func f64s4(v [4]float32) [4]float64 {
	return [4]float64{float64(v[0]), float64(v[1]), float64(v[2]), float64(v[3])}
}

// refScene is a converter's glTF: its node tree, animations, and the
// skinned and static points it renders.
type refScene struct {
	doc     *qgltf.Document
	post    m4 // applied to every point the reference renders
	parent  []int
	rig     *rig
	skinned bool
	// jointNode[j] is the node of rig joint j; clips by name.
	jointNode []int
	clipIdx   map[string]int
	// meshNodes are the unskinned mesh instances, posed by their nodes.
	meshNodes []meshNode
}

type meshNode struct {
	node int
	pts  [][3]float64
}

// posedStatic is every unskinned mesh placed by its animated node.
func (rs *refScene) posedStatic(clip *clipTracks, t float64) [][3]float64 {
	var out [][3]float64
	for _, mn := range rs.meshNodes {
		w := rs.nodeWorld(mn.node, clip, t)
		for _, p := range mn.pts {
			out = append(out, rs.post.apply(w.apply(p)))
		}
	}
	return out
}

func readRef(t *testing.T, path string) (*refScene, error) {
	doc, err := qgltf.Open(path)
	if err != nil {
		return nil, err
	}
	rs := &refScene{doc: doc, parent: make([]int, len(doc.Nodes)), rig: &rig{clips: map[string]*clipTracks{}}, clipIdx: map[string]int{}}
	for i := range rs.parent {
		rs.parent[i] = -1
	}
	for i, n := range doc.Nodes {
		for _, c := range n.Children {
			rs.parent[c] = i
		}
	}
	// Skin 0 is the rig; other skins are not in the corpus.
	jointOf := map[int]int{}
	if len(doc.Skins) > 0 {
		sk := doc.Skins[0]
		var ibm [][4][4]float32
		if sk.InverseBindMatrices != nil {
			ibm, err = modeler.ReadInverseBindMatrices(doc, doc.Accessors[*sk.InverseBindMatrices], nil)
			require.NoError(t, err)
		}
		for j, node := range sk.Joints {
			jointOf[node] = j
			rs.jointNode = append(rs.jointNode, node)
			var ib m4
			if ibm != nil {
				for c := range 4 {
					for row := range 4 {
						ib[c*4+row] = float64(ibm[j][row][c]) // qmuntal returns rows
					}
				}
			} else {
				ib = ident()
			}
			rs.rig.ib = append(rs.rig.ib, ib)
		}
		for j, node := range sk.Joints {
			n := doc.Nodes[node]
			rs.rig.names = append(rs.rig.names, n.Name)
			p := -1
			for a := rs.parent[node]; a >= 0; a = rs.parent[a] {
				if k, ok := jointOf[a]; ok {
					p = k
					break
				}
			}
			rs.rig.parents = append(rs.rig.parents, p)
			rs.rig.rest = append(rs.rig.rest, nodeTRS(n))
			_ = j
		}
	}
	// Mesh instances.
	for ni, n := range doc.Nodes {
		if n.Mesh == nil {
			continue
		}
		world := rs.nodeWorld(ni, nil, 0)
		for _, pr := range doc.Meshes[*n.Mesh].Primitives {
			if pr.Mode != qgltf.PrimitiveTriangles {
				continue
			}
			pos, err := modeler.ReadPosition(doc, doc.Accessors[pr.Attributes[qgltf.POSITION]], nil)
			require.NoError(t, err)
			if pr.Indices != nil {
				rs.rig.tris += doc.Accessors[*pr.Indices].Count / 3
			} else {
				rs.rig.tris += len(pos) / 3
			}
			ja, hasJ := pr.Attributes[qgltf.JOINTS_0]
			wa, hasW := pr.Attributes[qgltf.WEIGHTS_0]
			if n.Skin != nil && *n.Skin == 0 && hasJ && hasW {
				rs.skinned = true
				js, err := modeler.ReadJoints(doc, doc.Accessors[ja], nil)
				require.NoError(t, err)
				ws, err := modeler.ReadWeights(doc, doc.Accessors[wa], nil)
				require.NoError(t, err)
				for i, p := range pos {
					q := [3]float64{float64(p[0]), float64(p[1]), float64(p[2])}
					rs.rig.pts = append(rs.rig.pts, q)
					rs.rig.bindPts = append(rs.rig.bindPts, world.apply(q))
					rs.rig.joints = append(rs.rig.joints, [4]int{int(js[i][0]), int(js[i][1]), int(js[i][2]), int(js[i][3])})
					rs.rig.weights = append(rs.rig.weights, [4]float64{float64(ws[i][0]), float64(ws[i][1]), float64(ws[i][2]), float64(ws[i][3])})
				}
				continue
			}
			raw := make([][3]float64, len(pos))
			for i, p := range pos {
				raw[i] = [3]float64{float64(p[0]), float64(p[1]), float64(p[2])}
				rs.rig.static = append(rs.rig.static, world.apply(raw[i]))
			}
			rs.meshNodes = append(rs.meshNodes, meshNode{ni, raw})
		}
	}
	for ai, a := range doc.Animations {
		ct := &clipTracks{tracks: map[[2]int]*track{}, nodeTracks: map[[2]int]*track{}}
		for _, ch := range a.Channels {
			if ch.Target.Node == nil {
				continue
			}
			path := map[qgltf.TRSProperty]int{qgltf.TRSTranslation: 0, qgltf.TRSRotation: 1, qgltf.TRSScale: 2}[ch.Target.Path]
			if ch.Target.Path == qgltf.TRSWeights {
				continue
			}
			s := a.Samplers[ch.Sampler]
			in, err := modeler.ReadAccessor(doc, doc.Accessors[s.Input], nil)
			require.NoError(t, err)
			out, err := modeler.ReadAccessor(doc, doc.Accessors[s.Output], nil)
			require.NoError(t, err)
			tr := &track{comps: 3, interp: map[qgltf.Interpolation]string{qgltf.InterpolationLinear: "LINEAR", qgltf.InterpolationStep: "STEP", qgltf.InterpolationCubicSpline: "CUBICSPLINE"}[s.Interpolation]}
			if path == 1 {
				tr.comps = 4
			}
			for _, x := range in.([]float32) {
				tr.times = append(tr.times, float64(x))
				ct.duration = max(ct.duration, float64(x))
			}
			switch v := out.(type) {
			case [][3]float32:
				for _, e := range v {
					tr.values = append(tr.values, float64(e[0]), float64(e[1]), float64(e[2]))
				}
			case [][4]float32:
				for _, e := range v {
					tr.values = append(tr.values, float64(e[0]), float64(e[1]), float64(e[2]), float64(e[3]))
				}
			default:
				t.Fatalf("%s: animation %d: output %T", doc.Asset.Generator, ai, out)
			}
			ct.nodeTracks[[2]int{*ch.Target.Node, path}] = tr
			if j, ok := jointOf[*ch.Target.Node]; ok {
				ct.tracks[[2]int{j, path}] = tr
			}
		}
		rs.rig.clips[a.Name] = ct
		rs.clipIdx[a.Name] = ai
	}
	return rs, nil
}

func nodeTRS(n *qgltf.Node) trsVal {
	return trsVal{t: n.TranslationOrDefault(), r: n.RotationOrDefault(), s: n.ScaleOrDefault(), m: nodeMatrix(n)}
}

// nodeMatrix is a node's matrix when it has one (assimp writes them), nil
// otherwise (glTF animates TRS nodes only).
func nodeMatrix(n *qgltf.Node) *m4 {
	if n.Matrix == [16]float64{} || n.Matrix == [16]float64{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1} {
		return nil
	}
	m := m4(n.Matrix)
	return &m
}

// nodeWorld is a node's world matrix, at time t of clip when clip is set.
func (rs *refScene) nodeWorld(ni int, clip *clipTracks, t float64) m4 {
	m := ident()
	for a := ni; a >= 0; a = rs.parent[a] {
		m = nodeTRS(rs.doc.Nodes[a]).local(func(path int) *track {
			if clip == nil {
				return nil
			}
			return clip.nodeTracks[[2]int{a, path}]
		}, t).mul(m)
	}
	return m
}

// pose poses the reference rig: the nodes above each root joint animate too.
func (rs *refScene) pose(clip *clipTracks, t float64) [][3]float64 {
	return applyAll(rs.post, rs.rig.pose(clip, t, func(j int) m4 {
		if p := rs.parent[rs.jointNode[j]]; p >= 0 {
			return rs.nodeWorld(p, clip, t)
		}
		return ident()
	}))
}

// setDistance is the largest distance from a point of a to the nearest
// point of b and back (symmetric), with a and b non-empty.
func setDistance(a, b [][3]float64) float64 {
	one := func(a, b [][3]float64) float64 {
		worst := 0.0
		for _, p := range a {
			best := math.Inf(1)
			for _, q := range b {
				d := (p[0]-q[0])*(p[0]-q[0]) + (p[1]-q[1])*(p[1]-q[1]) + (p[2]-q[2])*(p[2]-q[2])
				best = min(best, d)
			}
			worst = max(worst, best)
		}
		return math.Sqrt(worst)
	}
	return max(one(a, b), one(b, a))
}

func diagonal(pts [][3]float64) float64 {
	if len(pts) == 0 {
		return 0
	}
	lo, hi := pts[0], pts[0]
	for _, p := range pts {
		for c := range 3 {
			lo[c], hi[c] = min(lo[c], p[c]), max(hi[c], p[c])
		}
	}
	return math.Sqrt((hi[0]-lo[0])*(hi[0]-lo[0]) + (hi[1]-lo[1])*(hi[1]-lo[1]) + (hi[2]-lo[2])*(hi[2]-lo[2]))
}

// tool finds a reference converter; under CI a missing one fails.
func tool(t *testing.T, name, path, install string) string {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		if p, lerr := exec.LookPath(path); lerr == nil {
			return p
		}
		if os.Getenv("CI") != "" {
			t.Fatalf("%s not installed (%s): %v", name, install, err)
		}
		t.Skipf("%s not installed (%s)", name, install)
	}
	return path
}

// converted is a corpus file run through meshcook and both converters.
type converted struct {
	ours    *rig
	names   []string // our joint names (importer order = cooked order)
	clips   []string
	refs    map[string]*refScene
	refErrs map[string]string
}

func convertAll(t *testing.T, src, work string, tools map[string]string) *converted {
	stem := strings.TrimSuffix(filepath.Base(src), filepath.Ext(src))
	cv := &converted{refs: map[string]*refScene{}, refErrs: map[string]string{}}
	jobs, err := cook.Plan([]string{src})
	require.NoError(t, err)
	opts := cook.DefaultOptions()
	opts.OutDir = filepath.Join(work, "ours")
	opts.LOD.Ratios = nil
	rep, err := cook.Run(context.Background(), jobs, opts)
	require.NoError(t, err)
	require.Empty(t, rep.Errors)
	if _, err := os.Stat(filepath.Join(opts.OutDir, stem+".hmesh")); err != nil {
		// A source without triangles writes no .hmesh (the report's
		// empty-source drop): there is no mesh to cross-check.
		require.True(t, slices.ContainsFunc(rep.Dropped, func(d cook.DropReport) bool { return d.What == cook.EmptyDrop }), "no .hmesh and no empty-source drop: %+v", rep.Dropped)
		t.Skipf("%s writes no .hmesh: %s", src, cook.EmptyDrop)
	}
	anim := filepath.Join(opts.OutDir, stem+".hanim")
	if _, err := os.Stat(anim); err != nil {
		anim = ""
	}
	cv.ours = ours(t, filepath.Join(opts.OutDir, stem+".hmesh"), anim, &cv.clips)
	sc, err := fbxLoad(src)
	require.NoError(t, err)
	if sc.Skeleton != nil {
		for _, j := range sc.Skeleton.Joints {
			cv.names = append(cv.names, j.Name)
		}
	}
	// The FBX SDK may write a .fbm folder beside its input: convert a copy.
	in := filepath.Join(work, "in", filepath.Base(src))
	require.NoError(t, os.MkdirAll(filepath.Dir(in), 0o755))
	data, err := os.ReadFile(src)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(in, data, 0o644))
	for name, bin := range tools {
		var cmd *exec.Cmd
		var out string
		switch name {
		case "fbx2gltf":
			tmp := filepath.Join(work, "sdktmp")
			require.NoError(t, os.MkdirAll(tmp, 0o755))
			require.NoError(t, os.MkdirAll(filepath.Join(work, "fbx2gltf"), 0o755))
			cmd = exec.Command(bin, "--input", in, "--output", filepath.Join(work, "fbx2gltf", stem), "--fbx-temp-dir", tmp)
			out = filepath.Join(work, "fbx2gltf", stem+"_out", stem+".gltf")
		case "assimp":
			require.NoError(t, os.MkdirAll(filepath.Join(work, "assimp"), 0o755))
			out = filepath.Join(work, "assimp", stem+".gltf")
			cmd = exec.Command(bin, "export", in, out, "-fgltf2")
		}
		msg, err := cmd.CombinedOutput()
		if err != nil {
			cv.refErrs[name] = fmt.Sprintf("%v: %s", err, lastLine(string(msg)))
			continue
		}
		rs, err := readRef(t, out)
		if err != nil {
			cv.refErrs[name] = fmt.Sprintf("its glTF does not read: %v", err)
			continue
		}
		if name == "assimp" {
			// assimp keeps the file's axes and units: convert its points
			// the way GlobalSettings says (re-derived here).
			rs.post = fileToOutput(t, data)
			rs.rig.static = applyAll(rs.post, rs.rig.static)
			rs.rig.bindPts = applyAll(rs.post, rs.rig.bindPts)
		} else {
			rs.post = ident()
		}
		cv.refs[name] = rs
	}
	return cv
}

func applyAll(m m4, pts [][3]float64) [][3]float64 {
	out := make([][3]float64, len(pts))
	for i, p := range pts {
		out[i] = m.apply(p)
	}
	return out
}

// fileToOutput is the change from an FBX file's axes and units
// (GlobalSettings CoordAxis, UpAxis, FrontAxis with their signs, and
// UnitScaleFactor in centimetres) to +X right, +Y up, +Z front, metres.
func fileToOutput(t *testing.T, data []byte) m4 {
	doc, err := fbx.Parse(data, fbx.Options{})
	require.NoError(t, err)
	setting := func(name string, def float64) float64 {
		for _, n := range doc.Root.Children {
			if n.Name != "GlobalSettings" {
				continue
			}
			for _, c := range n.Children {
				if c.Name != "Properties70" {
					continue
				}
				for _, p := range c.Children {
					if len(p.Props) >= 5 && p.Props[0].Str == name {
						return p.Props[4].AsFloat()
					}
				}
			}
		}
		return def
	}
	var m m4
	m[15] = 1
	for row, axis := range []string{"CoordAxis", "UpAxis", "FrontAxis"} {
		a := int(setting(axis, float64(row)))
		sign := setting(axis+"Sign", 1)
		m[a*4+row] = sign // output row takes file axis a
	}
	k := setting("UnitScaleFactor", 1) / 100
	for i := range 12 {
		m[i] *= k
	}
	return m
}

// stripBlock removes the ASCII FBX block whose line starts with head
// (through its closing brace).
func stripBlock(text, head string) string {
	lines := strings.Split(text, "\n")
	var out []string
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], head) {
			out = append(out, lines[i])
			continue
		}
		depth := 0
		for ; i < len(lines); i++ {
			depth += strings.Count(lines[i], "{") - strings.Count(lines[i], "}")
			if depth <= 0 {
				break
			}
		}
	}
	return strings.Join(out, "\n")
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

func fbxLoad(path string) (*mesh.Scene, error) { return fbx.Load(path, fbx.Options{}) }

// measure compares our cook with one reference: relative distances
// (fractions of our model's bounding-box diagonal).
type measure struct {
	tris, refTris int
	static        float64 // unskinned points at rest
	bind          float64 // skinned points at the rest pose
	posed         float64 // worst over clips and sampled times
	posedAt       string
	names         string // "" when joint names and parents agree
	missingClips  []string
	assimpSelf    float64 // the reference's rest skinning vs its own mesh placement
}

func compare(cv *converted, ref *refScene) measure {
	m := measure{tris: cv.ours.tris, refTris: ref.rig.tris, static: -1, bind: -1, posed: -1}
	noPre := func(int) m4 { return ident() }
	oursRest := append(slices.Clone(cv.ours.static), cv.ours.pose(nil, 0, noPre)...)
	size := diagonal(oursRest)
	if size == 0 {
		size = 1
	}
	// Unskinned meshes: ours may be bound rigidly to node joints
	// (importer/rig) and are compared at rest with the reference's nodes.
	refRest := ref.rig.static
	if len(ref.rig.static) > 0 && len(oursRest) > 0 && !ref.skinned {
		m.static = setDistance(oursRest, refRest) / size
	}
	if len(cv.ours.pts) == 0 {
		return m
	}
	if ref.skinned {
		// Joint names and parents, by name.
		refParent := map[string]string{}
		for j, n := range ref.rig.names {
			p := ""
			if ref.rig.parents[j] >= 0 {
				p = ref.rig.names[ref.rig.parents[j]]
			}
			refParent[n] = p
		}
		for j, n := range cv.names {
			p := ""
			if cv.ours.parents[j] >= 0 {
				p = cv.names[cv.ours.parents[j]]
			}
			if rp, ok := refParent[n]; !ok || rp != p {
				m.names += fmt.Sprintf("%s (parent %q, reference %q %v); ", n, p, rp, ok)
			}
		}
		m.bind = setDistance(cv.ours.pose(nil, 0, noPre), ref.rig.bindPts) / size
		m.assimpSelf = setDistance(ref.pose(nil, 0), ref.rig.bindPts) / size
	}
	refPosed := func(c *clipTracks, t float64) [][3]float64 {
		if ref.skinned {
			return append(ref.pose(c, t), ref.posedStatic(c, t)...)
		}
		return ref.posedStatic(c, t)
	}
	m.posed = 0
	for _, name := range cv.clips {
		oc := cv.ours.clips[name]
		rc := ref.rig.clips[name]
		if rc == nil {
			if !oc.motionless() { // converters drop clips that move nothing
				m.missingClips = append(m.missingClips, name)
			}
			continue
		}
		// The converters bake frames and interpolate linearly between
		// them (FBX2glTF's clip may also end before the stack's LocalStop):
		// sample at their key times, where they are exact.
		for _, f := range []float64{0, 0.2, 0.45, 0.7, 1} {
			t := rc.keyNear(f * min(oc.duration, rc.duration))
			ours := append(cv.ours.pose(oc, t, noPre), cv.ours.static...)
			d := setDistance(ours, refPosed(rc, t)) / size
			if d > m.posed {
				m.posed, m.posedAt = d, fmt.Sprintf("%s@%.3fs", name, t)
			}
		}
	}
	return m
}

// tolerance is the largest distance allowed between a cooked vertex and the
// reference's, as a fraction of the model's bounding-box diagonal.
const tolerance = 1e-3

// disagreements are the corpus files where a reference reads the file
// differently, and which reading meshcook follows.
var disagreements = map[string]string{
	"ufbx_blender_279_loose_geometry/blender_279_edge_circle_7400_binary.fbx fbx2gltf": "a 258-corner polygon (a circle of 256 control points plus two repeated corners) beside 127 loose edges: we ear-clip it into 256 triangles, the FBX SDK's triangulator makes 128 and assimp drops it; we follow neither (every corner is kept, nothing is invented)",
	"ufbx_blender_279_loose_geometry/blender_279_edge_circle_7400_binary.fbx assimp":   "see fbx2gltf: assimp drops the 258-corner polygon",
	"ufbx_blender_279_loose_geometry/blender_279_edge_vertex_7400_binary.fbx fbx2gltf": "loose vertices and one edge: the FBX SDK makes a triangle of the 2-corner polygon and its third control point; we and assimp skip polygons under 3 corners (with a warning)",
	"ufbx_animation/maya_anim_layers_7500_ascii.fbx assimp posed":                      "assimp 5.2 does not blend animation layers (off by 4.3 model sizes); FBX2glTF is the reference here",
	"ufbx_animation/maya_anim_layers_7500_binary.fbx assimp posed":                     "as the ASCII file",
	"ufbx_animation/maya_anim_light_7500_binary.fbx":                                   "a light and its animation, no mesh: both converters write a glTF with an empty buffer, which glTF forbids (byteLength 0) and qmuntal/gltf refuses; we cook an empty mesh and the stack as a clip without joint channels",
	"generated/blender_279_default_6100_no_globalsettings.fbx assimp":                  "assimp 5.2 does not read FBX 6.1",
	"ufbx_blender_279_default/blender_279_default_6100_ascii.fbx assimp":               "assimp 5.2 does not read FBX 6.1",
	"ufbx_maya_cube/maya_cube_6100_ascii.fbx assimp":                                   "assimp 5.2 does not read FBX 6.1",
	"ufbx_maya_cube/maya_cube_6100_binary.fbx assimp":                                  "assimp 5.2 does not read FBX 6.1",
	"ufbx_polygons/maya_cone_6100_ascii.fbx assimp":                                    "assimp 5.2 does not read FBX 6.1",
	"ufbx_polygons/maya_triangulate_down_7500_binary.fbx fbx2gltf":                     "the FBX SDK drops 5 degenerate triangles of the collinear-corner polygons; we keep every triangle as assimp does (the cook's weld drops degenerate ones later, with a count)",
}

// Animation is sampled to linear keys with the tolerance the cook resamples
// glTF CUBICSPLINE channels with.
func TestAnimToleranceIsTheCooks(t *testing.T) {
	require.Equal(t, fbx.DefaultAnimTolerance, float64(cook.ClipTolerance))
}

func TestCrossCheckCorpus(t *testing.T) {
	dir := testkit.Shared(t, filepath.Join("corpus", "fbx"))
	tools := map[string]string{
		"fbx2gltf": tool(t, "FBX2glTF", filepath.Join("testdata", "node", "node_modules", "fbx2gltf", "bin", "Linux", "FBX2glTF"), "npm ci --prefix importer/fbx/testdata/node"),
		"assimp":   tool(t, "assimp", "assimp", "apt-get install assimp-utils"),
	}
	if st, err := os.Stat(tools["fbx2gltf"]); err == nil && st.Mode()&0o111 == 0 {
		require.NoError(t, os.Chmod(tools["fbx2gltf"], 0o755)) // npm drops the executable bit
	}
	var files []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.EqualFold(filepath.Ext(p), ".fbx") {
			files = append(files, p)
		}
		return err
	}))
	slices.Sort(files)
	// FBX 6.1 without GlobalSettings (the SDK's defaults then apply: Y up,
	// centimetres): a corpus 6.1 file with the block removed.
	gen := filepath.Join(t.TempDir(), "generated")
	require.NoError(t, os.MkdirAll(gen, 0o755))
	data, err := os.ReadFile(filepath.Join(dir, "ufbx_blender_279_default", "blender_279_default_6100_ascii.fbx"))
	require.NoError(t, err)
	noSettings := filepath.Join(gen, "blender_279_default_6100_no_globalsettings.fbx")
	stripped := stripBlock(string(data), "\tGlobalSettings:")
	require.NotContains(t, stripped, "UnitScaleFactor")
	require.NoError(t, os.WriteFile(noSettings, []byte(stripped), 0o644))
	files = append(files, noSettings)
	for _, src := range files {
		rel, _ := filepath.Rel(dir, src)
		if strings.HasPrefix(src, gen) {
			rel = "generated/" + filepath.Base(src)
		}
		t.Run(rel, func(t *testing.T) {
			cv := convertAll(t, src, t.TempDir(), tools)
			converted := 0
			for _, name := range []string{"fbx2gltf", "assimp"} {
				if e, bad := cv.refErrs[name]; bad {
					t.Logf("%-9s conversion failed: %s", name, e)
					if disagreements[rel] == "" {
						assert.NotEmpty(t, disagreements[rel+" "+name], "%s cannot convert %s and no reason is recorded", name, rel)
					}
					continue
				}
				converted++
				ref := cv.refs[name]
				m := compare(cv, ref)
				t.Logf("%-9s tris %d/%d static %.2g bind %.2g posed %.2g %s", name, m.tris, m.refTris, m.static, m.bind, m.posed, m.posedAt)
				known := disagreements[rel+" "+name]
				if known != "" {
					t.Logf("%-9s known disagreement: %s", name, known)
					continue
				}
				assert.Equal(t, m.refTris, m.tris, "%s: triangles", name)
				assert.LessOrEqual(t, m.static, tolerance, "%s: unskinned positions (of the model size)", name)
				assert.LessOrEqual(t, m.bind, tolerance, "%s: skinned positions at bind (of the model size)", name)
				assert.Empty(t, m.names, "%s: joint names and parents", name)
				assert.Empty(t, m.missingClips, "%s: clips", name)
				for _, c := range ref.clipNames() {
					assert.Contains(t, cv.clips, c, "%s: the reference's animation %q is not a .hanim clip (every stack must be)", name, c)
				}
				if name == "assimp" && m.assimpSelf > tolerance {
					// assimp's glTF skin does not reproduce its own mesh at
					// rest, so its posed vertices are no reference.
					t.Logf("%-9s posed not compared: its skin misplaces its own mesh at rest by %.2g", name, m.assimpSelf)
					continue
				}
				if why := disagreements[rel+" "+name+" posed"]; why != "" {
					t.Logf("%-9s posed: known disagreement: %s", name, why)
					continue
				}
				assert.LessOrEqual(t, m.posed, tolerance, "%s: posed skinned vertices at %s (of the model size)", name, m.posedAt)
			}
			if converted == 0 {
				require.NotEmpty(t, disagreements[rel], "no reference converted %s", rel)
				t.Logf("no reference: %s", disagreements[rel])
			}
		})
	}
}
