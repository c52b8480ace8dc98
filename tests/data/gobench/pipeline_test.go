package gobench

import (
	"strconv"
	"testing"
)

func batch(n int) []string {
	out := make([]string, n)
	x := uint64(1)
	for i := range out {
		x = x*6364136223846793005 + 1442695040888963407
		out[i] = "key" + strconv.Itoa(i) + "=" + strconv.FormatFloat(float64(x>>40)/1e3, 'f', 3, 64)
	}
	return out
}

func BenchmarkHandle(b *testing.B) {
	lines := batch(2000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Handle(lines)
	}
}
