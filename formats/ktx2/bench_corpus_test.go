package ktx2

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/meshcook/meshcook/internal/testkit"
	"github.com/stretchr/testify/require"
)

// flightHelmetChains returns the mip chains of FlightHelmet's maps of one
// kind (colour: the base colour maps; data: normal and
// occlusion-roughness-metal), as the cook's default mode encodes them.
func flightHelmetChains(b *testing.B, kind Kind) [][]Level {
	dir := testkit.Shared(b, filepath.Join("corpus", "gltf", "FlightHelmet"))
	names, err := filepath.Glob(filepath.Join(dir, "*.png"))
	require.NoError(b, err)
	var out [][]Level
	for _, n := range names {
		if dataImage(filepath.Base(n)) != (kind == KindData) {
			continue
		}
		in, err := os.ReadFile(n)
		require.NoError(b, err)
		base, err := decodeImage(in)
		require.NoError(b, err)
		lv, err := MipChain(base, kind)
		require.NoError(b, err)
		out = append(out, lv)
	}
	require.NotEmpty(b, out)
	return out
}

// benchmarkBasis encodes the chains in codec c with one Encoder, as the
// cook does for one job.
func benchmarkBasis(b *testing.B, kind Kind, c Codec) {
	chains := flightHelmetChains(b, kind)
	var e Encoder
	defer e.Close()
	b.ResetTimer()
	for range b.N {
		for _, lv := range chains {
			_, err := e.EncodeBasis(lv, kind, testWriter, Options{Codec: c})
			require.NoError(b, err)
		}
	}
}

// The FlightHelmet maps the default cook encodes as UASTC (normal, ORM).
func BenchmarkFlightHelmetUASTC(b *testing.B) { benchmarkBasis(b, KindData, CodecUASTC) }

// The FlightHelmet maps the default cook encodes as ETC1S (base colour).
func BenchmarkFlightHelmetETC1S(b *testing.B) { benchmarkBasis(b, KindColor, CodecETC1S) }
