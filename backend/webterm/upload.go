package webterm

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/wire/wsterm"
)

// UploadDir is where uploads go, under the session's working directory.
const UploadDir = ".swe-swe/uploads"

// maxNameBytes bounds a saved file name (most file systems allow 255).
const maxNameBytes = 200

// SanitizeName makes an uploaded file's name safe to create in the upload
// directory: its last path element only (either slash), control
// characters and anything but letters, digits (of any script), '.', '-', '_', ' ', '+',
// '@', '(' and ')' replaced by '_', no leading dots or spaces (no ".."
// and no hidden files), at most 200 bytes; "upload" if nothing is left.
func SanitizeName(name string) string {
	name = strings.ToValidUTF8(name, "_")
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	var b strings.Builder
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9',
			strings.ContainsRune(".-_ +@()", r):
			b.WriteRune(r)
		case r > 0x7f && r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			b.WriteRune(r) // letters and digits of other scripts
		default:
			b.WriteByte('_')
		}
	}
	name = strings.TrimLeft(b.String(), ". ")
	name = strings.TrimRight(name, " ")
	for len(name) > maxNameBytes {
		_, n := utf8.DecodeLastRuneInString(name)
		name = name[:len(name)-n]
	}
	if name == "" {
		return "upload"
	}
	return name
}

// upload saves a client's file, read from data as it arrives (nothing
// beyond a copy buffer is held), in <session dir>/.swe-swe/uploads under
// its sanitised name (name-2.ext, name-3.ext… if taken: an upload never
// overwrites), answers file_upload, and types the file's absolute path
// (escaped: typedPath) into the session so its agent sees where it is.
// The directory is opened as an os.Root: a symlink planted in the
// workspace cannot lead the write outside it.
func (s *Server) upload(c *client, rawName []byte, data io.Reader) {
	shown := SanitizeName(string(rawName))
	fail := func(format string, args ...any) {
		reason := fmt.Sprintf(format, args...)
		s.log.Info("web upload failed", "id", c.ss.id, "name", string(rawName), "err", reason)
		c.sendJSON(wsterm.UploadFailed(shown, reason))
	}
	in, ok := s.lookup(c.ss.id)
	if !ok || in.Dir == "" {
		fail("the session's working directory is unknown")
		return
	}
	name, n, err := saveUpload(in.Dir, shown, data, s.opts.UploadLimit)
	if errors.Is(err, errTooLarge) {
		fail("file too large: more than %d bytes", s.opts.UploadLimit)
		return
	}
	if err != nil {
		fail("Failed to save file: %v", err)
		return
	}
	abs := filepath.Join(in.Dir, UploadDir, name)
	s.log.Info("web upload saved", "id", c.ss.id, "path", abs, "bytes", n)
	c.sendJSON(wsterm.UploadOK(name))
	if err := s.opts.Fleet.Send(c.ss.id, session.Input{Data: []byte(typedPath(abs))}); err != nil {
		s.log.Info("web upload: path not typed", "id", c.ss.id, "err", err)
	}
}

// typedPath is path as typed into the session: characters a shell would
// split or expand at (a space or parentheses in a sanitised name, anything
// in the session's directory) backslash-escaped, as a terminal's
// drag-and-drop types a file's path, so a shell gets one word and Claude
// Code reads it as one path.
func typedPath(path string) string {
	var b strings.Builder
	for _, r := range path {
		if strings.ContainsRune(" \t()[]{}<>'\"`$&;|*?!#~\\", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// errTooLarge is saveUpload's error for data over its limit.
var errTooLarge = errors.New("upload too large")

// saveUpload writes data (at most limit bytes, else errTooLarge) to
// dir/UploadDir/name, or the first free name-N.ext, creating the
// directories, and returns the name used and the size. The data goes to
// a hidden temporary file first, linked under its name only once whole:
// a failed or cut-off upload leaves nothing behind.
func saveUpload(dir, name string, data io.Reader, limit int64) (string, int64, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return "", 0, err
	}
	defer root.Close()
	if err := root.MkdirAll(UploadDir, 0o755); err != nil {
		return "", 0, err
	}
	tmp := path.Join(UploadDir, ".upload-"+NewToken()+".part")
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", 0, err
	}
	defer root.Remove(tmp)
	n, werr := io.Copy(f, io.LimitReader(data, limit+1))
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	switch {
	case werr != nil:
		return "", n, werr
	case n > limit:
		return "", n, errTooLarge
	}
	ext := path.Ext(name)
	base := strings.TrimSuffix(name, ext)
	for i := 1; i <= 1000; i++ {
		try := name
		if i > 1 {
			try = base + "-" + strconv.Itoa(i) + ext
		}
		err := root.Link(tmp, path.Join(UploadDir, try))
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", n, err
		}
		return try, n, nil
	}
	return "", n, fmt.Errorf("%s: no free name", name)
}
