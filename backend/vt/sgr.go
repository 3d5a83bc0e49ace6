package vt

import (
	"image/color"

	"github.com/charmbracelet/x/ansi"
)

// sgr applies Select Graphic Rendition parameters to the current style.
// Colon sub-parameters (4:3, 38:2::r:g:b) are grouped with the parameter
// they follow; unknown groups are skipped whole.
func (e *Emulator) sgr(ps ansi.Params) {
	e.penStale = true
	if len(ps) == 0 {
		e.style = Style{}
		return
	}
	s := &e.style
	for i := 0; i < len(ps); i++ {
		// end is the last index of this parameter's colon group.
		end := i
		for end < len(ps)-1 && ps[end].HasMore() {
			end++
		}
		n := ps[i].Param(0)
		switch {
		case n == 0:
			*s = Style{}
		case n == 1:
			s.Attrs |= AttrBold
		case n == 2:
			s.Attrs |= AttrFaint
		case n == 3:
			s.Attrs |= AttrItalic
		case n == 4:
			s.Underline = UnderlineSingle
			if end > i {
				switch ps[i+1].Param(1) {
				case 0:
					s.Underline = UnderlineNone
				case 2:
					s.Underline = UnderlineDouble
				case 3:
					s.Underline = UnderlineCurly
				case 4:
					s.Underline = UnderlineDotted
				case 5:
					s.Underline = UnderlineDashed
				}
			}
		case n == 5:
			s.Attrs |= AttrBlink
		case n == 6:
			s.Attrs |= AttrRapidBlink
		case n == 7:
			s.Attrs |= AttrReverse
		case n == 8:
			s.Attrs |= AttrConceal
		case n == 9:
			s.Attrs |= AttrStrikethrough
		case n == 21:
			s.Underline = UnderlineDouble
		case n == 22:
			s.Attrs &^= AttrBold | AttrFaint
		case n == 23:
			s.Attrs &^= AttrItalic
		case n == 24:
			s.Underline = UnderlineNone
		case n == 25:
			s.Attrs &^= AttrBlink | AttrRapidBlink
		case n == 27:
			s.Attrs &^= AttrReverse
		case n == 28:
			s.Attrs &^= AttrConceal
		case n == 29:
			s.Attrs &^= AttrStrikethrough
		case n >= 30 && n <= 37:
			s.Fg = BasicColor(n - 30)
		case n == 39:
			s.Fg = nil
		case n >= 40 && n <= 47:
			s.Bg = BasicColor(n - 40)
		case n == 49:
			s.Bg = nil
		case n == 59:
			s.UnderlineColor = nil
		case n >= 90 && n <= 97:
			s.Fg = BasicColor(n - 90 + 8)
		case n >= 100 && n <= 107:
			s.Bg = BasicColor(n - 100 + 8)
		case n == 38 || n == 48 || n == 58:
			var c color.Color
			var next int
			if end > i {
				c = e.colonColor(ps[i+1 : end+1])
				next = end
			} else {
				c, next = e.semicolonColor(ps, i+1)
			}
			if c != nil {
				switch n {
				case 38:
					s.Fg = c
				case 48:
					s.Bg = c
				default:
					s.UnderlineColor = c
				}
			}
			i = next
			continue
		}
		i = end
	}
}

// colonColor decodes the sub-parameters after 38/48/58 in colon form:
// 5:n, 2:r:g:b or 2:colourspace:r:g:b.
func (e *Emulator) colonColor(sub ansi.Params) color.Color {
	switch sub[0].Param(0) {
	case 5:
		if len(sub) >= 2 {
			return IndexedColor(uint8(sub[1].Param(0)))
		}
	case 2:
		switch {
		case len(sub) >= 5:
			return e.trueColor(sub[2].Param(0), sub[3].Param(0), sub[4].Param(0))
		case len(sub) == 4:
			return e.trueColor(sub[1].Param(0), sub[2].Param(0), sub[3].Param(0))
		}
	}
	return nil
}

// semicolonColor decodes the legacy 38;5;n / 38;2;r;g;b form starting at
// index i (the colour type); it returns the index of the last parameter
// consumed.
func (e *Emulator) semicolonColor(ps ansi.Params, i int) (color.Color, int) {
	if i >= len(ps) {
		return nil, i
	}
	switch ps[i].Param(0) {
	case 5:
		if i+1 < len(ps) {
			return IndexedColor(uint8(ps[i+1].Param(0))), i + 1
		}
	case 2:
		if i+3 < len(ps) {
			return e.trueColor(ps[i+1].Param(0), ps[i+2].Param(0), ps[i+3].Param(0)), i + 3
		}
	}
	return nil, len(ps)
}

// trueColor returns an RGB colour through a small direct-mapped cache so a
// redraw repeating the same colours does not allocate per SGR.
func (e *Emulator) trueColor(r, g, b int) color.Color {
	key := 1<<24 | uint32(uint8(r))<<16 | uint32(uint8(g))<<8 | uint32(uint8(b))
	ent := &e.rgb[(key*2654435761)>>24]
	if ent.key != key {
		ent.key = key
		ent.c = color.RGBA{R: uint8(r), G: uint8(g), B: uint8(b), A: 0xff}
	}
	return ent.c
}
