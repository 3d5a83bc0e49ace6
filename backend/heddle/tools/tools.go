// Package tools is the heddle worker's tools, run in a working directory:
// read_file, write_file, edit_file, glob, grep and bash. Each takes its
// arguments as the model wrote them (a JSON object) and returns the text
// the model reads; an error is the tool's failure, which the worker gives
// the model as the result ("Error: …") and reports as a tool_error.
// Relative paths are taken from the working directory. Standard library
// only.
package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"
)

// Spec is a tool as the model is told of it.
type Spec struct {
	Name        string
	Description string
	Parameters  json.RawMessage // JSON schema of the arguments
}

// specs are the tools in the order the protocol lists them.
var specs = []Spec{
	{"read_file", "Read a text file. Relative paths are from the working directory.",
		json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"file to read"},"offset":{"type":"integer","description":"first line (1-based)"},"limit":{"type":"integer","description":"number of lines"}},"required":["path"]}`)},
	{"write_file", "Write a file whole (created with its directories if missing).",
		json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}`)},
	{"edit_file", "Replace old_string by new_string in a file; old_string must occur exactly once unless replace_all is true.",
		json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"old_string":{"type":"string"},"new_string":{"type":"string"},"replace_all":{"type":"boolean"}},"required":["path","old_string","new_string"]}`)},
	{"glob", "List files matching a glob pattern (** matches any number of directories), relative to the working directory or path.",
		json.RawMessage(`{"type":"object","properties":{"pattern":{"type":"string"},"path":{"type":"string"}},"required":["pattern"]}`)},
	{"grep", "Search files for a regular expression (RE2); prints file:line:text.",
		json.RawMessage(`{"type":"object","properties":{"pattern":{"type":"string"},"path":{"type":"string","description":"file or directory (default: the working directory)"},"include":{"type":"string","description":"glob the file names must match, e.g. *.go"}},"required":["pattern"]}`)},
	{"bash", "Run a command with bash -c in the working directory; returns its output and exit status.",
		json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"},"timeout":{"type":"integer","description":"seconds (default 120)"}},"required":["command"]}`)},
}

// Names lists every tool's name.
func Names() []string {
	n := make([]string, len(specs))
	for i, s := range specs {
		n[i] = s.Name
	}
	return n
}

// Specs returns the specs of the named tools, in the order given; an
// unknown name is an error.
func Specs(names []string) ([]Spec, error) {
	var out []Spec
	for _, n := range names {
		i := slices.IndexFunc(specs, func(s Spec) bool { return s.Name == n })
		if i < 0 {
			return nil, fmt.Errorf("unknown tool %q (tools: %s)", n, strings.Join(Names(), ", "))
		}
		out = append(out, specs[i])
	}
	return out, nil
}

// Limits on what a tool returns to the model.
const (
	maxRead    = 256 << 10 // bytes of a file read_file returns
	maxOutput  = 64 << 10  // bytes of bash output kept (head and tail)
	maxMatches = 500       // grep lines, glob paths
)

// DefaultBashTimeout is bash's time limit when the call gives none.
const DefaultBashTimeout = 120 * time.Second

// Runner runs tools in Dir.
type Runner struct {
	Dir string
}

// Run runs tool name with args. A cancelled ctx stops it (bash: its
// process group is killed) and Run returns ctx's error.
func (r Runner) Run(ctx context.Context, name string, args json.RawMessage) (string, error) {
	var a struct {
		Path       string  `json:"path"`
		FilePath   string  `json:"file_path"`
		Offset     int     `json:"offset"`
		Limit      int     `json:"limit"`
		Content    *string `json:"content"`
		OldString  *string `json:"old_string"`
		NewString  *string `json:"new_string"`
		ReplaceAll bool    `json:"replace_all"`
		Pattern    string  `json:"pattern"`
		Include    string  `json:"include"`
		Command    string  `json:"command"`
		Timeout    int     `json:"timeout"`
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	if err := json.Unmarshal(args, &a); err != nil {
		return "", fmt.Errorf("%s: arguments are not a JSON object: %v", name, err)
	}
	if a.Path == "" {
		a.Path = a.FilePath
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	switch name {
	case "read_file":
		return r.read(a.Path, a.Offset, a.Limit)
	case "write_file":
		if a.Content == nil {
			return "", errors.New("write_file: content is required")
		}
		return r.write(a.Path, *a.Content)
	case "edit_file":
		if a.OldString == nil || a.NewString == nil {
			return "", errors.New("edit_file: old_string and new_string are required")
		}
		return r.edit(a.Path, *a.OldString, *a.NewString, a.ReplaceAll)
	case "glob":
		return r.glob(ctx, a.Pattern, a.Path)
	case "grep":
		return r.grep(ctx, a.Pattern, a.Path, a.Include)
	case "bash":
		return r.bash(ctx, a.Command, time.Duration(a.Timeout)*time.Second)
	}
	return "", fmt.Errorf("unknown tool %q", name)
}

// abs is p from the working directory.
func (r Runner) abs(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(r.Dir, p)
}

func (r Runner) read(p string, offset, limit int) (string, error) {
	if p == "" {
		return "", errors.New("read_file: path (or file_path) is required")
	}
	b, err := os.ReadFile(r.abs(p))
	if err != nil {
		return "", fmt.Errorf("read_file: %w", err)
	}
	if offset > 0 || limit > 0 {
		lines := strings.SplitAfter(string(b), "\n")
		from := max(offset-1, 0)
		if from > len(lines) {
			from = len(lines)
		}
		to := len(lines)
		if limit > 0 && from+limit < to {
			to = from + limit
		}
		b = []byte(strings.Join(lines[from:to], ""))
	}
	if len(b) > maxRead {
		return string(b[:maxRead]) + fmt.Sprintf("\n[truncated: %d of %d bytes shown]", maxRead, len(b)), nil
	}
	return string(b), nil
}

func (r Runner) write(p, content string) (string, error) {
	if p == "" {
		return "", errors.New("write_file: path (or file_path) is required")
	}
	full := r.abs(p)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return "", fmt.Errorf("write_file: %w", err)
	}
	if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
		return "", fmt.Errorf("write_file: %w", err)
	}
	return fmt.Sprintf("wrote %d bytes to %s", len(content), p), nil
}

func (r Runner) edit(p, old, repl string, all bool) (string, error) {
	if p == "" {
		return "", errors.New("edit_file: path (or file_path) is required")
	}
	if old == "" {
		return "", errors.New("edit_file: old_string is empty")
	}
	full := r.abs(p)
	b, err := os.ReadFile(full)
	if err != nil {
		return "", fmt.Errorf("edit_file: %w", err)
	}
	n := strings.Count(string(b), old)
	switch {
	case n == 0:
		return "", fmt.Errorf("edit_file: old_string not found in %s", p)
	case n > 1 && !all:
		return "", fmt.Errorf("edit_file: old_string occurs %d times in %s (make it unique, or set replace_all)", n, p)
	}
	st, err := os.Stat(full)
	if err != nil {
		return "", fmt.Errorf("edit_file: %w", err)
	}
	if err := os.WriteFile(full, []byte(strings.ReplaceAll(string(b), old, repl)), st.Mode().Perm()); err != nil {
		return "", fmt.Errorf("edit_file: %w", err)
	}
	return fmt.Sprintf("replaced %d occurrence(s) in %s", n, p), nil
}

// skipDir: directories glob and grep do not descend into.
func skipDir(name string) bool { return name == ".git" || name == "node_modules" }

func (r Runner) glob(ctx context.Context, pattern, under string) (string, error) {
	if pattern == "" {
		return "", errors.New("glob: pattern is required")
	}
	if !doublestarValid(pattern) {
		return "", fmt.Errorf("glob: bad pattern %q", pattern)
	}
	root := r.abs(under)
	var out []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable entries are skipped
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if d.IsDir() && p != root && skipDir(d.Name()) {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(root, p)
		if rel != "." && doublestar(pattern, filepath.ToSlash(rel)) {
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	sort.Strings(out)
	if len(out) == 0 {
		return "no files match " + pattern, nil
	}
	return capLines(out), nil
}

// capLines joins lines, at most maxMatches of them.
func capLines(lines []string) string {
	if len(lines) > maxMatches {
		return strings.Join(lines[:maxMatches], "\n") + fmt.Sprintf("\n[%d more not shown]", len(lines)-maxMatches)
	}
	return strings.Join(lines, "\n")
}

// doublestar matches a slash-separated path against pattern, whose "**"
// segments match any number of segments (none too) and whose other
// segments are path.Match patterns.
func doublestar(pattern, name string) bool {
	return matchSegs(strings.Split(pattern, "/"), strings.Split(name, "/"))
}

func matchSegs(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for i := 0; i <= len(name); i++ {
				if matchSegs(pat[1:], name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, _ := filepath.Match(pat[0], name[0]); !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}

func doublestarValid(pattern string) bool {
	for _, s := range strings.Split(pattern, "/") {
		if _, err := filepath.Match(s, ""); err != nil {
			return false
		}
	}
	return true
}

func (r Runner) grep(ctx context.Context, pattern, under, include string) (string, error) {
	if pattern == "" {
		return "", errors.New("grep: pattern is required")
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return "", fmt.Errorf("grep: %w", err)
	}
	root := r.abs(under)
	var out []string
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if d.IsDir() {
			if p != root && skipDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if include != "" {
			if ok, _ := filepath.Match(include, d.Name()); !ok {
				return nil
			}
		}
		b, err := os.ReadFile(p)
		if err != nil || slices.Contains(b[:min(len(b), 8000)], 0) { // unreadable or binary
			return nil
		}
		rel, _ := filepath.Rel(r.Dir, p)
		for i, line := range strings.Split(string(b), "\n") {
			if re.MatchString(line) {
				out = append(out, fmt.Sprintf("%s:%d:%s", filepath.ToSlash(rel), i+1, line))
			}
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	if len(out) == 0 {
		return "no matches for " + pattern, nil
	}
	return capLines(out), nil
}

// bash runs command in its own process group; cancelling ctx, or the
// timeout, kills the whole group (what the command started in the
// background too) and bash returns ctx's error (or says it timed out).
func (r Runner) bash(ctx context.Context, command string, timeout time.Duration) (string, error) {
	if strings.TrimSpace(command) == "" {
		return "", errors.New("bash: command is required")
	}
	if timeout <= 0 {
		timeout = DefaultBashTimeout
	}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(tctx, "bash", "-c", command)
	cmd.Dir = r.Dir
	cmd.Stdin = nil
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	// Output pipes held open by a background job must not hold Wait.
	cmd.WaitDelay = time.Second
	var out capped
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	// Whatever the command left running in its group goes with it.
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	text := out.String()
	var ee *exec.ExitError
	switch {
	case tctx.Err() != nil:
		return "", fmt.Errorf("bash: timed out after %s\n%s", timeout, text)
	case errors.As(err, &ee):
		return fmt.Sprintf("%s\n[exit status %d]", text, ee.ExitCode()), nil
	case err != nil && !errors.Is(err, exec.ErrWaitDelay):
		return "", fmt.Errorf("bash: %w", err)
	}
	if text == "" {
		return "(no output)", nil
	}
	return text, nil
}

// capped keeps the first and last maxOutput/2 bytes written to it.
type capped struct {
	head, tail []byte
	dropped    int
}

func (c *capped) Write(p []byte) (int, error) {
	n := len(p)
	if room := maxOutput/2 - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	c.tail = append(c.tail, p...)
	if over := len(c.tail) - maxOutput/2; over > 0 {
		c.dropped += over
		c.tail = append(c.tail[:0], c.tail[over:]...)
	}
	return n, nil
}

func (c *capped) String() string {
	if c.dropped == 0 {
		return string(c.head) + string(c.tail)
	}
	return fmt.Sprintf("%s\n[%d bytes not shown]\n%s", c.head, c.dropped, c.tail)
}
