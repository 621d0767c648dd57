// Command meshcook is an offline mesh asset cooker: it turns glTF, FBX and
// .nwb sources (and primitive-part catalogs) into engine-ready outputs
// (.hmesh, .hmat, .hanim, .ktx2, MSH7, .cnb worlds, mesh packs) and
// validates and inspects cooked files.
// See `meshcook help` and README.md.
package main

import (
	"os"

	"github.com/meshcook/meshcook/cmd/meshcook/cli"
)

func main() { os.Exit(cli.Main()) }
