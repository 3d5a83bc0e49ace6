// Package plancli is the protocol tools that agents call in a loop —
// `resolve` and `ledger log` — as functions of their arguments, with the
// bash tools' outputs and exit codes: 0 ok; 1 not found or invalid; 2
// usage or I/O error, with a message on stderr. Both executables run them
// (heimdall, which starts fast, and heimdall-tui, whose other planning
// commands word their errors with Fail and Err), so they behave alike
// whichever an agent calls.
package plancli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/heimdall-tui/heimdall-tui/backend/planning"
)

// IO is where a tool writes, and the name its messages start with: the
// executable's, or the bash tool's it was invoked as (heimdall-resolve).
type IO struct {
	Prog           string
	Tool           bool // Prog is the bash tool's name: usage lines use it for the command's
	Stdout, Stderr io.Writer
}

func (o IO) errorf(format string, args ...any) {
	fmt.Fprintf(o.Stderr, "%s: %s\n", o.Prog, fmt.Sprintf(format, args...))
}

// Fail prints err and returns code. Where there is no planning tree at
// all it says so, and how to start one: a newcomer's "not found" is most
// often that.
func Fail(o IO, code int, err error) int {
	o.errorf("%v", err)
	if root := planning.DefaultRoot(); !exists(root) {
		o.errorf("no planning tree at %s: `heimdall-tui protocol init` starts one there (HEIMDALL_PLANNING_DIR names another)", root)
	}
	return code
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// Err maps a planning error to its exit code: 1 for not found, invalid and
// conflicts; 2 for everything else (I/O, corrupt or foreign state).
func Err(o IO, err error) int {
	if errors.Is(err, planning.ErrNotFound) || errors.Is(err, planning.ErrInvalid) || errors.Is(err, planning.ErrConflict) {
		return Fail(o, 1, err)
	}
	return Fail(o, 2, err)
}

// command is one tool's usage: its name under the executable, its forms
// (each as the bash tool's usage shows it) and its flags.
type command struct {
	path  string   // "resolve", "ledger log"
	forms []string // "ID", "set ID VALUE": what follows the name
	flags []flagDef
	// interspersed: flags may come after positional arguments (ledger
	// log); without it the first positional argument ends them, so
	// `resolve set K -5` sets "-5".
	interspersed bool
}

type flagDef struct {
	name, arg, usage string
	isInt            bool
}

// usage is the command's usage line as it was invoked.
func (c command) usage(o IO) string {
	name := o.Prog + " " + c.path
	if o.Tool {
		name = o.Prog // heimdall-resolve; heimdall-ledger log
		if _, sub, ok := strings.Cut(c.path, " "); ok {
			name += " " + sub
		}
	}
	forms := make([]string, len(c.forms))
	for i, f := range c.forms {
		forms[i] = strings.TrimSpace(name + " " + f)
	}
	return strings.Join(forms, " | ")
}

// usageErr is a usage error: exit 2, the message and the usage line.
func (c command) usageErr(o IO, format string, args ...any) int {
	fmt.Fprintf(o.Stderr, "%s: %s\nusage: %s\n", o.Prog, fmt.Sprintf(format, args...), c.usage(o))
	return 2
}

// help prints the usage and the flags (--help, -h).
func (c command) help(o IO) int {
	fmt.Fprintf(o.Stdout, "usage: %s\n", c.usage(o))
	if len(c.flags) > 0 {
		fmt.Fprintln(o.Stdout, "\nflags:")
		for _, f := range c.flags {
			fmt.Fprintf(o.Stdout, "  --%-14s %s\n", f.name+" "+f.arg, f.usage)
		}
	}
	return 0
}

// errHelp is parse's answer to --help or -h.
var errHelp = errors.New("help requested")

// parse reads args as the flag parser of heimdall-tui's other commands
// does (spf13/pflag): --name VALUE or --name=VALUE (a VALUE may start with
// '-'), "--" ending the flags, a flag given twice keeping its last value.
// It returns the flags given and the positional arguments.
func (c command) parse(args []string) (map[string]string, []string, error) {
	set := map[string]string{}
	var pos []string
	for len(args) > 0 {
		a := args[0]
		args = args[1:]
		switch {
		case a == "--":
			return set, append(pos, args...), nil
		case a == "--help" || a == "-h":
			return nil, nil, errHelp
		case strings.HasPrefix(a, "--") && len(a) > 2:
			name, value, inline := strings.Cut(a[2:], "=")
			f, ok := c.flag(name)
			if !ok {
				return nil, nil, fmt.Errorf("unknown flag: --%s", name)
			}
			if !inline {
				if len(args) == 0 {
					return nil, nil, fmt.Errorf("flag needs an argument: --%s", name)
				}
				value, args = args[0], args[1:]
			}
			if f.isInt {
				if _, err := strconv.ParseInt(value, 0, 64); err != nil {
					return nil, nil, fmt.Errorf("invalid argument %q for \"--%s\" flag: %v", value, name, err)
				}
			}
			set[name] = value
		case strings.HasPrefix(a, "-") && len(a) > 1:
			return nil, nil, fmt.Errorf("unknown shorthand flag: %q in %s", a[1], a)
		default:
			pos = append(pos, a)
			if !c.interspersed {
				return set, append(pos, args...), nil
			}
		}
	}
	return set, pos, nil
}

func (c command) flag(name string) (flagDef, bool) {
	for _, f := range c.flags {
		if f.name == name {
			return f, true
		}
	}
	return flagDef{}, false
}

var resolveCmd = command{
	path:  "resolve",
	forms: []string{"ID", "set ID VALUE", "--reverse VALUE", "list"},
	flags: []flagDef{{name: "reverse", arg: "VALUE", usage: "print the id(s) whose value is VALUE"}},
}

// Resolve is `resolve ID | resolve set ID VALUE | resolve --reverse VALUE
// | resolve list`: the symbol table of the planning tree at
// planning.DefaultRoot.
func Resolve(o IO, args []string) int {
	c := resolveCmd
	set, args, err := c.parse(args)
	if err == errHelp {
		return c.help(o)
	}
	if err != nil {
		return c.usageErr(o, "%v", err)
	}
	y := planning.Open(planning.DefaultRoot()).Symbols()
	if reverse, ok := set["reverse"]; ok {
		if len(args) != 0 {
			return c.usageErr(o, "--reverse takes only the value")
		}
		ids, err := y.Reverse(reverse)
		if err != nil {
			return Err(o, err)
		}
		for _, id := range ids {
			fmt.Fprintln(o.Stdout, id)
		}
		return 0
	}
	switch {
	case len(args) == 3 && args[0] == "set":
		if err := y.Set(args[1], args[2]); err != nil {
			return Err(o, err)
		}
		return 0
	case len(args) == 1 && args[0] == "list":
		entries, err := y.List()
		if err != nil {
			return Err(o, err)
		}
		for _, e := range entries {
			fmt.Fprintf(o.Stdout, "%s\t%s\n", e.Key, e.Value)
		}
		return 0
	case len(args) == 1 && args[0] != "set":
		v, err := y.Get(args[0])
		if err != nil {
			return Err(o, err)
		}
		fmt.Fprintln(o.Stdout, v)
		return 0
	}
	return c.usageErr(o, "bad arguments %q", args)
}

var ledgerLogCmd = command{
	path:  "ledger log",
	forms: []string{"--role R --kind K (--tokens N | --text S | --file F) [--msg-id M]"},
	flags: []flagDef{
		{name: "role", arg: "R", usage: "role (orchestration, coder, ...)"},
		{name: "kind", arg: "K", usage: "kind of message (delta_brief, task_result, ...)"},
		{name: "tokens", arg: "N", usage: "token count", isInt: true},
		{name: "text", arg: "S", usage: "text whose tokens to count"},
		{name: "file", arg: "F", usage: "file whose tokens to count"},
		{name: "msg-id", arg: "M", usage: "message id"},
	},
	interspersed: true,
}

// Counts reports whether `ledger log` args count tokens (--text or
// --file), which takes a tokenizer: LedgerLog's count.
func Counts(args []string) bool {
	set, _, err := ledgerLogCmd.parse(args)
	if err != nil {
		return false
	}
	_, text := set["text"]
	_, file := set["file"]
	return text || file
}

// LedgerLog is `ledger log --role R --kind K (--tokens N | --text S |
// --file F) [--msg-id M]`: one line appended to the ledger. count counts
// the tokens of --text and --file (nil: those are an error).
func LedgerLog(o IO, args []string, count func(string) (int, error)) int {
	c := ledgerLogCmd
	set, pos, err := c.parse(args)
	if err == errHelp {
		return c.help(o)
	}
	if err != nil {
		return c.usageErr(o, "%v", err)
	}
	if len(pos) != 0 {
		return c.usageErr(o, "wrong number of arguments (%d)", len(pos))
	}
	e := planning.LedgerEntry{Role: set["role"], Kind: set["kind"], MsgID: set["msg-id"]}
	if e.Role == "" || e.Kind == "" {
		return c.usageErr(o, "--role and --kind are required")
	}
	n := 0
	for _, name := range []string{"tokens", "text", "file"} {
		if _, ok := set[name]; ok {
			n++
		}
	}
	if n != 1 {
		return c.usageErr(o, "give exactly one of --tokens, --text, --file")
	}
	if v, ok := set["tokens"]; ok {
		e.Tokens, _ = strconv.ParseInt(v, 0, 64) // checked by parse
	} else {
		text, ok := set["text"]
		if file, isFile := set["file"]; isFile {
			b, err := os.ReadFile(file)
			if err != nil {
				return Fail(o, 2, err)
			}
			text, ok = string(b), true
		}
		if count == nil || !ok {
			return Fail(o, 2, errors.New("counting tokens takes heimdall-tui (this executable has no tokenizer)"))
		}
		k, err := count(text)
		if err != nil {
			return Fail(o, 2, err)
		}
		e.Tokens = int64(k)
	}
	if err := planning.Open(planning.DefaultRoot()).Ledger().Log(e); err != nil {
		return Err(o, err)
	}
	return 0
}
