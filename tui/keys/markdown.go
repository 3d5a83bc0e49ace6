package keys

import (
	"fmt"
	"strings"
)

// Markdown is the key reference: one table per context (key, action name
// for the config, what it does), then the detach key and the mouse. It is
// what docs/KEYS.md and the README's key section contain; a test in this
// package fails when they are stale, and `go test ./tui/keys -update`
// rewrites them.
func (km KeyMap) Markdown() string {
	var sb strings.Builder
	sb.WriteString("<!-- Generated from tui/keys (KeyMap.Markdown) by `go test ./tui/keys -update`; edit the key map, not this text. -->\n")
	for _, c := range Contexts() {
		bs := km.ctx[c]
		if len(bs) == 0 {
			continue
		}
		fmt.Fprintf(&sb, "\n### %s\n\n%s", c, ctxAbout[c])
		if ch := c.Chain(); len(ch) > 1 {
			names := make([]string, len(ch)-1)
			for i, x := range ch[1:] {
				names[i] = x.String()
			}
			fmt.Fprintf(&sb, " Keys not listed here fall through to %s.", strings.Join(names, ", then "))
		}
		sb.WriteString("\n\n| Key | Action | Does |\n|---|---|---|\n")
		for _, b := range bs {
			if !b.Enabled() {
				continue
			}
			ks := make([]string, len(b.Keys()))
			for i, k := range b.Keys() {
				ks[i] = code(k)
			}
			fmt.Fprintf(&sb, "| %s | `%s` | %s |\n", strings.Join(ks, " "), b.Action, b.Desc())
		}
	}
	sb.WriteString("\n### Attached\n\n")
	fmt.Fprintf(&sb, "While attached to a session every key goes to it except %s, which returns to the dashboard (the session keeps running). The detach key is configurable; ctrl+b, ctrl+c, ctrl+d, ctrl+z, escape, tab, enter and backspace are refused.\n", code(DetachName(km.Detach)))
	sb.WriteString("\n### Mouse\n\nA click focuses the session under the pointer (a list row or a grid pane); the wheel moves the selection.\n")
	return sb.String()
}

// code formats a key as inline code safe inside a Markdown table cell.
func code(k string) string {
	k = strings.ReplaceAll(k, "|", `\|`)
	if strings.Contains(k, "`") {
		return "`` " + k + " ``"
	}
	return "`" + k + "`"
}

// Doc is the whole of docs/KEYS.md: a short introduction and Markdown.
func (km KeyMap) Doc() string {
	return "# Keys\n\n" +
		"Every key of the dashboard, by context. The dashboard never needs ctrl+b, so it\n" +
		"works inside tmux with the default prefix. Keys are rebound by action name (the\n" +
		"Action column); a key bound twice along one lookup chain is refused, and so is\n" +
		"ctrl+b. Dialog keys are fixed. The `:` command line's commands are in\n" +
		"[COMMANDS.md](COMMANDS.md).\n\n" +
		km.Markdown()
}
