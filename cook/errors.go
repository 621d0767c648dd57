package cook

import (
	"errors"
	"fmt"
	"strings"

	"github.com/meshcook/meshcook/formats/cnb"
	"github.com/meshcook/meshcook/formats/hanim"
	"github.com/meshcook/meshcook/formats/hmat"
	"github.com/meshcook/meshcook/formats/hmesh"
	"github.com/meshcook/meshcook/formats/ktx2"
	"github.com/meshcook/meshcook/formats/meshpack"
	"github.com/meshcook/meshcook/formats/msh7"
	"github.com/meshcook/meshcook/formats/payload"
)

// InputError is a source that could not be read, parsed or canonicalized
// (exit code 3). Path names the source; Err says what was wrong.
type InputError struct {
	Path string
	Err  error
}

func (e *InputError) Error() string { return fmt.Sprintf("%s: %v", e.Path, e.Err) }
func (e *InputError) Unwrap() error { return e.Err }

// OutputError is an output that could not be written (exit code 4).
type OutputError struct {
	Path string
	Err  error
}

func (e *OutputError) Error() string { return fmt.Sprintf("%s: %v", e.Path, e.Err) }
func (e *OutputError) Unwrap() error { return e.Err }

// InternalError is meshcook's own fault: an output its own format
// validator refuses, or a panic while cooking a source (exit code 1).
// Path names the source, Output (when known) the output file.
type InternalError struct {
	Path   string
	Output string
	Err    error
}

func (e *InternalError) Error() string {
	if e.Output != "" {
		return fmt.Sprintf("%s: internal error, please report: %s: %v", e.Path, e.Output, e.Err)
	}
	return fmt.Sprintf("%s: internal error, please report: %v", e.Path, e.Err)
}
func (e *InternalError) Unwrap() error { return e.Err }

// formatErrors are the sentinels of the formats the cook writes: an
// encoder returning one of them refused what the cook built.
var formatErrors = []error{hmesh.ErrFormat, hmat.ErrFormat, hanim.ErrFormat, msh7.ErrFormat, ktx2.ErrFormat, cnb.ErrFormat, payload.ErrFormat, meshpack.ErrFormat}

// isFormatError reports whether err is an output format's own validation
// error.
func isFormatError(err error) bool {
	for _, f := range formatErrors {
		if errors.Is(err, f) {
			return true
		}
	}
	return false
}

// packError classifies an error from a target's packing: an output its
// format refuses is internal; anything else is the source's, prefixed
// with the target once (format errors already name their format).
func packError(job Job, target string, err error) error {
	if isFormatError(err) {
		return &InternalError{Path: job.Source, Err: err}
	}
	if strings.HasPrefix(err.Error(), target+": ") {
		return &InputError{Path: job.Source, Err: err}
	}
	return &InputError{Path: job.Source, Err: fmt.Errorf("%s: %w", target, err)}
}
