package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/meshcook/meshcook/internal/atomicfile"
	"github.com/meshcook/meshcook/nwb"
)

type refreshOptions struct {
	out           string
	force         bool
	check         bool
	keepPositions bool
}

func newRefreshCmd(stdout, stderr io.Writer) *cobra.Command {
	var o refreshOptions
	cmd := &cobra.Command{
		Use:   "refresh FILE.nwb... [--force | -o OUT | --check]",
		Short: "Canonicalize authored .nwb mesh sources (dedup streams, remap vertex_refs)",
		Long: `Refresh rewrites the mesh streams of authored .nwb sources into canonical
form, as the engine's importer does after an importer change: each stream
(positions, normals, tangents, uv0, colors) is deduplicated by exact bit
equality, vertex_refs are remapped, indices never change. Only lists whose
element count changed are rewritten; every other byte of the file stays as
it was, and the file keeps its line-ending style (CRLF if it has any).
Positions of a mesh that a skin in the same file references are kept.

Files are rewritten in place only with --force; -o OUT writes a single
input elsewhere (an existing OUT also needs --force). --check writes
nothing and exits 1 with a summary when any file is not canonical (for CI).
Each refresh prints "Refreshed <out>" and before -> after counts.
A file that does not parse or validate, or that has a field refresh would
drop, is refused with exit 3.`,
		Example: `  # canonicalize in place
  meshcook refresh assets/characters/hero.nwb --force

  # write the canonical form elsewhere
  meshcook refresh hero.nwb -o hero.canonical.nwb

  # CI: fail when a source is not canonical
  meshcook refresh --check assets/**/*.nwb`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError("refresh: name at least one .nwb file")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRefresh(args, o, stdout, stderr)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.out, "out", "o", "", "write the refreshed file here (one input only)")
	f.BoolVar(&o.force, "force", false, "allow overwriting: the input in place, or an existing -o file")
	f.BoolVar(&o.check, "check", false, "write nothing; exit 1 with a summary when a file is not canonical")
	f.BoolVar(&o.keepPositions, "keep-positions", false, "never deduplicate positions (a skin in another file indexes them)")
	return cmd
}

func runRefresh(args []string, o refreshOptions, stdout, stderr io.Writer) error {
	switch {
	case o.check && (o.out != "" || o.force):
		return usageError("refresh: --check writes nothing; drop -o/--force")
	case o.out != "" && len(args) > 1:
		return usageError("refresh: -o takes one input, got %d", len(args))
	case !o.check && o.out == "" && !o.force:
		return usageError("refresh: refreshing in place needs --force (or -o OUT, or --check)")
	}
	for _, a := range args {
		if !strings.EqualFold(filepath.Ext(a), ".nwb") {
			return usageError("refresh: %s is not a .nwb source (import FBX/glTF with 'meshcook import')", a)
		}
	}
	if o.out != "" && !o.force {
		if _, err := os.Stat(o.out); err == nil {
			return usageError("refresh: %s exists; pass --force to overwrite it", o.out)
		}
	}

	opts := nwb.RefreshOptions{KeepPositions: o.keepPositions}
	var failed []error
	code, notCanonical := ExitOK, 0
	fail := func(c int, err error) {
		fmt.Fprintf(stderr, "meshcook: %v\n", err)
		failed = append(failed, err)
		code = max(code, c)
	}
	for _, in := range args {
		src, err := os.ReadFile(in)
		if err != nil {
			fail(ExitBadInput, fmt.Errorf("refresh: %w", err))
			continue
		}
		if o.check {
			ok, summary, err := nwb.Check(src, in, opts)
			if err != nil {
				fail(ExitBadInput, err)
				continue
			}
			if ok {
				fmt.Fprintf(stdout, "%s: canonical\n", in)
			} else {
				notCanonical++
				fmt.Fprint(stdout, summary)
			}
			continue
		}
		dst := in
		if o.out != "" {
			dst = o.out
		}
		opts.Output = dst
		out, rep, err := nwb.Refresh(src, in, opts)
		if err != nil {
			fail(ExitBadInput, err)
			continue
		}
		if err := writeIfChanged(dst, out); err != nil {
			fail(ExitOutput, fmt.Errorf("refresh: %w", err))
			continue
		}
		fmt.Fprint(stdout, rep.String())
	}
	switch {
	case len(failed) == 1:
		// Already printed above; Run adds nothing for an empty message.
		return withCode(code, errors.New(""))
	case len(failed) > 1:
		return withCode(code, fmt.Errorf("refresh: %d of %d files failed", len(failed), len(args)))
	case notCanonical > 0:
		return withCode(ExitFailure, fmt.Errorf("refresh --check: %d of %d files are not canonical (run 'meshcook refresh --force')", notCanonical, len(args)))
	}
	return nil
}

// writeIfChanged atomically replaces path with data unless it already
// holds exactly data (atomicfile.WriteIfChanged), then removes the temp
// files a killed refresh of path left (their writer gone), so none
// accumulates.
func writeIfChanged(path string, data []byte) error {
	_, err := atomicfile.WriteIfChanged(path, data)
	if err == nil {
		base := filepath.Base(path)
		atomicfile.RemoveStale(filepath.Dir(path), func(target string) bool { return target == base })
	}
	return err
}
