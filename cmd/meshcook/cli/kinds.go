package cli

import (
	"errors"
	"os"

	"github.com/meshcook/meshcook/cook"
	"github.com/meshcook/meshcook/formats/kinds"
)

var errUnrecognised = errors.New("unrecognised file kind (no known magic or extension)")

// readKind reads the file at path and recognises its kind among every kind
// formats/kinds lists (sources are read with the cook's importer). The
// error names the file.
func readKind(path string) ([]byte, kinds.Description, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, kinds.Description{}, unwrapPath(err)
	}
	k, ok := kinds.Detect(kinds.All(cook.SourceImporter(cook.DefaultOptions())), path, b)
	if !ok {
		return nil, kinds.Description{}, errUnrecognised
	}
	return b, k, nil
}

// unwrapPath drops the *os.PathError around err (messages name the file
// themselves).
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
