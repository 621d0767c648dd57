package nwb

import (
	"math"
	"strconv"
	"testing"
)

// The fast number path agrees with strconv bit for bit.
func TestParseNumber(t *testing.T) {
	cases := []string{"0", "007", "1", "12345678901234567890", "0.1", "0.333333343", "1.00000002e+20",
		"9.99999975e-06", "1e22", "1e23", "1e-22", "1e-23", "123456789012345.6", "0.000000000000000000001",
		"4294967295", "3.40282347e+38", "1e39", "1e400", "1e-400", "2.5E-1", "00.000e-0", "17976931348623157e292"}
	for _, s := range cases {
		want, _ := strconv.ParseFloat(s, 64)
		if got := parseNumber([]byte(s)); math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("%s: got %v, want %v", s, got, want)
		}
	}
	// Every float32 printed as the writer prints it reads back exactly.
	for i := uint32(0); i < 1<<32-1<<22; i += 1<<22 + 12345 {
		f := float32(math.Abs(float64(math.Float32frombits(i))))
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			continue
		}
		s := strconv.FormatFloat(float64(f), 'g', 9, 64)
		if got := float32(parseNumber([]byte(s))); got != f {
			t.Errorf("%s: read back %v, want %v", s, got, f)
		}
	}
}
