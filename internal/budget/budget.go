// Package budget is the resource budget of one cook: limits every decoder
// and stage checks before it allocates, so that no input, however crafted,
// makes a cook run out of memory. Past a limit the source is refused (exit
// 3) with an *Error naming the file, what was counted and the flag that
// raises the limit.
//
// The defaults keep one cook under 2 GiB of resident memory whatever its
// input (measured with /usr/bin/time -v over the crafted inputs of
// cmd/meshcook/cli's budget tests):
//
//   - Triangles: 2,000,000 per source. The heaviest stages (LOD
//     simplification, meshlets, vertex cache) need about 640 bytes per
//     triangle at their peak: a 2M-triangle noisy heightfield peaks at
//     1.25 GB live, 1.66 GB resident.
//   - ImagePixels: 4096×4096 per image. Decoding, converting to RGBA8 and
//     the mip chain cost about 32 bytes per pixel; an 8192² image peaked at
//     2.1 GB.
//   - DecodedBytes: 512 MiB per source of decoded binary data (FBX arrays,
//     text sources), checked before anything is inflated.
//   - Memory: 1.75 GiB for the whole process: jobs cooking at once reserve
//     their estimated peak from it (Pool), so parallel workers cannot add up
//     past it; the CLI also sets it as the Go runtime's soft memory limit.
package budget

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// Budget holds the limits. The zero value of a field means its default.
type Budget struct {
	// Triangles bounds the triangles of one source (all its meshes).
	Triangles int64
	// ImagePixels bounds width × height of one decoded image.
	ImagePixels int64
	// DecodedBytes bounds the decoded binary data of one source.
	DecodedBytes int64
	// Memory is the whole process's budget, shared by the jobs running
	// at once.
	Memory int64
}

// Defaults (see the package comment for what they were measured on).
const (
	DefaultTriangles    = 2_000_000
	DefaultImagePixels  = 4096 * 4096
	DefaultDecodedBytes = 512 << 20
	DefaultMemory       = 1792 << 20

	// bytesPerTriangle and bytesPerPixel estimate a job's peak for Pool.
	bytesPerTriangle = 640
	bytesPerPixel    = 32
	baseJobBytes     = 16 << 20
)

// Flag names, for messages (the CLI defines flags of these names).
const (
	FlagTriangles    = "--max-triangles"
	FlagImagePixels  = "--max-image-pixels"
	FlagDecodedBytes = "--max-decoded-bytes"
	FlagMemory       = "--memory-budget"
)

// Default returns the documented defaults.
func Default() Budget {
	return Budget{Triangles: DefaultTriangles, ImagePixels: DefaultImagePixels, DecodedBytes: DefaultDecodedBytes, Memory: DefaultMemory}
}

// OrDefault fills zero or negative fields with their defaults.
func (b Budget) OrDefault() Budget {
	d := Default()
	if b.Triangles <= 0 {
		b.Triangles = d.Triangles
	}
	if b.ImagePixels <= 0 {
		b.ImagePixels = d.ImagePixels
	}
	if b.DecodedBytes <= 0 {
		b.DecodedBytes = d.DecodedBytes
	}
	if b.Memory <= 0 {
		b.Memory = d.Memory
	}
	return b
}

// ErrExceeded is wrapped by every *Error.
var ErrExceeded = errors.New("budget exceeded")

// Error is a source past one limit.
type Error struct {
	File  string // the source (or the file it refers to)
	What  string // what was counted: "triangles", "image \"a.png\" pixels"
	Have  int64  // how many it has (or claims)
	Limit int64
	Flag  string // the flag that raises the limit
}

func (e *Error) Error() string {
	file := ""
	if e.File != "" {
		file = e.File + ": "
	}
	return fmt.Sprintf("budget: %s%s %d is more than the limit of %d (raise it with %s)", file, e.What, e.Have, e.Limit, e.Flag)
}

func (e *Error) Unwrap() error { return ErrExceeded }

// CheckTriangles refuses more than b.Triangles triangles in file.
func (b Budget) CheckTriangles(file string, n int64) error {
	b = b.OrDefault()
	if n > b.Triangles {
		return &Error{File: file, What: "triangles", Have: n, Limit: b.Triangles, Flag: FlagTriangles}
	}
	return nil
}

// CheckImage refuses an image of more than b.ImagePixels pixels (what
// names it in the message, say `image 0 ("checker.png")`). Call it with
// the size from image.DecodeConfig, before decoding.
func (b Budget) CheckImage(file, what string, width, height int) error {
	b = b.OrDefault()
	if n := int64(width) * int64(height); width < 0 || height < 0 || n > b.ImagePixels {
		return &Error{File: file, What: what + " pixels (" + fmt.Sprint(width) + "×" + fmt.Sprint(height) + ")", Have: n, Limit: b.ImagePixels, Flag: FlagImagePixels}
	}
	return nil
}

// CheckDecoded refuses more than b.DecodedBytes decoded bytes.
func (b Budget) CheckDecoded(file string, n int64) error {
	b = b.OrDefault()
	if n > b.DecodedBytes {
		return &Error{File: file, What: "decoded bytes", Have: n, Limit: b.DecodedBytes, Flag: FlagDecodedBytes}
	}
	return nil
}

// MaxCorners is the most triangle corners (indices, FBX polygon corners)
// an importer should build under b: three per triangle.
func (b Budget) MaxCorners() int {
	return int(min(3*b.OrDefault().Triangles, 1<<31-1))
}

// JobEstimate is the peak memory Pool reserves for a job with triangles
// triangles whose largest image has pixels pixels.
func JobEstimate(triangles, pixels int64) int64 {
	return baseJobBytes + triangles*bytesPerTriangle + pixels*bytesPerPixel
}

// Pool shares the Memory budget between the jobs that cook at once: each
// reserves its estimate before its heavy stages and releases it after, so
// large jobs wait for each other instead of adding up. A job larger than
// the whole budget runs alone. The zero Pool and a nil *Pool reserve
// nothing.
type Pool struct {
	mu    sync.Mutex
	cond  *sync.Cond
	total int64
	used  int64
}

// NewPool returns a pool of total bytes.
func NewPool(total int64) *Pool {
	p := &Pool{total: total}
	p.cond = sync.NewCond(&p.mu)
	return p
}

// Acquire waits until n bytes (at most the whole pool) are free, reserves
// them and returns the function that releases them. It returns early with
// ctx's error when ctx is cancelled.
func (p *Pool) Acquire(ctx context.Context, n int64) (release func(), err error) {
	if p == nil || p.cond == nil || n <= 0 {
		return func() {}, nil
	}
	n = min(n, p.total)
	stop := context.AfterFunc(ctx, func() {
		p.mu.Lock()
		p.cond.Broadcast()
		p.mu.Unlock()
	})
	defer stop()
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.used+n > p.total {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p.cond.Wait()
	}
	p.used += n
	var once sync.Once
	return func() {
		once.Do(func() {
			p.mu.Lock()
			p.used -= n
			p.cond.Broadcast()
			p.mu.Unlock()
		})
	}, nil
}

type poolKey struct{}

// WithPool returns ctx carrying p, for the jobs of one cook.
func WithPool(ctx context.Context, p *Pool) context.Context {
	return context.WithValue(ctx, poolKey{}, p)
}

// PoolFrom returns the pool ctx carries, or nil.
func PoolFrom(ctx context.Context) *Pool {
	p, _ := ctx.Value(poolKey{}).(*Pool)
	return p
}
