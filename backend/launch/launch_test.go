package launch

import (
	"slices"
	"testing"
)

// A restart's command line: again as it was; resumed in the agent's
// conversation (claude's --resume ID at the end, replacing an earlier
// one; codex's `resume ID` subcommand after the program); fresh without
// what a resume added.
func TestRestartArgv(t *testing.T) {
	for _, c := range []struct {
		argv        []string
		how, convo  string
		want        []string
		wantRefused bool
	}{
		{[]string{"claude", "--model", "opus"}, Again, "c1", []string{"claude", "--model", "opus"}, false},
		{[]string{"claude", "--model", "opus"}, Resume, "c1", []string{"claude", "--model", "opus", "--resume", "c1"}, false},
		{[]string{"claude", "--resume", "old", "-p"}, Resume, "c2", []string{"claude", "-p", "--resume", "c2"}, false},
		{[]string{"claude", "--resume", "old"}, Fresh, "c2", []string{"claude"}, false},
		{[]string{"claude"}, Resume, "", nil, true},
		{[]string{"/usr/bin/codex", "--yolo", "-m", "gpt-5"}, Resume, "019e", []string{"/usr/bin/codex", "resume", "019e", "--yolo", "-m", "gpt-5"}, false},
		{[]string{"codex", "resume", "old", "--yolo"}, Resume, "new", []string{"codex", "resume", "new", "--yolo"}, false},
		{[]string{"codex", "resume", "old", "--yolo"}, Fresh, "new", []string{"codex", "--yolo"}, false},
		{[]string{"codex", "resume", "--last"}, Fresh, "", []string{"codex", "resume", "--last"}, false},
		{[]string{"claude"}, "sideways", "c", nil, true},
	} {
		got, err := RestartArgv(c.argv, c.how, c.convo)
		if (err != nil) != c.wantRefused || !slices.Equal(got, c.want) {
			t.Errorf("RestartArgv(%q, %s, %q) = %q, %v; want %q", c.argv, c.how, c.convo, got, err, c.want)
		}
	}
}
