package main

import (
	"bytes"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/cmd/heimdall-tui/internal/earlyhook"
	"github.com/heimdall-tui/heimdall-tui/cmd/heimdall-tui/internal/toollinks"
	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// The hook is done during package initialisation, before anything heavy
// is initialised (internal/earlyhook): the runtime's init trace of a hook
// run lists the packages initialised before it exited, and the event
// still reaches the socket.
func TestHookRunsBeforeInit(t *testing.T) {
	if raceEnabled {
		t.Skip("the -race runtime initialises its own packages first")
	}
	dir, err := os.MkdirTemp("", "hkt")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	l, err := net.Listen("unix", filepath.Join(dir, "s"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	got := make(chan []byte, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		b, _ := io.ReadAll(c)
		got <- b
	}()
	const payload = `{"hook_event_name":"PreToolUse","tool_name":"Bash"}`
	cmd := exec.Command(binPath, "hook")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1", HookSocketEnv+"="+l.Addr().String())
	cmd.Stdin = strings.NewReader(payload)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil || stdout.Len() > 0 {
		t.Fatalf("hook: %v, stdout %q", err, stdout.String())
	}
	select {
	case b := <-got:
		want := frame.AppendFrame(nil, frame.Hook, []byte("\x01"+payload))
		if !bytes.Equal(b, want) {
			t.Fatalf("the socket got %q, want %q", b, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the hook did not connect")
	}

	inited := initTrace(stderr.String())
	// syscall is the last package before earlyhook; the trace must show it,
	// or the checks below passed on nothing.
	if len(inited) == 0 || inited[len(inited)-1] != "syscall" {
		t.Fatalf("the init trace does not end with syscall:\n%s", stderr.String())
	}
	checkNotInited(t, inited, "os", "time")
}

// initTrace lists the packages a GODEBUG=inittrace=1 run's stderr says
// were initialised, in order.
func initTrace(stderr string) []string {
	var inited []string
	for _, m := range regexp.MustCompile(`(?m)^init (\S+) @`).FindAllStringSubmatch(stderr, -1) {
		inited = append(inited, m[1])
	}
	return inited
}

// checkNotInited fails for each package of inited that a run done during
// package initialisation must not have waited for: reflect and what waits
// for it (encoding/json, net/http, the MCP SDK, Bubble Tea, cobra), any
// package of ours but earlyhook, and the packages in more.
func checkNotInited(t *testing.T, inited []string, more ...string) {
	t.Helper()
	heavy := append([]string{"reflect", "encoding/json", "net", "net/http", "github.com/modelcontextprotocol/",
		"charm.land/", "github.com/spf13/cobra", "github.com/heimdall-tui/heimdall-tui/"}, more...)
	for _, pkg := range inited {
		if strings.HasSuffix(pkg, "/internal/earlyhook") {
			continue
		}
		for _, h := range heavy {
			if pkg == h || strings.HasSuffix(h, "/") && strings.HasPrefix(pkg, h) {
				t.Errorf("%s was initialised first", pkg)
			}
		}
	}
}

// Through a tool link the binary is that tool: `heimdall-resolve hook`
// resolves the id "hook" and is not a hook run.
func TestHookNotThroughToolLinks(t *testing.T) {
	for _, l := range toollinks.Links {
		if earlyhook.Invoked([]string{"/bin/" + l.Name, "hook"}) {
			t.Errorf("%s hook is taken for a hook run", l.Name)
		}
	}
	if !earlyhook.Invoked([]string{binPath, "hook"}) {
		t.Errorf("%s hook is not a hook run", binPath)
	}
}
