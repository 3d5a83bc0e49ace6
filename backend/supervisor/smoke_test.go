package supervisor

import (
	"strings"
	"testing"
	"time"
)

func TestExitCodeAndOutput(t *testing.T) {
	s := startServed(t, Config{Argv: []string{"sh", "-c", "sleep 0.2; echo hello; exit 3"}})
	c := dial(t, s.sock)
	if err := c.Subscribe(); err != nil {
		t.Fatal(err)
	}
	out, code := readUntilExit(t, c, 10*time.Second)
	if !strings.Contains(string(out), "hello") || code != 3 {
		t.Fatalf("out %q code %d", out, code)
	}
}
