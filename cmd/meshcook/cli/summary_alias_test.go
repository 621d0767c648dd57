package cli

import (
	"github.com/meshcook/meshcook/formats/hanim"
	"github.com/meshcook/meshcook/formats/hmesh"
	"github.com/meshcook/meshcook/formats/ktx2"
)

// What inspect --json prints for a .hmesh, a .hanim and a .ktx2 (the tests decode
// them).
type (
	hmeshSummary = hmesh.Summary
	hanimSummary = hanim.Summary
	clipSummary  = hanim.ClipSummary
	ktx2Summary  = ktx2.Summary
)

// The thresholds inspect cuts a cluster hierarchy at by default.
var defaultCutErrors = hmesh.DefaultCutErrors()
