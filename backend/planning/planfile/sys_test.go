package planfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Timestamp formats as time does, across the years it takes.
func FuzzTimestamp(f *testing.F) {
	for _, u := range []int64{0, -1, 951782400 /* 2000-02-29 */, 1782130047, -62167219200 /* 0000-01-01 */, 253402300799 /* 9999-12-31T23:59:59 */} {
		f.Add(u)
	}
	f.Fuzz(func(t *testing.T, u int64) {
		u = (u%253402300800 + 253402300800) % (253402300800 + 62167219200) // [0000-01-01, 9999-12-31] shifted
		u -= 62167219200
		if got, want := Timestamp(u), time.Unix(u, 0).UTC().Format("2006-01-02T15:04:05Z"); got != want {
			t.Fatalf("Timestamp(%d) = %s, want %s", u, got, want)
		}
	})
}

// ReadFile reads and fails as os.ReadFile does.
func TestReadFileAsOS(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big")
	b := make([]byte, 70000)
	for i := range b {
		b[i] = byte(i)
	}
	os.WriteFile(big, b, 0o644)
	os.WriteFile(filepath.Join(dir, "empty"), nil, 0o644)
	for _, name := range []string{big, filepath.Join(dir, "empty"), filepath.Join(dir, "missing"), dir, "/proc/self/status"} {
		got, err := ReadFile(name)
		want, werr := os.ReadFile(name)
		if name == "/proc/self/status" && err == nil && len(got) > 0 {
			continue // this process's, changing between the reads
		}
		if string(got) != string(want) || errString(err) != errString(werr) || errors.Is(err, fs.ErrNotExist) != errors.Is(werr, fs.ErrNotExist) {
			t.Errorf("%s: %d bytes, %v; os: %d bytes, %v", name, len(got), err, len(want), werr)
		}
	}
}

// mkdirAll makes and fails as os.MkdirAll does.
func TestMkdirAllAsOS(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	os.WriteFile(file, nil, 0o644)
	for _, p := range []string{filepath.Join(dir, "a/b/c"), filepath.Join(dir, "a/b"), dir, file, filepath.Join(file, "x/y")} {
		err := mkdirAll(p)
		werr := os.MkdirAll(p, 0o755)
		if errString(err) != errString(werr) {
			t.Errorf("%s: %v; os: %v", p, err, werr)
		}
	}
	if st, err := os.Stat(filepath.Join(dir, "a/b/c")); err != nil || !st.IsDir() || st.Mode().Perm() != 0o755&^umask(t) {
		t.Errorf("a/b/c: %v %v", st, err)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// umask is the process's umask, read from a file made 0777.
func umask(t *testing.T) os.FileMode {
	p := filepath.Join(t.TempDir(), "u")
	if err := os.Mkdir(p, 0o777); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(p)
	return 0o777 &^ st.Mode().Perm()
}
