package vt

import ()

// scrollback is a ring of at most max plain-text lines. Each slot's byte
// slice is reused once the ring is full, so scrolling does not allocate in
// the steady state.
type scrollback struct {
	max      int
	lines    [][]byte
	start, n int
}

func (s *scrollback) push(row []cell) {
	if s.max <= 0 {
		return
	}
	var i int
	if s.n < s.max {
		i = (s.start + s.n) % s.max
		s.n++
	} else {
		i = s.start
		s.start = (s.start + 1) % s.max
	}
	if i >= len(s.lines) {
		s.lines = append(s.lines, nil)
	}
	s.lines[i] = appendRowText(s.lines[i][:0], row)
}

func (s *scrollback) clear() { s.start, s.n = 0, 0 }

func (s *scrollback) strings() []string {
	out := make([]string, s.n)
	for k := range out {
		out[k] = string(s.lines[(s.start+k)%s.max])
	}
	return out
}

// appendRowText appends the row's text: wide characters once (their Width-0
// continuation skipped), trailing spaces trimmed.
func appendRowText(b []byte, row []cell) []byte {
	start := len(b)
	for i := range row {
		c := &row[i]
		if c.width == 0 {
			continue
		}
		switch len(c.content) {
		case 0:
			b = append(b, ' ')
		case 1: // the common case; avoids a memmove call per cell
			b = append(b, c.content[0])
		default:
			b = append(b, c.content...)
		}
	}
	return trimSpaces(b, start)
}

// appendCellsText is appendRowText for a Snapshot's row.
func appendCellsText(b []byte, row []Cell) []byte {
	start := len(b)
	for i := range row {
		if c := &row[i]; c.Width != 0 {
			if c.Content == "" {
				b = append(b, ' ')
			} else {
				b = append(b, c.Content...)
			}
		}
	}
	return trimSpaces(b, start)
}

// trimSpaces drops the spaces ending b[start:].
func trimSpaces(b []byte, start int) []byte {
	end := len(b)
	for end > start && b[end-1] == ' ' {
		end--
	}
	return b[:end]
}
