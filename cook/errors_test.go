package cook

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/meshcook/meshcook/mesh"
)

// An output the cook's own writer refuses (here a skeleton listing a child
// before its parent, which .hmesh SKEL forbids) is an internal error that
// names the source and says to report it, with one format prefix; it is not
// blamed on the input.
func TestOwnValidatorRefusalIsInternal(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "rig.fbx")
	require.NoError(t, os.WriteFile(src, []byte("stand-in"), 0o644))
	skinned := skQuad(-1)
	skinned.Joints = [][4]uint16{{0, 0, 0, 0}, {0, 0, 0, 0}, {1, 0, 0, 0}, {1, 0, 0, 0}}
	skinned.Weights = []mesh.Vec4{{1, 0, 0, 0}, {1, 0, 0, 0}, {1, 0, 0, 0}, {1, 0, 0, 0}}
	sk := skSkeleton()
	sk.Joints[0].Parent, sk.Joints[1].Parent = 1, -1 // child first
	jobs, err := Plan([]string{src})
	require.NoError(t, err)
	opts := DefaultOptions()
	opts.importer = func(string, Options) (*mesh.Scene, error) {
		return &mesh.Scene{Submeshes: []mesh.Submesh{skinned}, Skeleton: sk}, nil
	}
	opts.OutDir = filepath.Join(dir, "out")
	rep, err := Run(context.Background(), jobs, opts)
	require.NoError(t, err)
	require.Equal(t, 1, rep.InternalErrors)
	require.Zero(t, rep.InputErrors)
	require.Zero(t, rep.OutputErrors)
	require.Len(t, rep.Errors, 1)
	msg := rep.Errors[0]
	require.True(t, strings.HasPrefix(msg, src+": internal error, please report: "), msg)
	// The read-back refuses it (the cook encodes unchecked): the output
	// is named, then one format prefix.
	require.Contains(t, msg, "rig.hmesh: hmesh: chunk SKEL", msg)
	require.Equal(t, 1, strings.Count(msg, " hmesh:"), msg)
}

// A pack error that is the source's (not a format refusal) stays an input
// error with the target named once.
func TestPackErrorPrefix(t *testing.T) {
	job := Job{Source: "a.fbx"}
	err := packError(job, "hmesh", os.ErrInvalid)
	var ie *InputError
	require.ErrorAs(t, err, &ie)
	require.Equal(t, "a.fbx: hmesh: invalid argument", err.Error())
	err = packError(job, "hmesh", errors.New("hmesh: submesh 0: bad"))
	require.Equal(t, "a.fbx: hmesh: submesh 0: bad", err.Error())
}
