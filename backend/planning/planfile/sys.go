package planfile

import (
	"path"
	"syscall"
)

// The file operations planfile needs, as system calls (not package os:
// see the package doc), each doing what its os counterpart does and
// failing in the same words.

// open opens file with flags (O_CLOEXEC added; created 0644 before the
// umask with O_CREAT), as os.OpenFile does.
func open(file string, flags int) (int, error) {
	for {
		fd, err := syscall.Open(file, flags|syscall.O_CLOEXEC, 0o644)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return -1, opError("open", file, err)
		}
		return fd, nil
	}
}

// ReadFile is os.ReadFile.
func ReadFile(file string) ([]byte, error) {
	fd, err := open(file, syscall.O_RDONLY)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	size, err := fileSize(fd, file)
	if err != nil {
		return nil, err
	}
	// One byte more than the size, so that the read that finds the end
	// does not grow the buffer (files in /proc report size 0).
	b := make([]byte, 0, max(size+1, 512))
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := syscall.Read(fd, b[len(b):cap(b)])
		switch {
		case err == syscall.EINTR:
		case err != nil:
			return nil, opError("read", file, err)
		case n == 0:
			return b, nil
		default:
			b = b[:len(b)+n]
		}
	}
}

// fileSize is the size of the open file fd, named file.
func fileSize(fd int, file string) (int64, error) {
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return 0, opError("stat", file, err)
	}
	return st.Size, nil
}

// readAt fills b from offset off of fd (named file), as os.File.ReadAt:
// the end of the file first is an error.
func readAt(fd int, file string, b []byte, off int64) error {
	for len(b) > 0 {
		n, err := syscall.Pread(fd, b, off)
		switch {
		case err == syscall.EINTR:
		case err != nil:
			return opError("read", file, err)
		case n == 0:
			return errEOF
		default:
			b, off = b[n:], off+int64(n)
		}
	}
	return nil
}

// errEOF is io.EOF's words (io's init is not on the early path either).
var errEOF = eofError{}

type eofError struct{}

func (eofError) Error() string { return "EOF" }

// writeAll writes b to fd (named file), as os.File.Write: until all is
// written or a call fails.
func writeAll(fd int, file string, b []byte) error {
	for len(b) > 0 {
		n, err := syscall.Write(fd, b)
		switch {
		case err == syscall.EINTR:
		case err != nil:
			return opError("write", file, err)
		default:
			b = b[n:]
		}
	}
	return nil
}

// mkdirAll is os.MkdirAll(dir, 0o755).
func mkdirAll(dir string) error {
	var st syscall.Stat_t
	if err := syscall.Stat(dir, &st); err == nil {
		if st.Mode&syscall.S_IFMT == syscall.S_IFDIR {
			return nil
		}
		return opError("mkdir", dir, syscall.ENOTDIR)
	}
	if parent := path.Dir(dir); parent != dir && parent != "." && parent != "/" {
		if err := mkdirAll(parent); err != nil {
			return err
		}
	}
	for {
		err := syscall.Mkdir(dir, 0o755)
		switch {
		case err == syscall.EINTR:
			continue
		case err == nil:
			return nil
		}
		// Made meanwhile by another process, as os.MkdirAll allows.
		if syscall.Lstat(dir, &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFDIR {
			return nil
		}
		return opError("mkdir", dir, err)
	}
}
