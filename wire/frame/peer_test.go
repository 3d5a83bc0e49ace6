package frame

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"
)

// Dial's check refuses a server of another uid (here: the check asked for
// another uid than ours) and accepts our own.
func TestCheckPeer(t *testing.T) {
	dir, err := os.MkdirTemp("", "fp")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "s.sock")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		if c, err := l.Accept(); err == nil {
			defer c.Close()
			c.Write([]byte{ModeBinary})
			c.Read(make([]byte, 1))
		}
	}()
	c, err := Dial(path, 0)
	if err != nil {
		t.Fatalf("our own server: %v", err)
	}
	defer c.Close()
	if err := checkPeerUID(c.Conn(), path, os.Geteuid()+1); !errors.Is(err, ErrForeignPeer) {
		t.Fatalf("another uid's server: %v", err)
	}
}
