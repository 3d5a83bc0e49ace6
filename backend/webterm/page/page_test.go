package page

import (
	"strings"
	"testing"
)

// The page's files are embedded, and the vendored versions recorded in
// VERSIONS.txt are the ones the code names.
func TestEmbedded(t *testing.T) {
	for _, f := range []string{"index.html", "app.js", "app.css", "vendor/xterm.js", "vendor/xterm.css", "vendor/addon-fit.js",
		"vendor/LICENSE-xterm.txt", "vendor/LICENSE-addon-fit.txt"} {
		b, err := Files.ReadFile("static/" + f)
		if err != nil || len(b) == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	v, err := Files.ReadFile("static/vendor/VERSIONS.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"@xterm/xterm      " + XtermVersion, "@xterm/addon-fit  " + FitVersion} {
		if !strings.Contains(string(v), want) {
			t.Errorf("VERSIONS.txt lacks %q", want)
		}
	}
	idx, _ := Files.ReadFile("static/index.html")
	for _, ref := range []string{"/static/vendor/xterm.js", "/static/vendor/addon-fit.js", "/static/vendor/xterm.css", "/static/app.js", "/static/app.css", "viewport"} {
		if !strings.Contains(string(idx), ref) {
			t.Errorf("index.html does not load %s", ref)
		}
	}
}
