package attach

import (
	"errors"
	"fmt"
	"os/exec"
)

// Commander is an Endpoint whose terminal is best handed to a command: a
// session of another host, attached with `ssh -t HOST heimdall attach ID`
// as the user would by hand, so that keys and output take plain ssh's
// path rather than a relay through the host's shared link. Run runs the
// command in the foreground with the terminal as its standard input,
// output and error (the command sets its own raw mode and sends its own
// window size); the Endpoint's relay stays for clients that have no
// terminal to hand (the web page).
type Commander interface {
	Endpoint
	// Command is the command line that attaches a terminal with detach as
	// the detach key; nil relays over the Endpoint instead.
	Command(detach byte) []string
}

// WithCommand is ep whose terminal goes to the command line argv returns
// (see Commander).
func WithCommand(ep Endpoint, argv func(detach byte) []string) Endpoint {
	return commanded{ep, argv}
}

type commanded struct {
	Endpoint
	argv func(detach byte) []string
}

func (c commanded) Command(detach byte) []string { return c.argv(detach) }

// RunCommand runs argv with the terminal and says how it ended by its
// exit status, which is `attach`'s: 0 when the user detached (or the
// session ended with 0: the command's status cannot tell those apart),
// the session's exit code when it ended, 255 when ssh failed (it said why
// on the terminal).
func RunCommand(argv []string, opts Options) (Result, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = opts.In, opts.Out, opts.Out
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return Result{Detached: true}, nil
	case errors.As(err, &exit) && exit.ExitCode() == 255:
		return Result{}, fmt.Errorf("%s failed (exit status 255)", argv[0])
	case errors.As(err, &exit) && exit.ExitCode() > 0:
		return Result{Exited: true, Code: exit.ExitCode()}, nil
	default:
		return Result{}, fmt.Errorf("%s: %w", argv[0], err)
	}
}

// Said is what `attach` prints when it returns res, and its exit status:
// "detached" and 0, or "session exited (code N)" and N.
func (res Result) Said() (line string, code int) {
	if res.Exited {
		return fmt.Sprintf("session exited (code %d)", res.Code), res.Code
	}
	return "detached", 0
}
