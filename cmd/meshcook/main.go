// Command meshcook is an offline mesh asset cooker: it turns glTF sources
// into engine-ready .hmesh/.hmat outputs and validates cooked files.
// See `meshcook help` and README.md.
package main

import (
	"os"

	"github.com/meshcook/meshcook/cmd/meshcook/cli"
)

func main() { os.Exit(cli.Main()) }
