package cli

import "github.com/meshcook/meshcook/internal/buildfile"

// The build-file quoting plan's tests check, now in internal/buildfile.
var (
	ninjaPath       = buildfile.NinjaPath
	shellQuote      = buildfile.ShellQuote
	splitShellWords = buildfile.SplitShellWords
	depEscapeMake   = buildfile.DepEscapeMake
)
