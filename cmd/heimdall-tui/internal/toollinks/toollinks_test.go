package toollinks

import (
	"os"
	"slices"
	"syscall"
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

func TestLookupEnv(t *testing.T) {
	const env = "HEIMDALL_PLANNING_DIRX=no\x00A=1\x00=x\x00HEIMDALL_PLANNING_DIR=/p/a=b\x00HEIMDALL_PLANNING_DIR=/second\x00"
	for key, want := range map[string]string{"HEIMDALL_PLANNING_DIR": "/p/a=b", "A": "1", "B": "", "HEIMDALL_PLANNING": ""} {
		if got := LookupEnv([]byte(env), key); got != want {
			t.Errorf("%s: %q, want %q", key, got, want)
		}
	}
	if got := LookupEnv([]byte("K=v"), "K"); got != "v" { // no last NUL
		t.Errorf("unterminated: %q", got)
	}
	// This process's environment reads as syscall.Getenv reads it.
	b, err := os.ReadFile("/proc/self/environ")
	if err != nil {
		t.Skip(err)
	}
	for _, key := range []string{"PATH", "HOME", "HEIMDALL_PLANNING_DIR"} {
		if want, _ := syscall.Getenv(key); LookupEnv(b, key) != want {
			t.Errorf("%s: %q, Getenv %q", key, LookupEnv(b, key), want)
		}
	}
}
