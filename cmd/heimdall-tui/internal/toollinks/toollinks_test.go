package toollinks

import (
	"slices"
	"testing"
)

func TestSplitCmdline(t *testing.T) {
	for b, want := range map[string][]string{
		"a\x00\x00--codex\x00{\"x\":1}\x00": {"a", "", "--codex", `{"x":1}`},
		"a\x00b":                            {"a", "b"}, // no last NUL
		"":                                  nil,
	} {
		if got := SplitCmdline([]byte(b)); !slices.Equal(got, want) {
			t.Errorf("SplitCmdline(%q) = %q, want %q", b, got, want)
		}
	}
}
