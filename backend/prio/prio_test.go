package prio

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

const helperEnv = "PRIO_TEST_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		helper()
		return
	}
	os.Exit(m.Run())
}

// helper reads nice values from stdin, one a line, sets each with Set and
// answers with the group's value once it is written (or "none" if it has
// no group of its own, "err ..." if it failed).
func helper() {
	g := Own(func(err error) { fmt.Fprintln(os.Stderr, err) })
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		if g == nil {
			fmt.Println("none")
			continue
		}
		var want int
		fmt.Sscan(in.Text(), &want)
		g.Set(want)
		got := -1
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			if got, _ = g.Nice(); got == want {
				break
			}
		}
		fmt.Println(got)
	}
}

// startHelper runs the test binary as the helper, leading a session of its
// own if setsid.
func startHelper(t *testing.T, setsid bool) (set func(nice int) string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: setsid}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		cmd.Wait()
	})
	out := bufio.NewScanner(stdout)
	return func(nice int) string {
		fmt.Fprintln(stdin, nice)
		if !out.Scan() {
			t.Fatalf("helper: no answer: %v", out.Err())
		}
		return out.Text()
	}
}

// autogroups skips the test unless the kernel schedules this process by an
// autogroup: the file is missing without CONFIG_SCHED_AUTOGROUP and reads
// empty for a process in a CPU cgroup of its own (CI's containers).
func autogroups(t *testing.T) {
	if _, err := ReadNice(autogroupFile); err != nil {
		t.Skipf("no autogroup for this process: %v", err)
	}
}

// A session leader lowers its group's priority and takes it back: an
// autogroup's nice value, unlike a thread's, may return to 0 without
// privilege. Set retries while the kernel rate-limits changes.
func TestGroupLowersAndRestores(t *testing.T) {
	autogroups(t)
	set := startHelper(t, true)
	for _, n := range []int{19, 0, 7, 0} {
		if got := set(n); got != fmt.Sprint(n) {
			t.Fatalf("Set(%d): the group's nice value is %s", n, got)
		}
	}
}

// A process that shares its session (and so its autogroup) with others
// leaves the group alone.
func TestGroupNotOwnedIsLeftAlone(t *testing.T) {
	autogroups(t)
	before, err := ReadNice(autogroupFile)
	if err != nil {
		t.Fatal(err)
	}
	set := startHelper(t, false)
	if got := set(19); got != "none" {
		t.Fatalf("a process that does not lead its session owns a group: %s", got)
	}
	if after, _ := ReadNice(autogroupFile); after != before {
		t.Errorf("the shared autogroup's nice went %d → %d", before, after)
	}
}

func TestReadNice(t *testing.T) {
	p := t.TempDir() + "/ag"
	os.WriteFile(p, []byte("/autogroup-86381 nice 19\n"), 0o600)
	if n, err := ReadNice(p); err != nil || n != 19 {
		t.Errorf("ReadNice = %d, %v; want 19", n, err)
	}
	os.WriteFile(p, []byte("garbage"), 0o600)
	if _, err := ReadNice(p); err == nil || !strings.Contains(err.Error(), "garbage") {
		t.Errorf("ReadNice of garbage: %v", err)
	}
	// A process in a CPU cgroup reads an empty file: no group.
	os.WriteFile(p, nil, 0o600)
	if _, err := ReadNice(p); err == nil {
		t.Error("ReadNice of an empty file: no error")
	}
}

func TestNilGroupSetIsANoOp(t *testing.T) {
	var g *Group
	g.Set(19) // must not panic
}
