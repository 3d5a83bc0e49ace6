// Package atomicfile replaces a file whole: readers see the old content or
// the new one, never a torn one. It does not serialise writers; callers
// that may race hold a lock of their own.
package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
)

// Write replaces path with data and mode perm: a temp file in path's
// directory (hidden, named after path), then rename. On error the temp file
// is removed and path is untouched. No fsync: what this module writes is
// state a crash may lose, not state it may tear.
func Write(path string, data []byte, perm os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	err = errors.Join(err, f.Chmod(perm), f.Close())
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}
