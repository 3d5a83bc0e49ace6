package vt

import "image/color"

// The emulator's own cell, style and colour types. They are plain data,
// what a Snapshot carries and what a renderer (the dashboard's panes)
// reads; the emulator does not depend on a rendering library for them, so
// a supervisor links no more than it emulates with.

// Cell is one cell of a Snapshot. A wide character occupies its cell
// (Width 2) and the next one (Width 0, empty Content); an empty cell is
// EmptyCell.
type Cell struct {
	Content string
	Style   Style
	Link    Link
	Width   int
}

// EmptyCell is what an unwritten cell holds: a space of width 1 in the
// default style.
var EmptyCell = Cell{Content: " ", Width: 1}

// Style is a cell's rendition. A nil colour is the terminal's default;
// the others are BasicColor (0–15), IndexedColor (0–255) and opaque
// color.RGBA (24-bit).
type Style struct {
	Fg, Bg, UnderlineColor color.Color
	Underline              Underline
	Attrs                  uint8 // Attr* bits
}

// IsZero reports whether s is the default rendition.
func (s *Style) IsZero() bool {
	return s.Attrs == 0 && s.Underline == UnderlineNone && s.Fg == nil && s.Bg == nil && s.UnderlineColor == nil
}

// Equal reports whether s and o render alike: colours of one type compare
// by value, of different types by RGBA.
func (s *Style) Equal(o *Style) bool {
	return s.Attrs == o.Attrs && s.Underline == o.Underline &&
		colorEqual(s.Fg, o.Fg) && colorEqual(s.Bg, o.Bg) && colorEqual(s.UnderlineColor, o.UnderlineColor)
}

func colorEqual(a, b color.Color) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	switch a := a.(type) {
	case BasicColor:
		if b, ok := b.(BasicColor); ok {
			return a == b
		}
	case IndexedColor:
		if b, ok := b.(IndexedColor); ok {
			return a == b
		}
	case color.RGBA:
		if b, ok := b.(color.RGBA); ok {
			return a == b
		}
	}
	ar, ag, ab, aa := a.RGBA()
	br, bg, bb, ba := b.RGBA()
	return ar == br && ag == bg && ab == bb && aa == ba
}

// Attribute bits of Style.Attrs, in SGR order (1, 2, 3, 5, 6, 7, 8, 9).
const (
	AttrBold = 1 << iota
	AttrFaint
	AttrItalic
	AttrBlink
	AttrRapidBlink
	AttrReverse
	AttrConceal
	AttrStrikethrough
)

// Underline is an underline's shape; its value is SGR 4's sub-parameter
// (4:1 single … 4:5 dashed).
type Underline uint8

const (
	UnderlineNone Underline = iota
	UnderlineSingle
	UnderlineDouble
	UnderlineCurly
	UnderlineDotted
	UnderlineDashed
)

// Link is an OSC 8 hyperlink; the zero Link is none.
type Link struct {
	URL    string
	Params string
}

// BasicColor is one of the 16 ANSI colours (SGR 30–37, 90–97 and their
// backgrounds): 0–7 normal, 8–15 bright. Its RGBA is xterm's default.
type BasicColor uint8

// IndexedColor is one of the 256 colours of SGR 38;5;N. Its RGBA is
// xterm's default palette.
type IndexedColor uint8

// xterm16 is xterm's default palette for the 16 ANSI colours.
var xterm16 = [16][3]uint8{
	{0x00, 0x00, 0x00}, {0xcd, 0x00, 0x00}, {0x00, 0xcd, 0x00}, {0xcd, 0xcd, 0x00},
	{0x00, 0x00, 0xee}, {0xcd, 0x00, 0xcd}, {0x00, 0xcd, 0xcd}, {0xe5, 0xe5, 0xe5},
	{0x7f, 0x7f, 0x7f}, {0xff, 0x00, 0x00}, {0x00, 0xff, 0x00}, {0xff, 0xff, 0x00},
	{0x5c, 0x5c, 0xff}, {0xff, 0x00, 0xff}, {0x00, 0xff, 0xff}, {0xff, 0xff, 0xff},
}

func (c BasicColor) RGBA() (r, g, b, a uint32) { return IndexedColor(c & 15).RGBA() }

func (c IndexedColor) RGBA() (r, g, b, a uint32) {
	return color.RGBA{R: c.rgb(0), G: c.rgb(1), B: c.rgb(2), A: 0xff}.RGBA()
}

// rgb is component k (0 red, 1 green, 2 blue) of c in xterm's palette:
// the 16 ANSI colours, a 6×6×6 cube, then 24 greys.
func (c IndexedColor) rgb(k int) uint8 {
	switch {
	case c < 16:
		return xterm16[c][k]
	case c < 232:
		v := (int(c) - 16) / [3]int{36, 6, 1}[k] % 6
		if v == 0 {
			return 0
		}
		return uint8(55 + 40*v)
	default:
		return uint8(8 + 10*(int(c)-232))
	}
}
