package notify

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSequenceBytes(t *testing.T) {
	ev := Event{ID: "claude-1", Agent: "claude", Title: "✳ Fix the bug", Dir: "/src/app"}
	tests := []struct {
		format string
		tmux   bool
		want   string
	}{
		{FormatOSC9, false, "\x1b]9;heimdall: claude-1 needs input: ✳ Fix the bug\a"},
		{FormatOSC777, false, "\x1b]777;notify;heimdall;claude-1 needs input: ✳ Fix the bug\a"},
		{FormatOSC9, true, "\x1bPtmux;\x1b\x1b]9;heimdall: claude-1 needs input: ✳ Fix the bug\a\x1b\\"},
		{FormatOSC777, true, "\x1bPtmux;\x1b\x1b]777;notify;heimdall;claude-1 needs input: ✳ Fix the bug\a\x1b\\"},
	}
	for _, tt := range tests {
		got, err := Sequence(tt.format, ev, tt.tmux)
		if err != nil {
			t.Fatalf("Sequence(%s, tmux=%v): %v", tt.format, tt.tmux, err)
		}
		if got != tt.want {
			t.Errorf("Sequence(%s, tmux=%v) =\n%q\nwant\n%q", tt.format, tt.tmux, got, tt.want)
		}
	}
	for _, f := range []string{"", FormatOff, "osc98", "OSC9"} {
		if _, err := Sequence(f, ev, false); err == nil {
			t.Errorf("Sequence(%q): no error", f)
		}
	}
}

func TestSequenceWithoutTitleAndOtherReason(t *testing.T) {
	got, _ := Sequence(FormatOSC9, Event{ID: "build", Reason: "exited"}, false)
	if want := "\x1b]9;heimdall: build exited\a"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestOSC9And777Exact(t *testing.T) {
	tests := []struct{ name, got, want string }{
		{"osc9 plain", OSC9("hello"), "\x1b]9;hello\a"},
		{"osc9 empty", OSC9(""), "\x1b]9;\a"},
		// ConEmu and Windows Terminal read 9;4;… as a progress bar.
		{"osc9 leading digit", OSC9("4;3;50"), "\x1b]9; 4;3;50\a"},
		{"osc9 keeps ;", OSC9("a;b"), "\x1b]9;a;b\a"},
		{"osc777 plain", OSC777("T", "body"), "\x1b]777;notify;T;body\a"},
		{"osc777 ; in title", OSC777("a;b;c", "x;y"), "\x1b]777;notify;a,b,c;x;y\a"},
		{"osc777 empty", OSC777("", ""), "\x1b]777;notify;;\a"},
		{"osc99 title and body", OSC99("T", "b;o\x1b\\dy"), "\x1b]99;i=heimdall:d=0;T\a\x1b]99;i=heimdall:d=1:p=body;b;o \\dy\a"},
		{"tmux doubles every ESC", TmuxPassthrough("\x1b]9;a\x1b\\"), "\x1bPtmux;\x1b\x1b]9;a\x1b\x1b\\\x1b\\"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}

func TestCleanStripsControls(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"esc sequence", "a\x1b]0;evil\a b", "a ]0;evil b"},
		{"st", "x\x1b\\y", "x \\y"},
		{"newlines and tabs", "one\r\ntwo\tthree", "one two three"},
		{"nul and del", "a\x00b\x7fc", "a b c"},
		{"c1 as utf-8", "a\u009b31mb\u009dc\u009cd", "a 31mb c d"},
		{"c1 as raw bytes", "a\x9bb\x9cc", "a\ufffdb\ufffdc"},
		{"runs of space trimmed", "  \x1b a   b \a ", "a b"},
		{"only controls", "\x1b\a\r\n", ""},
		{"unicode kept", "✳ Ünïcödé — 日本", "✳ Ünïcödé — 日本"},
	}
	for _, tt := range tests {
		if got := clean(tt.in, 0, false); got != tt.want {
			t.Errorf("%s: clean(%q) = %q, want %q", tt.name, tt.in, got, tt.want)
		}
	}
	if got := clean("a;b", 0, true); got != "a,b" {
		t.Errorf("clean noSemi = %q", got)
	}
}

// No input can put a control character, C1 or not, into a sequence's text:
// the only ones in the result are the sequence's own.
func TestSequenceCannotBeInjected(t *testing.T) {
	evil := "\x1b]777;notify;x;y\a\x1bP\x1b\\\u009d8;;http://x\u009c\x9c\x07\x00\r\n"
	ev := Event{ID: evil, Title: evil, Reason: evil}
	for _, f := range Formats {
		for _, tmux := range []bool{false, true} {
			s, err := Sequence(f, ev, tmux)
			if err != nil {
				t.Fatal(err)
			}
			inner := s
			if tmux {
				inner = strings.TrimSuffix(strings.TrimPrefix(s, "\x1bPtmux;"), "\x1b\\")
				inner = strings.ReplaceAll(inner, "\x1b\x1b", "\x1b")
			}
			seqs := strings.SplitAfter(inner, "\a") // OSC 99 is two sequences
			if seqs[len(seqs)-1] == "" {
				seqs = seqs[:len(seqs)-1]
			}
			body := ""
			for _, seq := range seqs {
				if strings.Count(seq, "\x1b") != 1 || !strings.HasPrefix(seq, "\x1b]") || !strings.HasSuffix(seq, "\a") {
					t.Errorf("%s tmux=%v: ESC or BEL inside the text: %q", f, tmux, s)
				}
				body += strings.TrimSuffix(strings.TrimPrefix(seq, "\x1b]"), "\a")
			}
			if !utf8.ValidString(body) {
				t.Errorf("%s tmux=%v: invalid UTF-8 in %q", f, tmux, s)
			}
			for _, r := range body {
				if r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f {
					t.Errorf("%s tmux=%v: control %U in %q", f, tmux, r, s)
				}
			}
			if f == FormatOSC777 && strings.Count(body, ";") < 3 {
				t.Errorf("osc777 fields: %q", body)
			}
			if f == FormatOSC777 {
				title := strings.Split(body, ";")[2]
				if title != appName {
					t.Errorf("osc777 title field = %q", title)
				}
			}
		}
	}
	// The title field itself: a ';' can never start the body early.
	if got := OSC777(evil, "b"); strings.Count(got, ";") != 3 {
		t.Errorf("OSC777 with ';' in the title: %q", got)
	}
}

func TestCleanBounds(t *testing.T) {
	long := strings.Repeat("é", 300) // 600 bytes
	got := clean(long, maxBody, false)
	if len(got) > maxBody || !strings.HasSuffix(got, "…") || !utf8.ValidString(got) {
		t.Errorf("clean(600 bytes, %d) = %d bytes %q", maxBody, len(got), got)
	}
	if want := strings.Repeat("é", (maxBody-len("…"))/2) + "…"; got != want {
		t.Errorf("cut at %d bytes, want %d", len(got), len(want))
	}
	// Exactly at the bound: not cut.
	exact := strings.Repeat("a", maxBody)
	if got := clean(exact, maxBody, false); got != exact {
		t.Errorf("a text of exactly the bound was cut to %q", got)
	}
	// A space before the cut does not stay before the ellipsis.
	if got := clean("abcd efgh", 8, false); got != "abcd…" {
		t.Errorf("clean(\"abcd efgh\", 8) = %q, want \"abcd…\"", got)
	}
	title := strings.Repeat("t", 200)
	body := strings.Repeat("b", 1000)
	seq := OSC777(title, body)
	if want := len("\x1b]777;notify;") + maxTitle + 1 + maxBody + 1; len(seq) != want {
		t.Errorf("OSC777 of long texts is %d bytes, want %d", len(seq), want)
	}
	if n := len(OSC9(body)); n != len("\x1b]9;")+maxBody+1 {
		t.Errorf("OSC9 of a long text is %d bytes", n)
	}
	// Controls dropped before the bound is applied; the bound counts bytes.
	s, _ := Sequence(FormatOSC9, Event{ID: strings.Repeat("日", 200)}, false)
	if len(s) > len("\x1b]9;\a")+maxBody {
		t.Errorf("Sequence of a long ID is %d bytes", len(s))
	}
}

func TestEventNameAndMessage(t *testing.T) {
	tests := []struct {
		ev        Event
		name, msg string
	}{
		{Event{ID: "a"}, "needs_input", "a needs input"},
		{Event{ID: "a", Reason: ReasonNeedsInput, Title: "T"}, "needs_input", "a needs input: T"},
		{Event{ID: "b", Reason: "Exited (code 1)"}, "exited_code_1", "b Exited (code 1)"},
		{Event{ID: "c", Reason: "  --weird--  "}, "weird", "c   --weird--  "},
	}
	for _, tt := range tests {
		if got := tt.ev.Name(); got != tt.name {
			t.Errorf("%+v.Name() = %q, want %q", tt.ev, got, tt.name)
		}
		if got := tt.ev.Message(); got != tt.msg {
			t.Errorf("%+v.Message() = %q, want %q", tt.ev, got, tt.msg)
		}
	}
}

func TestValidFormat(t *testing.T) {
	for _, s := range []string{"", "off", "osc9", "osc777"} {
		if !ValidFormat(s) {
			t.Errorf("ValidFormat(%q) = false", s)
		}
	}
	for _, s := range []string{"on", "OSC9", "osc 9", "bell"} {
		if ValidFormat(s) {
			t.Errorf("ValidFormat(%q) = true", s)
		}
	}
}
