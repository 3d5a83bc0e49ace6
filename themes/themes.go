// Package themes turns a semantic palette into the dashboard's styles.
//
// A Palette names roles (primary, muted text, focused border, each session
// state), not hues; Build is a pure function from a Palette to Styles. There
// is no global theme: the app holds one *Styles and passes it to renderers,
// so switching themes is swapping a pointer. NO_COLOR is honoured by
// building with Monochrome, which keeps emphasis (bold, reverse, underline)
// and drops every colour.
//
// The package imports lipgloss but not Bubble Tea.
package themes

import (
	"fmt"
	"image/color"
	"sort"
	"strings"

	"charm.land/lipgloss/v2"
)

// Palette is a theme's colours by role. Every field must be set; ANSI holds
// the 16 colours a session's screen uses for SGR 30–37/90–97 when the theme
// wants to remap them (nil entries mean "leave the terminal's own").
type Palette struct {
	Name string
	Dark bool // the palette is meant for a dark background

	Fg, FgMuted, FgSubtle color.Color // text: normal, secondary, faint
	Bg, BgPanel, BgSelect color.Color // background, dialogs/header, selected row

	Primary, Accent         color.Color // titles, keys in help; highlights
	Border, BorderFocus     color.Color // pane borders
	Success, Warning, Error color.Color // status line tones
	Info                    color.Color

	// Session states, as badges and pane titles.
	StateIdle, StateThinking, StateStreaming, StateToolUse, StateActive, StateDead color.Color
	NeedsInput                                                                     color.Color

	ANSI [16]color.Color
}

// Dark is the default theme.
func Dark() Palette {
	c := lipgloss.Color
	return Palette{
		Name: "dark", Dark: true,
		Fg: c("#D8DEE9"), FgMuted: c("#8E99AB"), FgSubtle: c("#5C6677"),
		Bg: c("#1B1F27"), BgPanel: c("#252B36"), BgSelect: c("#33405A"),
		Primary: c("#7AA2F7"), Accent: c("#BB9AF7"),
		Border: c("#3B4455"), BorderFocus: c("#7AA2F7"),
		Success: c("#9ECE6A"), Warning: c("#E0AF68"), Error: c("#F7768E"), Info: c("#7DCFFF"),
		StateIdle: c("#8E99AB"), StateThinking: c("#BB9AF7"), StateStreaming: c("#7DCFFF"),
		StateToolUse: c("#E0AF68"), StateActive: c("#9ECE6A"), StateDead: c("#F7768E"),
		NeedsInput: c("#FF9E64"),
	}
}

// Light is for light terminal backgrounds.
func Light() Palette {
	c := lipgloss.Color
	return Palette{
		Name: "light", Dark: false,
		Fg: c("#24292F"), FgMuted: c("#57606A"), FgSubtle: c("#8C959F"),
		Bg: c("#FFFFFF"), BgPanel: c("#F0F3F6"), BgSelect: c("#D6E4FF"),
		Primary: c("#0550AE"), Accent: c("#8250DF"),
		Border: c("#C8D1DA"), BorderFocus: c("#0550AE"),
		Success: c("#1A7F37"), Warning: c("#9A6700"), Error: c("#CF222E"), Info: c("#0969DA"),
		StateIdle: c("#57606A"), StateThinking: c("#8250DF"), StateStreaming: c("#0969DA"),
		StateToolUse: c("#9A6700"), StateActive: c("#1A7F37"), StateDead: c("#CF222E"),
		NeedsInput: c("#BC4C00"),
	}
}

// HighContrast uses the terminal's own bright ANSI colours on black, for
// low-vision users and washed-out displays.
func HighContrast() Palette {
	a := func(n int) color.Color { return lipgloss.ANSIColor(n) }
	return Palette{
		Name: "high-contrast", Dark: true,
		Fg: a(15), FgMuted: a(7), FgSubtle: a(7),
		Bg: a(0), BgPanel: a(0), BgSelect: a(4),
		Primary: a(14), Accent: a(13),
		Border: a(7), BorderFocus: a(11),
		Success: a(10), Warning: a(11), Error: a(9), Info: a(14),
		StateIdle: a(15), StateThinking: a(13), StateStreaming: a(14),
		StateToolUse: a(11), StateActive: a(10), StateDead: a(9),
		NeedsInput: a(11),
	}
}

var builtins = map[string]func() Palette{"dark": Dark, "light": Light, "high-contrast": HighContrast}

// Names lists the built-in themes, sorted.
func Names() []string {
	names := make([]string, 0, len(builtins))
	for n := range builtins {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ByName returns a built-in palette ("" = dark).
func ByName(name string) (Palette, error) {
	if name == "" {
		name = "dark"
	}
	f, ok := builtins[strings.ToLower(name)]
	if !ok {
		return Palette{}, fmt.Errorf("unknown theme %q (have %s)", name, strings.Join(Names(), ", "))
	}
	return f(), nil
}

// Styles are the dashboard's styles. Renderers that need a style not listed
// here derive it from P rather than hard-coding a colour.
type Styles struct {
	P          Palette
	Monochrome bool // built for NO_COLOR: no colours, emphasis only

	Base   lipgloss.Style // normal text
	Muted  lipgloss.Style // secondary text
	Subtle lipgloss.Style // faint text (separators, hints)
	Title  lipgloss.Style // view and dialog titles
	Key    lipgloss.Style // a key in help/footer
	Desc   lipgloss.Style // a key's description

	Header lipgloss.Style // top bar
	Footer lipgloss.Style // bottom bar

	Row         lipgloss.Style // a session row
	RowSelected lipgloss.Style // the selected row
	RowAttn     lipgloss.Style // a row whose session needs input

	Pane       lipgloss.Style // pane border, unfocused
	PaneFocus  lipgloss.Style // pane border, focused
	PaneTitle  lipgloss.Style
	Dialog     lipgloss.Style // dialog box (border + padding)
	Button     lipgloss.Style
	ButtonSel  lipgloss.Style
	Input      lipgloss.Style // text field
	InputFocus lipgloss.Style

	Success, Warning, Error, Info lipgloss.Style // status line tones
}

// Build derives Styles from p. With monochrome (NO_COLOR) no colour is set
// anywhere and focus/selection are shown with bold and reverse video.
func Build(p Palette, monochrome bool) *Styles {
	fg := func(c color.Color) lipgloss.Style {
		if monochrome {
			return lipgloss.NewStyle()
		}
		return lipgloss.NewStyle().Foreground(c)
	}
	bg := func(s lipgloss.Style, c color.Color) lipgloss.Style {
		if monochrome {
			return s
		}
		return s.Background(c)
	}
	border := func(c color.Color) lipgloss.Style {
		s := lipgloss.NewStyle().Border(lipgloss.RoundedBorder())
		if !monochrome {
			s = s.BorderForeground(c)
		}
		return s
	}
	s := &Styles{P: p, Monochrome: monochrome}
	s.Base = fg(p.Fg)
	s.Muted = fg(p.FgMuted)
	s.Subtle = fg(p.FgSubtle)
	s.Title = fg(p.Primary).Bold(true)
	s.Key = fg(p.Primary).Bold(true)
	s.Desc = fg(p.FgMuted)
	s.Header = bg(fg(p.Fg), p.BgPanel)
	s.Footer = fg(p.FgMuted)
	s.Row = fg(p.Fg)
	s.RowSelected = bg(fg(p.Fg).Bold(true), p.BgSelect)
	s.RowAttn = fg(p.NeedsInput).Bold(true)
	if monochrome {
		s.RowSelected = lipgloss.NewStyle().Reverse(true)
	}
	s.Pane = border(p.Border)
	s.PaneFocus = border(p.BorderFocus)
	if monochrome {
		s.PaneFocus = lipgloss.NewStyle().Border(lipgloss.ThickBorder())
	}
	s.PaneTitle = fg(p.Fg).Bold(true)
	s.Dialog = border(p.BorderFocus).Padding(0, 1)
	s.Button = fg(p.FgMuted).Padding(0, 1)
	s.ButtonSel = bg(fg(p.Bg).Bold(true), p.Primary).Padding(0, 1)
	if monochrome {
		s.ButtonSel = lipgloss.NewStyle().Reverse(true).Bold(true).Padding(0, 1)
	}
	s.Input = fg(p.Fg)
	s.InputFocus = fg(p.Fg).Underline(true)
	s.Success = fg(p.Success)
	s.Warning = fg(p.Warning)
	s.Error = fg(p.Error).Bold(true)
	s.Info = fg(p.Info)
	return s
}

// State is the badge style of a session state ("Idle", "Thinking",
// "Streaming", "ToolUse", "Active", "Dead", and the badges Done, Error,
// Lost, Limited); needsInput overrides the state's
// colour. Unknown names get the muted style.
func (s *Styles) State(name string, needsInput bool) lipgloss.Style {
	if s.Monochrome {
		st := lipgloss.NewStyle()
		switch {
		case needsInput:
			return st.Bold(true).Reverse(true)
		case name == "Dead":
			return st.Faint(true)
		case name == "Idle":
			return st
		case name == "Error", name == "Lost", name == "Limited":
			return st.Bold(true).Underline(true)
		}
		return st.Bold(true)
	}
	c := s.P.FgMuted
	switch {
	case needsInput:
		c = s.P.NeedsInput
	case name == "Idle":
		c = s.P.StateIdle
	case name == "Thinking":
		c = s.P.StateThinking
	case name == "Streaming":
		c = s.P.StateStreaming
	case name == "ToolUse":
		c = s.P.StateToolUse
	case name == "Active":
		c = s.P.StateActive
	case name == "Dead":
		c = s.P.StateDead
	case name == "Done": // a turn finished, not yet seen
		c = s.P.Success
	case name == "Error": // the last turn failed
		c = s.P.Error
	case name == "Lost", name == "Limited": // its supervisor died; a usage limit stopped it
		c = s.P.Warning
	}
	return lipgloss.NewStyle().Foreground(c).Bold(needsInput || name != "Idle")
}
