// Package vt is heimdall-tui's terminal emulator: it turns a session's pty
// output into the screen a terminal would show, built on the
// github.com/charmbracelet/x/ansi parser, with cells of its own (style.go).
//
// An Emulator is fed by one goroutine (Write) and read by any number of
// others through Snapshot and Seq, and Repaint, which draws its state onto
// another emulator (a subscriber's, joining mid-stream). It answers the
// queries programs send at start-up (DA1, DA2, DSR/CPR, DECRQM, XTVERSION,
// OSC 10/11) through Options.Reply, so they never hang waiting when no
// terminal is attached.
package vt

// Options configure an Emulator. Zero values take the defaults.
type Options struct {
	// ScrollbackLines bounds the lines kept after they scroll off the top
	// of the main screen (0: none, the default: keeping lines costs
	// scrolling output ~40% more emulation, so only a reader of
	// Scrollback should ask for them).
	ScrollbackLines int
	// Reply receives the answers to queries (DA1, DSR, ...), to be written
	// to the pty. It is called on the Write goroutine and must not block
	// for long; nil drops the answers.
	Reply func(p []byte)
	// Alert receives what a program sends to get the user's attention — a
	// bell (BEL outside any string) or a desktop notification (OSC 9 with
	// a message, OSC 99, OSC 777;notify) — after the Write that applied
	// it, outside the emulator's lock; it must not block for long. nil
	// drops them. They are never written anywhere by the emulator.
	Alert func(Alert)
}

// Alert is a bell or a notification a program sent.
type Alert struct {
	Bell bool   // BEL; else a notification
	Text string // the notification's text (OSC 777: TITLE: BODY)
}

// Modes are the terminal modes programs set that a client attaching later,
// or the dashboard, needs to know.
type Modes struct {
	BracketedPaste bool // ?2004
	CursorKeys     bool // DECCKM ?1 (application cursor keys)
	MouseX10       bool // ?9
	MouseNormal    bool // ?1000
	MouseButton    bool // ?1002
	MouseAny       bool // ?1003
	MouseSGR       bool // ?1006
	Focus          bool // ?1004
	SyncOutput     bool // ?2026
	AltScreen      bool // ?1047 / ?1049 in effect
	Origin         bool // DECOM ?6
	Autowrap       bool // DECAWM ?7 (on by default)
	Insert         bool // IRM (SM 4)
}

// Cursor is the cursor's position (0-based, X column, Y row) and visibility.
type Cursor struct {
	X, Y    int
	Visible bool
}

// Snapshot is a consistent copy of the visible screen, safe to keep and read
// on any goroutine.
type Snapshot struct {
	Cols, Rows int
	// Cells is Rows rows of Cols cells. A wide character occupies its cell
	// (Width 2) and the next one, which has Width 0 and empty Content. An
	// empty cell has Content " " and Width 1 (EmptyCell). The cells are
	// read-only: blank rows are shared by every snapshot of the process.
	Cells  [][]Cell
	Cursor Cursor
	Title  string // OSC 0/2
	Modes  Modes
	// Seq is the emulator's damage sequence number when the snapshot was
	// taken: equal Seqs mean identical screens.
	Seq uint64
	// backing holds the cells of the rows that are not blank, for
	// SnapshotInto to reuse.
	backing []Cell
}
