// Package detachkey copies a terminal's keys to a session until the user
// types the detach key: attach does so over the socket, a supervisor that
// was handed the terminal (the TERMINAL extension) straight to the pty.
package detachkey

import "io"

// Forward copies what r yields to write until it yields the detach key
// (the keys before it in the same read are written first; it reports
// true), write fails, or r ends or fails (it reports false).
func Forward(r io.Reader, write func([]byte) error, key byte) bool {
	buf := make([]byte, 4096)
	for {
		n, err := r.Read(buf)
		p := buf[:n]
		for i, b := range p {
			if b == key {
				if i > 0 {
					write(p[:i])
				}
				return true
			}
		}
		if n > 0 {
			if write(p) != nil {
				return false
			}
		}
		if err != nil {
			return false
		}
	}
}
