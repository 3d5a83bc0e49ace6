package supervisor

// ring keeps the last size bytes written to it: the session's scrollback.
// It is not safe for concurrent use; the session guards it.
type ring struct {
	buf  []byte
	head int  // next write position
	full bool // buf has wrapped at least once
}

func newRing(size int) *ring { return &ring{buf: make([]byte, size)} }

// Write appends p, overwriting the oldest bytes once the ring is full.
func (r *ring) Write(p []byte) {
	n := len(r.buf)
	if n == 0 {
		return
	}
	if len(p) >= n {
		copy(r.buf, p[len(p)-n:])
		r.head, r.full = 0, true
		return
	}
	k := copy(r.buf[r.head:], p)
	if k < len(p) {
		copy(r.buf, p[k:])
		r.full = true
	}
	r.head = (r.head + len(p)) % n
	if r.head == 0 && len(p) > 0 {
		r.full = true
	}
}

// Len is the number of bytes held.
func (r *ring) Len() int {
	if r.full {
		return len(r.buf)
	}
	return r.head
}

// Bytes returns a copy of the held bytes, oldest first.
func (r *ring) Bytes() []byte {
	if !r.full {
		return append([]byte(nil), r.buf[:r.head]...)
	}
	out := make([]byte, 0, len(r.buf))
	out = append(out, r.buf[r.head:]...)
	return append(out, r.buf[:r.head]...)
}
