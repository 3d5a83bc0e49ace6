package unixsock

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
)

// ErrForeignPeer is returned by Dial when the socket's server runs as
// another user: someone who could write the socket's directory may have
// put their own in its place, and a client must not send it anything (an
// attach would hand it the user's terminal).
var ErrForeignPeer = errors.New("socket served by another user")

// Dial connects to the Unix socket at path and checks, before anything
// is sent, that its server runs as this process's user (SO_PEERCRED:
// the credentials the kernel recorded when the server listened).
func Dial(ctx context.Context, path string) (*net.UnixConn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, err
	}
	uc := c.(*net.UnixConn)
	if err := checkPeer(uc, path, os.Geteuid()); err != nil {
		uc.Close()
		return nil, err
	}
	return uc, nil
}

// checkPeer refuses c unless its peer runs as uid.
func checkPeer(c net.Conn, path string, uid int) error {
	cred, err := PeerCred(c)
	if err != nil {
		return err
	}
	if int(cred.UID) != uid {
		return fmt.Errorf("%w: %s is served by uid %d (pid %d), not by you (uid %d); refusing to use it", ErrForeignPeer, path, cred.UID, cred.PID, uid)
	}
	return nil
}
