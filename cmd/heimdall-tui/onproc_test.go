package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A detached supervisor starts with GOMAXPROCS=1 in its environment
// (onOneProc) unless the user set GOMAXPROCS, and the program it starts
// gets the GOMAXPROCS the user had, or none.
func TestDetachedSupervisorStartsOnOneProc(t *testing.T) {
	for _, userValue := range []string{"", "3"} {
		t.Run("GOMAXPROCS="+userValue, func(t *testing.T) {
			t.Setenv("GOMAXPROCS", userValue) // restored at the end
			if userValue == "" {
				os.Unsetenv("GOMAXPROCS")
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
			want, supervisor := "G=unset M=unset\n", "GOMAXPROCS=1"
			if userValue != "" {
				want, supervisor = "G="+userValue+" M=unset\n", "GOMAXPROCS="+userValue
			}
			if string(got) != want {
				t.Fatalf("the program's environment: %q, want %q", got, want)
			}
			environ, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", p.cmd.Process.Pid))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(strings.Split(string(environ), "\x00"), supervisor) {
				t.Fatalf("the supervisor (pid %d) did not start with %s", p.cmd.Process.Pid, supervisor)
			}
		})
	}
}
