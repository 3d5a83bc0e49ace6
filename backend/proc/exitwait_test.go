package proc

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// threads is this process's thread count.
func threads(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "Threads:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	t.Fatal("no Threads line")
	return 0
}

// Waiting for children holds no thread each: 20 running children leave
// the thread count as it was (give or take the runtime's own), and each is
// still reaped with its exit code when it ends.
func TestWaitingHoldsNoThread(t *testing.T) {
	var ps []*Process
	for range 20 { // started first: starting may itself take threads
		p, err := Start(exec.Command("sleep", "60"), Options{})
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	defer func() {
		for _, p := range ps {
			select {
			case <-p.Done(): // reaped: its pid may be another's now
			default:
				p.Signal(syscall.SIGKILL)
				waitDone(t, p, 10*time.Second)
			}
		}
	}()
	before := threads(t)
	more := append([]*Process(nil), ps...)
	for range 20 {
		p, err := Start(exec.Command("sleep", "60"), Options{})
		if err != nil {
			t.Fatal(err)
		}
		more = append(more, p)
	}
	ps = more
	time.Sleep(100 * time.Millisecond) // let the waits begin (a held thread would show)
	if after := threads(t); after-before >= 10 {
		t.Errorf("%d threads with 20 more children waited for, %d before", after, before)
	}
	p := ps[len(ps)-1]
	p.Signal(syscall.SIGTERM)
	if code := waitDone(t, p, 10*time.Second); code != 128+int(syscall.SIGTERM) {
		t.Errorf("exit code %d", code)
	}
}
