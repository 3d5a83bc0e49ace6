package layout

// VisibleRange returns the scroll offset that keeps the selected one of n
// items of a list visible when rows of them are shown, moving offset as
// little as possible and never scrolling past the end (no blank rows while
// items are hidden above).
func VisibleRange(n, selected, offset, rows int) (newOffset int) {
	if n <= 0 || rows <= 0 {
		return 0
	}
	selected = max(0, min(selected, n-1))
	if selected < offset {
		offset = selected
	}
	if selected >= offset+rows {
		offset = selected - rows + 1
	}
	return max(0, min(offset, n-rows))
}
