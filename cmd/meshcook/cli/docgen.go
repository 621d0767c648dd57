package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// WriteMarkdown writes the CLI reference (docs/cli.md) generated from the
// command tree, so help text and docs cannot drift apart.
func WriteMarkdown(w io.Writer) error {
	root := newRootCmd(io.Discard, io.Discard, &profileFlags{})
	var b strings.Builder
	b.WriteString("# meshcook command reference\n\n")
	b.WriteString("Generated from the command tree by `go test ./cmd/meshcook/cli -run TestCLIDocs -update`; do not edit by hand.\n\n")
	writeCommand(&b, root)
	for _, c := range root.Commands() {
		if c.IsAvailableCommand() && c.Name() != "help" && c.Name() != "completion" {
			writeCommand(&b, c)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeCommand(b *strings.Builder, c *cobra.Command) {
	fmt.Fprintf(b, "## %s\n\n%s\n\n", c.CommandPath(), c.Short)
	fmt.Fprintf(b, "```\n%s\n```\n\n", c.UseLine())
	if c.Long != "" {
		fmt.Fprintf(b, "%s\n\n", c.Long)
	}
	if c.Example != "" {
		fmt.Fprintf(b, "Examples:\n\n```\n%s\n```\n\n", c.Example)
	}
	if f := c.NonInheritedFlags().FlagUsages(); f != "" {
		fmt.Fprintf(b, "Flags:\n\n```\n%s```\n\n", f)
	}
}
