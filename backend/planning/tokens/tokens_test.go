package tokens

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestCount(t *testing.T) {
	// Reference counts from OpenAI's tiktoken o200k_base.
	cases := map[string]int{
		"":                     0,
		"hello world":          2,
		"Hello, world!":        4,
		"balances sum to zero": 4,
	}
	for text, want := range cases {
		got, err := Count(text)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("Count(%q) = %d, want %d", text, got, want)
		}
	}
	// Measured, not estimated from length: same length, different counts.
	a, _ := Count(strings.Repeat("a", 64))
	b, _ := Count(strings.Repeat("a ", 32))
	if a == b || a == 16 {
		t.Errorf("counts look estimated: %d and %d", a, b)
	}
}

// The tokenizer's throughput on prose (the demo's plan).
func BenchmarkCount(b *testing.B) {
	text, err := os.ReadFile("../demo/demodata/plan.md")
	if err != nil {
		b.Fatal(err)
	}
	n, err := Count(string(text)) // builds the vocabulary outside the timing
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Count(string(text)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
}

// The one-time cost of building the o200k vocabulary (paid by the first
// --text/--file of a process), measured in a fresh process.
func BenchmarkTokenizerColdStart(b *testing.B) {
	if os.Getenv("PLANNING_COLD") == "1" {
		Count("x")
		return
	}
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(exe, "-test.run=^$", "-test.bench=^BenchmarkTokenizerColdStart$", "-test.benchtime=1x")
		cmd.Env = append(os.Environ(), "PLANNING_COLD=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v\n%s", err, out)
		}
	}
}
