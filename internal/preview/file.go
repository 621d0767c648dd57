package preview

import (
	"context"
	"errors"
	"fmt"
	"image"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/meshcook/meshcook/formats/cnb"
	"github.com/meshcook/meshcook/formats/hanim"
	"github.com/meshcook/meshcook/formats/hmesh"
	"github.com/meshcook/meshcook/formats/meshpack"
	"github.com/meshcook/meshcook/formats/msh7"
	"github.com/meshcook/meshcook/formats/payload"
	"github.com/meshcook/meshcook/internal/geomerr"
)

// This file draws cooked files by kind (formats/kinds names): what
// `inspect --png` and `cook --png-dir` draw.

// Pick chooses what of a file to draw: a world's mesh resource by its lock
// name, a mesh pack's entry by name (empty: a contact sheet of all), and a
// clip of the .hanim beside a skinned .hmesh to pose it with at Time.
type Pick struct {
	Resource, Entry, Clip string
	Time                  float64
}

// PickError is a Pick naming what the file does not have; the message
// lists what it has.
type PickError struct{ Msg string }

func (e *PickError) Error() string { return e.Msg }

// ErrKind is DrawFile's error for a kind it does not draw.
var ErrKind = errors.New("preview: draws .hmesh, .msh7, .cnb worlds, mesh payloads and mesh packs")

// DrawFile draws the file at path, of the given kind, with bytes b.
func DrawFile(ctx context.Context, kind, path string, b []byte, pick Pick, o Options) (*image.RGBA, error) {
	switch kind {
	case "hmesh":
		return drawHMesh(ctx, path, b, pick, o)
	case "msh7":
		f, err := msh7.Decode(b)
		if err != nil {
			return nil, err
		}
		m, err := FromMSH7(f)
		if err != nil {
			return nil, err
		}
		return Render(ctx, m, o)
	case "payload", "skmv":
		m, err := decodePayload(b, kind == "skmv")
		if err != nil {
			return nil, err
		}
		return Render(ctx, m, o)
	case "cnb":
		return drawWorld(ctx, path, b, pick.Resource, o)
	case "meshpack":
		return drawPack(ctx, b, pick.Entry, o)
	}
	return nil, ErrKind
}

// pathCause drops the *fs.PathError around err: messages name the file
// themselves.
func pathCause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// hmeshModel decodes a .hmesh into a model with its LOD errors measured
// as inspect reports them (hmesh.SummarizeLODs).
func hmeshModel(b []byte) (*hmesh.File, *Model, error) {
	f, err := hmesh.Decode(b)
	if err != nil {
		return nil, nil, err
	}
	m, err := FromHMesh(f)
	if err != nil {
		return nil, nil, err
	}
	for i, l := range hmesh.SummarizeLODs(f) {
		if i < len(m.LODs) {
			m.LODs[i].Error = l.Error
			m.LODs[i].Stalled = l.Stalled == len(f.Submeshes)
		}
	}
	return f, m, nil
}

func drawHMesh(ctx context.Context, path string, b []byte, pick Pick, o Options) (*image.RGBA, error) {
	f, m, err := hmeshModel(b)
	if err != nil {
		return nil, err
	}
	if pick.Clip != "" {
		clip, err := clipBeside(path, pick.Clip)
		if err != nil {
			return nil, err
		}
		if err := Pose(m, f, clip, pick.Time); err != nil {
			return nil, err
		}
		o.Title = fmt.Sprintf("%s @ %gs", pick.Clip, pick.Time)
	}
	if o.CutError > 0 && o.CutError != CutError { // FromHMesh cut it at CutError
		if m.Cut, err = hmeshCut(f, o.CutError); err != nil {
			return nil, err
		}
	}
	return Render(ctx, m, o)
}

// clipBeside reads the .hanim with the same stem as the .hmesh at path
// (cook writes them together) and returns the clip named name ("#N": the
// N-th clip).
func clipBeside(path, name string) (*hanim.Clip, error) {
	ap := strings.TrimSuffix(path, filepath.Ext(path)) + ".hanim"
	b, err := os.ReadFile(ap)
	if err != nil {
		return nil, fmt.Errorf("--clip: %s: %w", ap, pathCause(err))
	}
	clips, err := hanim.Decode(b)
	if err != nil {
		return nil, fmt.Errorf("--clip: %s: %w", ap, err)
	}
	names := make([]string, 0, len(clips))
	for i := range clips {
		if clips[i].Name == name {
			return &clips[i], nil
		}
		names = append(names, strconv.Quote(clips[i].Name))
	}
	// "#N" names the N-th clip (for clips without a name).
	if n, err := strconv.Atoi(strings.TrimPrefix(name, "#")); err == nil && strings.HasPrefix(name, "#") && n >= 0 && n < len(clips) {
		return &clips[n], nil
	}
	return nil, &PickError{fmt.Sprintf("--clip %q: %s has no such clip (clips: %s; #0 to #%d pick by position)", name, ap, strings.Join(names, ", "), len(clips)-1)}
}

// decodePayload decodes a static or skinned mesh_payload and measures its
// alternate levels' error as inspect does for .hmesh LODs.
func decodePayload(b []byte, skinned bool) (*Model, error) {
	var m *Model
	if skinned {
		p, err := payload.DecodeSkinnedWithLODs(b)
		if err != nil {
			return nil, err
		}
		m = FromSkinnedPayload(p)
	} else {
		p, err := payload.Parse(b)
		if err != nil {
			return nil, err
		}
		m = FromPayload(p)
	}
	if diag := geomerr.Extent(m.Positions, m.Triangles); diag > 0 {
		for i := range m.LODs {
			m.LODs[i].Error = geomerr.LODError(m.Positions, m.Triangles, m.LODs[i].Triangles, diag)
		}
	}
	return m, nil
}

// worldMesh is one mesh resource of a world, named as the lock names it.
type worldMesh struct {
	name    string
	skinned bool
	body    []byte
}

// drawWorld draws one mesh resource of a .cnb world, or a contact sheet
// of every mesh resource.
func drawWorld(ctx context.Context, path string, b []byte, resource string, o Options) (*image.RGBA, error) {
	meshes, err := worldMeshes(path, b)
	if err != nil {
		return nil, err
	}
	if len(meshes) == 0 {
		return nil, errors.New("world has no mesh resources to draw")
	}
	if resource == "" {
		var entries []Entry
		for _, wm := range meshes {
			m, err := decodePayload(wm.body, wm.skinned)
			if err != nil {
				return nil, fmt.Errorf("resource %s: %w", wm.name, err)
			}
			entries = append(entries, Entry{Name: wm.name, Model: m})
		}
		return Sheet(ctx, entries, o)
	}
	names := make([]string, 0, len(meshes))
	for _, wm := range meshes {
		if wm.name == resource {
			m, err := decodePayload(wm.body, wm.skinned)
			if err != nil {
				return nil, fmt.Errorf("resource %s: %w", wm.name, err)
			}
			o.Title = wm.name
			return Render(ctx, m, o)
		}
		names = append(names, wm.name)
	}
	return nil, &PickError{fmt.Sprintf("--resource %q: no such mesh resource in %s (meshes: %s)", resource, path, strings.Join(names, ", "))}
}

// worldMeshes returns the Mesh and SkinnedMesh resources of the world whose
// blob 0 is b, sorted by name: names come from the world-lock.json beside
// the blobs, or are "Mesh:<handle>" without one.
func worldMeshes(path string, b []byte) ([]worldMesh, error) {
	meta, err := cnb.CheckBlobFile(path, b)
	if err != nil {
		return nil, err
	}
	if meta.IsEmpty() && filepath.Base(path) != "0" {
		return nil, errors.New("an overflow blob holds no resource table: name the world's blob 0")
	}
	sections := [][]byte{}
	dir := filepath.Dir(path)
	for i := 0; i <= int(meta.Manifest.MaxBlobIndex); i++ {
		img := b
		if i > 0 {
			if img, err = os.ReadFile(filepath.Join(dir, strconv.Itoa(i))); err != nil {
				return nil, fmt.Errorf("overflow blob %d: %w", i, pathCause(err))
			}
		}
		_, sec, err := cnb.ParseBlob(img)
		if err != nil {
			return nil, fmt.Errorf("blob %d: %w", i, err)
		}
		sections = append(sections, sec)
	}
	names := map[[2]uint32]string{}
	if l := cnb.LockBeside(path); l != nil {
		for _, r := range l.Resources {
			k, _ := cnb.ParseResourceKind(r.Kind)
			names[[2]uint32{uint32(k), r.Handle}] = r.Name
		}
	}
	var out []worldMesh
	for _, r := range meta.Resources {
		if (r.Kind != cnb.Mesh && r.Kind != cnb.SkinnedMesh) || r.Payload == nil {
			continue
		}
		name := names[[2]uint32{uint32(r.Kind), r.Handle}]
		if name == "" {
			name = fmt.Sprintf("%s:%d", r.Kind, r.Handle)
		}
		loc := r.Payload // CheckBlobFile validated every locator
		out = append(out, worldMesh{name: name, skinned: r.Kind == cnb.SkinnedMesh, body: sections[loc.BlobIndex][loc.Offset : loc.Offset+loc.Len]})
	}
	slices.SortStableFunc(out, func(a, b worldMesh) int { return strings.Compare(a.name, b.name) })
	return out, nil
}

// drawPack draws one entry of a mesh pack, or a contact sheet of every
// entry.
func drawPack(ctx context.Context, b []byte, entry string, o Options) (*image.RGBA, error) {
	p, err := meshpack.DecodeLimit(b, meshpack.MaxInspectBytes)
	if err != nil {
		return nil, err
	}
	if entry == "" {
		entries := make([]Entry, 0, len(p.Entries))
		for i := range p.Entries {
			entries = append(entries, Entry{Name: p.Entries[i].Name, Model: FromPackEntry(&p.Entries[i])})
		}
		return Sheet(ctx, entries, o)
	}
	names := make([]string, 0, len(p.Entries))
	for i := range p.Entries {
		if p.Entries[i].Name == entry {
			o.Title = entry
			return Render(ctx, FromPackEntry(&p.Entries[i]), o)
		}
		names = append(names, p.Entries[i].Name)
	}
	return nil, &PickError{fmt.Sprintf("--entry %q: no such entry (entries: %s)", entry, strings.Join(names, ", "))}
}
