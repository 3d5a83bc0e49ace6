// Package page is the web terminal's page, embedded in the binary: the
// HTML, its script and style, and xterm.js with its fit addon vendored
// from the npm registry (static/vendor: VERSIONS.txt names the packages
// and versions, LICENSE-*.txt their MIT licences). backend/webterm
// serves it.
package page

import "embed"

// Files holds static/: index.html, app.js, app.css and vendor/.
//
//go:embed static
var Files embed.FS

// The vendored npm packages' versions (static/vendor/VERSIONS.txt).
const (
	XtermVersion = "6.0.0"  // @xterm/xterm
	FitVersion   = "0.11.0" // @xterm/addon-fit
)
