package review

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkTake: a session's baseline in a repository of 5,000 committed
// files with 20 of them edited and 20 untracked (what a session start
// waits for before its program runs).
//
//	go test -run '^$' -bench Take -benchtime 20x ./backend/review/
func BenchmarkTake(b *testing.B) {
	b.Setenv("HOME", b.TempDir())
	b.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	b.Setenv("GIT_AUTHOR_NAME", "t")
	b.Setenv("GIT_AUTHOR_EMAIL", "t@example.com")
	b.Setenv("GIT_COMMITTER_NAME", "t")
	b.Setenv("GIT_COMMITTER_EMAIL", "t@example.com")
	dir := b.TempDir()
	for i := range 5000 {
		d := filepath.Join(dir, fmt.Sprintf("d%02d", i%50))
		os.MkdirAll(d, 0o755)
		os.WriteFile(filepath.Join(d, fmt.Sprintf("f%04d.go", i)), []byte(fmt.Sprintf("package d\n\nconst X%d = %d\n", i, i)), 0o644)
	}
	ctx := context.Background()
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"commit", "-q", "-m", "x"}} {
		if _, err := git(ctx, dir, nil, args...); err != nil {
			b.Fatal(err)
		}
	}
	for i := range 20 {
		os.WriteFile(filepath.Join(dir, "d00", fmt.Sprintf("f%04d.go", i*50)), []byte("package d\n// edited\n"), 0o644)
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("new%d.txt", i)), []byte("new\n"), 0o644)
	}
	b.ResetTimer()
	for range b.N {
		if _, err := Take(ctx, dir); err != nil {
			b.Fatal(err)
		}
	}
}
