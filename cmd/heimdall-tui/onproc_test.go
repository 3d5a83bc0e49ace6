package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A detached supervisor runs with GOMAXPROCS=1 (onOneProc), and the
// program it starts gets the GOMAXPROCS the user had, or none.
func TestDetachedSupervisorRunsOnOneProc(t *testing.T) {
	for _, userValue := range []string{"", "3"} {
		t.Run("GOMAXPROCS="+userValue, func(t *testing.T) {
			if userValue == "" {
				t.Setenv("GOMAXPROCS", "") // restored at the end
				os.Unsetenv("GOMAXPROCS")
			} else {
				t.Setenv("GOMAXPROCS", userValue)
			}
			dir := newSockDir(t)
			out := filepath.Join(t.TempDir(), "env")
			p := startRun(t, dir, "procs", nil, nil, "sh", "-c",
				`echo "G=${GOMAXPROCS-unset} M=${`+oneProcEnv+`-unset}" > `+out+`; exec sleep 60`)
			waitLive(t, p)
			var got []byte
			poll(waitTimeout, func() bool {
				got, _ = os.ReadFile(out)
				return len(got) > 0
			})
			want := "G=unset M=unset\n"
			if userValue != "" {
				want = "G=" + userValue + " M=unset\n"
			}
			if string(got) != want {
				t.Fatalf("the program's environment: %q, want %q", got, want)
			}
			environ, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", p.cmd.Process.Pid))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(strings.Split(string(environ), "\x00"), "GOMAXPROCS=1") {
				t.Fatalf("the supervisor (pid %d) was not started again with GOMAXPROCS=1", p.cmd.Process.Pid)
			}
		})
	}
}
