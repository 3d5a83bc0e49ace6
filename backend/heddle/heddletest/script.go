package heddletest

import (
	"bufio"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/heimdall-tui/heimdall-tui/backend/heddle"
)

// Step is one line of a recorded transcript: a request the client wrote
// (In) or a line the worker wrote; Raw: a line that is not JSON.
type Step struct {
	In   bool
	Line string
	Raw  bool
}

//go:embed transcripts
var transcripts embed.FS

// Transcript reads transcripts/<name>: "> " lines are what the client
// wrote, "< " lines what the worker wrote, ">! " and "<! " lines that are
// not JSON; "#" comments and blank lines are skipped.
func Transcript(name string) ([]Step, error) {
	b, err := transcripts.ReadFile("transcripts/" + name)
	if err != nil {
		return nil, err
	}
	var steps []Step
	for i, l := range strings.Split(string(b), "\n") {
		switch {
		case strings.TrimSpace(l) == "", strings.HasPrefix(l, "#"):
		case strings.HasPrefix(l, ">! "):
			steps = append(steps, Step{In: true, Line: l[3:], Raw: true})
		case strings.HasPrefix(l, "> "):
			steps = append(steps, Step{In: true, Line: l[2:]})
		case strings.HasPrefix(l, "<! "):
			steps = append(steps, Step{Line: l[3:], Raw: true})
		case strings.HasPrefix(l, "< "):
			steps = append(steps, Step{Line: l[2:]})
		default:
			return nil, fmt.Errorf("%s:%d: not a transcript line: %q", name, i+1, l)
		}
	}
	return steps, nil
}

// Environment variables that make a test binary a worker (RunIfWorker).
const (
	EnvScript = "HEDDLETEST_SCRIPT" // replay this transcript
	EnvWorker = "HEDDLETEST_WORKER" // "1": be heddle-headless (configured by HEDDLE_* as it is)
	EnvGarble = "HEDDLETEST_GARBLE" // "1": answer init, then write garbage and exit 3
)

// RunIfWorker makes the test binary a worker when the environment says
// so (call it first in TestMain; it does not return then): a recorded
// transcript's worker side, heddle-headless itself, or a worker that
// breaks. So a client test needs no other program.
func RunIfWorker() {
	switch {
	case os.Getenv(EnvScript) != "":
		steps, err := Transcript(os.Getenv(EnvScript))
		if err == nil {
			err = Replay(os.Stdin, os.Stdout, steps)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "script:", err)
			os.Exit(3)
		}
		os.Exit(0)
	case os.Getenv(EnvWorker) == "1":
		dir, _ := os.Getwd()
		cfg, err := heddle.ConfigFromEnv(os.Getenv, dir)
		if err == nil {
			err = heddle.New(cfg).Serve(os.Stdin, os.Stdout)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "worker:", err)
			os.Exit(1)
		}
		os.Exit(0)
	case os.Getenv(EnvGarble) == "1":
		r := bufio.NewReader(os.Stdin)
		line, _ := r.ReadString('\n')
		var q struct {
			ID string `json:"id"`
		}
		json.Unmarshal([]byte(line), &q)
		fmt.Printf(`{"type":"init_ok","id":%q,"session_id":"s-1","protocol_version":"0.2.0"}`+"\n", q.ID)
		r.ReadString('\n') // the first send
		fmt.Println("Traceback (most recent call last): the worker fell over")
		fmt.Fprintln(os.Stderr, "fatal: out of cheese")
		os.Exit(3)
	}
}

// Replay is a transcript's worker: for each client line it reads a
// request, which must be of the recorded type (and, for a cancel, target
// the recorded send), then writes the worker lines that follow it. At the
// end of the transcript it reads until EOF.
func Replay(in io.Reader, out io.Writer, steps []Step) error {
	r := bufio.NewReader(in)
	for _, s := range steps {
		if !s.In {
			if _, err := io.WriteString(out, s.Line+"\n"); err != nil {
				return err
			}
			continue
		}
		line, err := r.ReadString('\n')
		if err != nil {
			return fmt.Errorf("want %s, read: %w", s.Line, err)
		}
		var got, want struct {
			Type     string `json:"type"`
			TargetID string `json:"target_id"`
		}
		json.Unmarshal([]byte(line), &got)
		json.Unmarshal([]byte(s.Line), &want)
		if got != want {
			return fmt.Errorf("want a request like %s, got %s", s.Line, line)
		}
	}
	io.Copy(io.Discard, r)
	return nil
}
