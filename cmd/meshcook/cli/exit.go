// Package cli is meshcook's command tree. Main returns an exit code so tests
// run the whole CLI in-process through Run.
package cli

import (
	"errors"
	"fmt"
)

// Exit codes, the CLI contract (DESIGN.md).
const (
	ExitOK       = 0 // success
	ExitFailure  = 1 // anything else went wrong
	ExitUsage    = 2 // bad flags or arguments
	ExitBadInput = 3 // a source or file did not parse or validate
	ExitOutput   = 4 // an output could not be written
)

// exitError carries an exit code and a message printed once by Run.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageError(format string, args ...any) error {
	return &exitError{code: ExitUsage, err: fmt.Errorf(format, args...)}
}

func withCode(code int, err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: code, err: err}
}

// codeOf maps an error returned by a command to its exit code.
func codeOf(err error) int {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return ExitFailure
}
