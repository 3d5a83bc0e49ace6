package session

import "testing"

func TestDescribeAndLacks(t *testing.T) {
	for k, want := range map[Kind]string{"pty": "a pty session", "aider": "an aider session", "": "an unknown session", KindHeadless: "a headless Claude session"} {
		if got := k.Describe(); got != want {
			t.Errorf("%q.Describe() = %q, want %q", k, got, want)
		}
	}
	for _, c := range []struct {
		have, want Caps
		lacks      string
	}{
		{CapScreen | CapAttach, CapAttach, ""},
		{CapTranscript, CapAttach, "has no terminal"},
		{CapTranscript, CapScreen, "has no terminal"},
		{CapScreen, CapAttach, "cannot be attached to"},
		{CapScreen, CapRestart, "cannot be restarted"},
		{0, CapTranscript, "keeps no transcript"},
		{0, CapInterrupt, "cannot be interrupted"},
	} {
		if got := c.have.Lacks(c.want); got != c.lacks {
			t.Errorf("%b.Lacks(%b) = %q, want %q", c.have, c.want, got, c.lacks)
		}
	}
}
