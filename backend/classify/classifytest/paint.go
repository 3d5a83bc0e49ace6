package classifytest

import (
	"regexp"
	"strings"
)

// palette colours rows the way Claude Code's dark theme does: an orange
// spinner glyph and a shimmering verb (a lighter window moving along the
// word, so SGR changes mid-word), dim grey hints and footers, grey borders,
// a blue-violet selected option, green tool bullets, diff rows on a coloured
// background. Only the colours differ between palettes; the text never does.
type palette struct {
	claude, shimmer, grey, border, accent, success, accept string
	addBG, delBG                                           string
	dim                                                    string // footers and hints
	selected                                               string // the selected option
}

const reset = "\x1b[0m"

var palettes = map[Style]*palette{
	Plain: nil,
	TrueColour: {
		claude:   "\x1b[38;2;215;119;87m",
		shimmer:  "\x1b[38;2;235;159;127m",
		grey:     "\x1b[38;2;153;153;153m",
		border:   "\x1b[38;2;136;136;136m",
		accent:   "\x1b[38;2;177;185;249m",
		success:  "\x1b[38;2;78;186;101m",
		accept:   "\x1b[38;2;175;135;255m",
		addBG:    "\x1b[48;2;34;92;43m",
		delBG:    "\x1b[48;2;122;41;54m",
		dim:      "\x1b[2m\x1b[38;2;153;153;153m",
		selected: "\x1b[1m\x1b[38;2;177;185;249m",
	},
	Colour256: {
		claude:   "\x1b[38;5;174m",
		shimmer:  "\x1b[38;5;216m",
		grey:     "\x1b[38;5;246m",
		border:   "\x1b[38;5;244m",
		accent:   "\x1b[38;5;147m",
		success:  "\x1b[38;5;71m",
		accept:   "\x1b[38;5;141m",
		addBG:    "\x1b[48;5;22m",
		delBG:    "\x1b[48;5;52m",
		dim:      "\x1b[2;90m",
		selected: "\x1b[7m",
	},
}

var (
	paintBorder  = regexp.MustCompile(`^[ ─━═╌╭╮╰╯│┃├┤]+$`)
	paintSpinner = regexp.MustCompile(`^( *)([✻✽✶✳✢·*●])( +)([^(…]*…)(.*)$`)
	paintBullet  = regexp.MustCompile(`^( *)([⏺●])( +)([\w -]*\()?(.*)$`)
	paintResult  = regexp.MustCompile(`^( *)(⎿)(.*)$`)
	paintPrompt  = regexp.MustCompile(`^( *)([❯>])( .*)?$`)
	paintHint    = regexp.MustCompile(`(?i)esc to|enter to|for shortcuts|shift\+tab|ctrl\+|tab to|to navigate|\(esc\)|press enter`)
	paintDiff    = regexp.MustCompile(`^ *\d+ *([-+]) `)
	paintAccept  = regexp.MustCompile(`^( *)(⏵⏵ [^(]*|⏸ plan mode on)(.*)$`)
)

// row colours one laid-out row of a cols-wide screen.
func (p *palette) row(r string, cols int, seed uint32) string {
	if strings.TrimSpace(r) == "" {
		return r
	}
	if paintBorder.MatchString(r) {
		return p.border + r + reset
	}
	m := boxRow.FindStringSubmatch(r)
	if m == nil || (m[1] == "" && m[3] == "") || strings.TrimSpace(m[1]) == "" && m[3] == "" {
		return p.content(r, cols, width(r), seed)
	}
	prefix, middle, suffix := m[1], m[2], m[3]
	out := ""
	if strings.TrimSpace(prefix) != "" {
		out = p.border + prefix + reset
	} else {
		out = prefix
	}
	// Inside a box, a diff row's background stops at the box.
	out += p.content(middle, width(prefix)+width(middle), width(prefix)+width(middle), seed)
	if suffix != "" {
		out += p.border + suffix + reset
	}
	return out
}

// content colours text that starts at the left edge of its area; end is the
// column where the area ends, at the column where the text ends.
func (p *palette) content(r string, end, at int, seed uint32) string {
	if m := paintSpinner.FindStringSubmatch(r); m != nil {
		return m[1] + p.claude + "\x1b[1m" + m[2] + "\x1b[22m" + m[3] + p.shimmerText(m[4], seed) + reset + p.grey + m[5] + reset
	}
	if m := paintBullet.FindStringSubmatch(r); m != nil {
		return m[1] + p.success + m[2] + reset + m[3] + "\x1b[1m" + m[4] + "\x1b[22m" + m[5]
	}
	if m := paintResult.FindStringSubmatch(r); m != nil {
		return m[1] + p.grey + m[2] + reset + m[3]
	}
	if m := paintAccept.FindStringSubmatch(r); m != nil {
		return m[1] + p.accept + m[2] + reset + p.dim + m[3] + reset
	}
	if m := paintPrompt.FindStringSubmatch(r); m != nil {
		if m[2] == "❯" && numbered.MatchString(m[3]) {
			return m[1] + p.selected + m[2] + m[3] + reset
		}
		return m[1] + p.grey + m[2] + reset + m[3]
	}
	if m := paintDiff.FindStringSubmatch(r); m != nil {
		bg := p.addBG
		if m[1] == "-" {
			bg = p.delBG
		}
		// Claude Code pads diff rows with background-coloured spaces to the
		// edge of their area.
		pad := ""
		if n := end - at; n > 0 {
			pad = strings.Repeat(" ", n)
		}
		return bg + r + pad + reset
	}
	if paintHint.MatchString(r) {
		return p.dim + r + reset
	}
	return r
}

var numbered = regexp.MustCompile(`^ *\d+\.`)

// shimmerText colours a spinner message: the spinner's colour with a
// lighter window of three characters somewhere along it.
func (p *palette) shimmerText(s string, seed uint32) string {
	rs := []rune(s)
	if len(rs) < 4 {
		return s
	}
	at := int(seed % uint32(len(rs)-3))
	return string(rs[:at]) + p.shimmer + string(rs[at:at+3]) + p.claude + string(rs[at+3:])
}
