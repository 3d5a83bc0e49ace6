package supervisor

// ring keeps the last size bytes written to it: the session's scrollback.
// Its buffer grows with what is written, up to size, so a quiet session
// holds only what it printed. It is not safe for concurrent use; the session
// guards it.
type ring struct {
	size int
	buf  []byte // len(buf) < size until the ring first fills
	head int    // next write position once full
	full bool
}

func newRing(size int) *ring { return &ring{size: size} }

// Write appends p, overwriting the oldest bytes once the ring is full.
func (r *ring) Write(p []byte) {
	if r.size == 0 {
		return
	}
	if !r.full {
		if len(r.buf)+len(p) < r.size {
			r.buf = append(r.buf, p...)
			return
		}
		// Fill to size, then continue as a full ring.
		if cap(r.buf) < r.size {
			r.buf = append(make([]byte, 0, r.size), r.buf...)
		}
		k := r.size - len(r.buf)
		r.buf = append(r.buf, p[:k]...)
		r.full, r.head, p = true, 0, p[k:]
	}
	n := r.size
	if len(p) >= n {
		copy(r.buf, p[len(p)-n:])
		r.head = 0
		return
	}
	k := copy(r.buf[r.head:], p)
	copy(r.buf, p[k:])
	r.head = (r.head + len(p)) % n
}

// Len is the number of bytes held.
func (r *ring) Len() int { return len(r.buf) }

// Bytes returns a copy of the held bytes, oldest first.
func (r *ring) Bytes() []byte {
	out := make([]byte, 0, len(r.buf))
	out = append(out, r.buf[r.head:]...)
	return append(out, r.buf[:r.head]...)
}
