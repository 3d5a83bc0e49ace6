package cellwidth

import "testing"

func TestSanitize(t *testing.T) {
	for in, want := range map[string]string{
		"plain-name_1":         "plain-name_1",
		"évité 中文":             "évité 中文",
		"evil\x1b]2;pwned\x07": "evil?]2;pwned?",
		"a\tb\r\nc\x7f\u0085d": "a?b??c??d",
	} {
		if got := Sanitize(in); got != want {
			t.Errorf("Sanitize(%q) = %q, want %q", in, got, want)
		}
	}
}
