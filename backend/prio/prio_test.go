package prio

import (
	"encoding/json"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// report is what the helper process (TestMain, PRIO_HELPER set) prints:
// the nice value of each of its threads and of its autogroup after
// Background, before and after it starts more threads.
type report struct {
	Err            string
	Threads, Later []int
	Group          int
	Leads          bool
}

const helperEnv = "PRIO_TEST_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		helper()
		return
	}
	os.Exit(m.Run())
}

// helper calls Background(7) in a process of its own and reports.
func helper() {
	var r report
	if err := Background(7); err != nil {
		r.Err = err.Error()
	}
	r.Threads = threadNices()
	// Threads started now (goroutines blocked in system calls on locked
	// threads force new ones) inherit the value.
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			time.Sleep(50 * time.Millisecond)
		}()
	}
	time.Sleep(10 * time.Millisecond)
	r.Later = threadNices()
	wg.Wait()
	_, r.Group, _ = Nice()
	r.Leads = leadsSession()
	json.NewEncoder(os.Stdout).Encode(r)
}

func threadNices() []int {
	tids, _ := threads()
	var n []int
	for _, tid := range tids {
		if p, err := unix.Getpriority(unix.PRIO_PROCESS, tid); err == nil {
			n = append(n, 20-p)
		}
	}
	return n
}

// runHelper runs the test binary as the helper, in a session of its own
// if setsid, and decodes its report.
func runHelper(t *testing.T, setsid bool) report {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: setsid}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	var r report
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("helper said %q: %v", out, err)
	}
	if r.Err != "" {
		t.Fatalf("Background: %s", r.Err)
	}
	return r
}

func TestBackgroundNicesEveryThread(t *testing.T) {
	r := runHelper(t, true)
	for _, set := range [][]int{r.Threads, r.Later} {
		for _, n := range set {
			if n != 7 {
				t.Fatalf("thread nice values %v then %v, want all 7", r.Threads, r.Later)
			}
		}
	}
	if !r.Leads {
		t.Fatal("the helper started with setsid does not lead its session")
	}
	if r.Group != -1 && r.Group != 7 {
		t.Errorf("autogroup nice %d, want 7", r.Group)
	}
}

// A process that shares its session (and so its autogroup) with others
// lowers only its own threads: the group's nice value is the session's.
func TestBackgroundLeavesSharedAutogroup(t *testing.T) {
	_, before, _ := Nice()
	r := runHelper(t, false)
	if r.Leads {
		t.Fatal("the helper leads a session it did not start")
	}
	if r.Group != before {
		t.Errorf("the shared autogroup's nice went %d → %d", before, r.Group)
	}
	for _, n := range r.Threads {
		if n != 7 {
			t.Fatalf("thread nice values %v, want all 7", r.Threads)
		}
	}
}

func TestBackgroundRange(t *testing.T) {
	if err := Background(20); err == nil {
		t.Error("Background(20): no error")
	}
	if err := Background(-1); err == nil {
		t.Error("Background(-1): no error")
	}
}
