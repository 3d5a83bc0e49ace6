// Package uuid makes random (version 4) UUIDs: claude's --session-id, a
// heddle session's id. Standard library only.
package uuid

import (
	"crypto/rand"
	"fmt"
)

// New returns a random (version 4, RFC 9562 variant) UUID in its
// canonical text form.
func New() string {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand's contract since Go 1.24)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
