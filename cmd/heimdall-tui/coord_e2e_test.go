package main

// End-to-end tests of the coordination ledger's commands (haid, claim):
// the real binary against a temp HEIMDALL_PLANNING_DIR, with a controlled
// identity (no git user, $USER set).

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/heimdall-tui/heimdall-tui/backend/coord"
)

// newCoordEnv is a planning env whose identity is $USER=Alice.Smith on
// this host in the env's working directory (no git configuration).
func newCoordEnv(t *testing.T) (*planEnv, string) {
	t.Helper()
	e := newPlanEnv(t)
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(e.wd))
	t.Setenv("USER", "Alice.Smith")
	wd, err := filepath.EvalSymlinks(e.wd)
	if err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	host, _, _ = strings.Cut(host, ".")
	return e, coord.Identity{Human: "Alice.Smith", Machine: host, RepoRoot: wd}.HAID()
}

func TestHaidCLI(t *testing.T) {
	e, root := newCoordEnv(t)
	if !strings.HasPrefix(root, "haid:alice-smith.") {
		t.Fatalf("root HAID %q", root)
	}
	e.want(0, root+"\n", "haid", "whoami")
	e.want(0, root+"/claude-code\n", "haid", "spawn", "Claude Code")
	e.want(0, root+"/cursor\n", "haid", "register", root+"/cursor")
	e.want(0, root+"\n", "haid", "register", root, "--role", "lead")
	r := e.run("", "haid", "list")
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if r.code != 0 || len(lines) != 2 || !strings.HasPrefix(lines[0], root+"\tlead\tactive\t") || !strings.HasPrefix(lines[1], root+"/cursor\tcursor\tactive\t") {
		t.Errorf("haid list: %s", r)
	}
	if _, err := os.Stat(filepath.Join(e.root, "ledger", "haid-registry.json")); err != nil {
		t.Error(err)
	}
	e.want(1, "", "haid", "register", "not-a-haid")
	e.want(2, "", "haid", "bogus")
	e.want(2, "", "haid", "spawn")

	// As heimdall-haid, through a link.
	link := filepath.Join(t.TempDir(), "heimdall-haid")
	if err := os.Symlink(binPath, link); err != nil {
		t.Fatal(err)
	}
	if r := e.runProg(link, "", "whoami"); r.code != 0 || r.stdout != root+"\n" {
		t.Errorf("heimdall-haid whoami: %s", r)
	}
}

// TestHaidGitUser: with a git user.email its local part is the human, and
// the repository root (not the working directory) goes into the hash.
func TestHaidGitUser(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	e, _ := newCoordEnv(t)
	for _, args := range [][]string{{"init", "-q"}, {"config", "user.email", "Bob.Jones@example.com"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = e.wd
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %q: %v\n%s", args, err, out)
		}
	}
	sub := filepath.Join(e.wd, "sub")
	os.Mkdir(sub, 0o755)
	top, _ := filepath.EvalSymlinks(e.wd)
	host, _ := os.Hostname()
	host, _, _ = strings.Cut(host, ".")
	want := coord.Identity{Human: "bob.jones", Machine: host, RepoRoot: top}.HAID()
	cmd := exec.Command(binPath, "haid", "whoami")
	cmd.Dir = sub
	if r := runCmd(t, cmd); r.code != 0 || r.stdout != want+"\n" || !strings.HasPrefix(want, "haid:bob-jones.") {
		t.Errorf("whoami in a git repo: %s\nwant %s", r, want)
	}
}

func TestClaimCLI(t *testing.T) {
	e, root := newCoordEnv(t)
	other := "haid:bob.box-1a2b/copilot"
	e.want(0, "claimed src/a/**,docs/x.md for "+root+" (task T-1, ttl 30m)\n",
		"claim", "claim", "--surfaces", "src/a/**,docs/x.md", "--task", "T-1", "--ttl-minutes", "30")
	file := filepath.Join(e.root, "ledger", "claims", strings.NewReplacer("/", "_", ":", "_").Replace(root)+".json")
	if _, err := os.Stat(file); err != nil {
		t.Fatal(err)
	}
	r := e.want(1, "", "claim", "claim", "--surfaces", "src/**", "--task", "T-2", "--haid", other)
	if !strings.Contains(r.stderr, "src/** overlaps src/a/** claimed by "+root+" (task T-1") {
		t.Errorf("conflict message: %s", r.stderr)
	}
	e.want(0, "claimed src/b/c.go for "+other+" (task T-2, ttl 60m)\n", "claim", "claim", "--surfaces", "src/b/c.go", "--task", "T-2", "--haid", other)

	r = e.run("", "claim", "list", "--json")
	var cls []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &cls); r.code != 0 || err != nil || len(cls) != 2 {
		t.Fatalf("list --json: %v %s", err, r)
	}
	for _, k := range []string{"haid", "human", "claimed_surfaces", "task_ref", "claimed_at", "ttl_minutes", "heartbeat"} {
		if _, ok := cls[0][k]; !ok {
			t.Errorf("list --json: no %s in %v", k, cls[0])
		}
	}
	r = e.run("", "claim", "list")
	if r.code != 0 || !strings.Contains(r.stdout, "TASK_REF") || !strings.Contains(r.stdout, "T-1") || !strings.Contains(r.stdout, other) {
		t.Errorf("list: %s", r)
	}
	if r := e.run("", "claim", "heartbeat"); r.code != 0 || !strings.HasPrefix(r.stdout, "heartbeat "+root+" ") {
		t.Errorf("heartbeat: %s", r)
	}
	e.want(0, "released "+other+"\n", "claim", "release", "--haid", other)
	e.want(0, "released "+root+"\n", "claim", "release")
	e.want(0, "[]\n", "claim", "list", "--json")
	e.want(0, "", "claim", "gc")
	e.want(2, "", "claim", "claim", "--task", "T")
	e.want(1, "", "claim", "claim", "--surfaces", "x", "--task", "T", "--haid", "bob")
	e.want(1, "", "claim", "heartbeat", "--haid", other)
}

// TestClaimRace: processes claiming the same surface at the same instant:
// exactly one wins, the others are refused naming it.
func TestClaimRace(t *testing.T) {
	e, _ := newCoordEnv(t)
	const n = 8
	results := make([]result, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			results[i] = e.run("", "claim", "claim", "--surfaces", fmt.Sprintf("src/**,own/%d", i), "--task", fmt.Sprint("T-", i), "--haid", fmt.Sprintf("haid:agent%d.box-0000", i))
		}()
	}
	close(start)
	wg.Wait()
	winner := -1
	for i, r := range results {
		switch r.code {
		case 0:
			if winner >= 0 {
				t.Errorf("two winners: %d and %d", winner, i)
			}
			winner = i
		case 1:
		default:
			t.Errorf("claimant %d: %s", i, r)
		}
	}
	if winner < 0 {
		t.Fatal("no winner")
	}
	for i, r := range results {
		if i != winner && !strings.Contains(r.stderr, fmt.Sprintf("claimed by haid:agent%d.box-0000", winner)) {
			t.Errorf("claimant %d does not name the winner %d: %s", i, winner, r.stderr)
		}
	}
	r := e.run("", "claim", "list", "--json")
	if r.code != 0 || strings.Count(r.stdout, `"haid"`) != 1 {
		t.Errorf("claims after the race: %s", r.stdout)
	}
}
