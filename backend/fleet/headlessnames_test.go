package fleet

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Names kept: the latest for a session wins, at most maxNames (the oldest
// go), a broken file is no names (and is replaced by the next write).
func TestHeadlessNames(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "names.json")
	if nameOf(path, "s1") != "" || nameOf("", "s1") != "" {
		t.Fatal("a name from nowhere")
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(rememberName(path, "s1", "h1"))
	must(rememberName(path, "s2", "h2"))
	must(rememberName(path, "s1", "renamed"))
	if nameOf(path, "s1") != "renamed" || nameOf(path, "s2") != "h2" {
		t.Fatalf("names %+v", readNames(path))
	}
	for i := range maxNames {
		must(rememberName(path, fmt.Sprint("x", i), "n"))
	}
	if n := len(readNames(path)); n != maxNames || nameOf(path, "s2") != "" || nameOf(path, "x0") != "n" {
		t.Fatalf("%d names kept, s2 %q", n, nameOf(path, "s2"))
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("file %v %v", fi, err)
	}
	must(os.WriteFile(path, []byte("{broken"), 0o600))
	if nameOf(path, "x1") != "" {
		t.Fatal("a name from a broken file")
	}
	must(rememberName(path, "s3", "h3"))
	if nameOf(path, "s3") != "h3" {
		t.Fatal("not written over the broken file")
	}
}
