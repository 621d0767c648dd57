package fbx

// FBX 6.1 animation: Takes { Take: "name" { LocalTime: start, stop;
// Model: "Model::X" { Channel: "Transform" { Channel: "T" { Channel: "X" {
// Default, KeyCount, Key: t, v, type, … } … } "R" … "S" … } } } }. Each Take
// becomes a stack with one base layer; its channels are read into the same
// curves as 7.x AnimationCurves. Key types: L linear; C constant (then one
// letter); U cubic (then a tangent mode letter, for user and break modes
// the right and next-left slopes, per second, then a weight mode letter, and for
// weighted keys two weights); T TCB (three numbers), evaluated as linear
// with a warning.

import "math"

// takes reads every Take of a 6.1 file.
func (s *scene) takes() []*stackInfo {
	var out []*stackInfo
	for _, tk := range s.doc.Root.Child("Takes").kids() {
		if tk.Name != "Take" {
			continue
		}
		st := &stackInfo{name: tk.str(0), props: map[*object]*[3]layered{}}
		st.layers = []layerInfo{{weight: 100}}
		var lo, hi int64 = math.MaxInt64, math.MinInt64
		for _, m := range tk.Children {
			if m.Name != "Model" {
				if m.Name != "FileName" && m.Name != "LocalTime" && m.Name != "ReferenceTime" && m.Name != "Comments" {
					s.warnf("6.1 take entries %q not imported", clip(m.Name))
				}
				continue
			}
			target := s.byKey[m.str(0)]
			if target == nil {
				s.warnf("6.1 take channels of missing models skipped")
				continue
			}
			for _, group := range m.Children {
				if group.Name != "Channel" {
					continue
				}
				if group.str(0) != "Transform" {
					s.warnf("6.1 take channel %q not imported", clip(group.str(0)))
					continue
				}
				for _, ch := range group.Children {
					if ch.Name != "Channel" {
						continue
					}
					i := -1
					switch ch.str(0) {
					case "T":
						i = 0
					case "R":
						i = 1
					case "S":
						i = 2
					default:
						s.warnf("6.1 take transform channel %q not imported", clip(ch.str(0)))
						continue
					}
					def := s.propVec3(target, transformProps[i], [3]float64{})
					if i == 2 {
						def = s.propVec3(target, transformProps[i], [3]float64{1, 1, 1})
					}
					p := &propAnim{def: def}
					for _, ax := range ch.Children {
						k := map[string]int{"X": 0, "Y": 1, "Z": 2}
						a, ok := k[ax.str(0)]
						if ax.Name != "Channel" || !ok {
							continue
						}
						c, ok := s.takeCurve(ax)
						if !ok {
							s.warnf("6.1 take keys that do not parse skipped")
							continue
						}
						p.def[a] = c.def
						if len(c.times) > 0 {
							p.axes[a] = c
							lo, hi = min(lo, c.times[0]), max(hi, c.times[len(c.times)-1])
						}
					}
					ps := st.props[target]
					if ps == nil {
						ps = &[3]layered{}
						st.props[target] = ps
					}
					ps[i] = layered{p}
				}
			}
		}
		if len(st.props) == 0 {
			continue
		}
		if lo > hi {
			lo, hi = 0, 0
		}
		st.start, st.stop = lo, hi
		if v, _ := tk.Child("LocalTime").Ints(2); len(v) == 2 && v[1] >= v[0] {
			st.start, st.stop = v[0], v[1]
		}
		out = append(out, st)
	}
	return out
}

// takeCurve reads one 6.1 axis channel: Default and its Key list.
func (s *scene) takeCurve(ax *Node) (*curve, bool) {
	c := &curve{}
	if d := ax.Child("Default").prop(0); d != nil && d.IsNumber() {
		c.def = d.AsFloat()
	}
	key := ax.Child("Key")
	if key == nil {
		return c, true
	}
	ps := key.Props
	num := func(i int) (float64, bool) {
		if i < len(ps) && ps[i].IsNumber() {
			return ps[i].AsFloat(), true
		}
		return 0, false
	}
	letter := func(i int) (string, bool) {
		if i < len(ps) && ps[i].Type == TypeString {
			return ps[i].Str, true
		}
		return "", false
	}
	// Every key takes at least 3 properties, so the count is bounded by
	// the file's own bytes.
	for i := 0; i < len(ps); {
		tf, ok1 := num(i)
		v, ok2 := num(i + 1)
		typ, ok3 := letter(i + 2)
		if !ok1 || !ok2 || !ok3 || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, false
		}
		i += 3
		t := f64ToInt(tf)
		if n := len(c.times); n > 0 && t < c.times[n-1] {
			return nil, false
		}
		in, right, left := keyLinear, 0.0, 0.0
		switch typ {
		case "L":
		case "C":
			in = keyConstant
			if _, ok := letter(i); ok {
				i++
			}
		case "U":
			in = keyCubic
			mode, ok := letter(i)
			if ok {
				i++
			}
			if mode == "s" || mode == "b" || mode == "u" {
				r, ok1 := num(i)
				l, ok2 := num(i + 1)
				if ok1 && ok2 {
					right, left = r/ticksPerSecond, l/ticksPerSecond
					i += 2
				}
			}
			if w, ok := letter(i); ok {
				i++
				if w != "n" {
					if _, ok := num(i); ok {
						i++
					}
					if _, ok := num(i); ok {
						i++
					}
				}
			}
		case "T":
			s.warnf("6.1 TCB keys read as linear")
			for range 3 {
				if _, ok := num(i); ok {
					i++
				}
			}
		default:
			return nil, false
		}
		c.times = append(c.times, t)
		c.values = append(c.values, v)
		c.interp = append(c.interp, in)
		// Like 7.x, a key holds its segment's right and next-left slopes.
		c.right = append(c.right, right)
		c.left = append(c.left, left)
		c.wr = append(c.wr, defaultWeight)
		c.wl = append(c.wl, defaultWeight)
	}
	return c, true
}
