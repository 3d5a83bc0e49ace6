package shell

import (
	"os/exec"
	"testing"
)

// A quoted word reaches the program as it was, whatever it holds.
func TestQuote(t *testing.T) {
	for _, w := range []string{"", "plain", "two words", "it's", `$HOME`, "`id`", `a\b`, "'", "--flag", "; rm -rf x", "tab\tnl\n"} {
		out, err := exec.Command("sh", "-c", "printf %s "+Quote(w)).Output()
		if err != nil || string(out) != w {
			t.Errorf("Quote(%q) = %s: sh gave %q, %v", w, Quote(w), out, err)
		}
	}
}
