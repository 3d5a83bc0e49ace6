package blemeesd

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Housekeep is the optional start-up housekeeping of §6: it removes the
// Claude Code session files (HOME/.claude/projects/*/*.jsonl) last
// modified more than days ago, and returns how many it removed. Only
// regular files are removed (a symlink is left alone, as is anything
// else); days <= 0 removes nothing. Run it before serving: no session of
// this daemon is live then. It is opt-in (Config.Housekeeping).
func Housekeep(home string, days int, now time.Time) (int, error) {
	if days <= 0 || home == "" {
		return 0, nil
	}
	files, err := filepath.Glob(filepath.Join(home, ".claude", "projects", "*", "*.jsonl"))
	if err != nil {
		return 0, err
	}
	cutoff := now.Add(-time.Duration(days) * 24 * time.Hour)
	n := 0
	var errs []error
	for _, f := range files {
		fi, err := os.Lstat(f)
		if err != nil || !fi.Mode().IsRegular() || !fi.ModTime().Before(cutoff) {
			continue
		}
		if err := os.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
			continue
		}
		n++
	}
	return n, errors.Join(errs...)
}
