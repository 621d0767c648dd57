package cook

import "fmt"

// InputError is a source that could not be read, parsed or canonicalized
// (exit code 3). Path names the source; Err says what was wrong.
type InputError struct {
	Path string
	Err  error
}

func (e *InputError) Error() string { return fmt.Sprintf("%s: %v", e.Path, e.Err) }
func (e *InputError) Unwrap() error { return e.Err }

// OutputError is an output that could not be written or failed its own
// read-back validation (exit code 4).
type OutputError struct {
	Path string
	Err  error
}

func (e *OutputError) Error() string { return fmt.Sprintf("%s: %v", e.Path, e.Err) }
func (e *OutputError) Unwrap() error { return e.Err }
