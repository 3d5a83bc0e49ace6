package supervisor

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// seedClient is the minimal Go client printed at the end of the wire
// protocol seed, kept as close to the original as possible: os.Args[1] is
// sockPath, os.Stdout/os.Stderr are the writers, and os.Exit(n) is
// "return n". It deliberately does not use package frame, so it checks the
// server against the spec rather than against our own codec.
func seedClient(sockPath string, stdout, stderr io.Writer) int {
	conn, err := net.Dial("unix", sockPath)
	if err != nil {
		fmt.Fprintf(stderr, "connect: %v\n", err)
		return 1
	}
	defer conn.Close()

	// Read mode byte — must be 0x00 (binary framing).
	mode := make([]byte, 1)
	if _, err := io.ReadFull(conn, mode); err != nil {
		fmt.Fprintf(stderr, "read mode byte: %v\n", err)
		return 1
	}
	if mode[0] != 0x00 {
		fmt.Fprintf(stderr, "unsupported mode: 0x%02x\n", mode[0])
		return 1
	}

	// Send SUBSCRIBE frame: type=0x02, length=0.
	subscribe := []byte{0x02, 0x00, 0x00, 0x00, 0x00}
	if _, err := conn.Write(subscribe); err != nil {
		fmt.Fprintf(stderr, "send subscribe: %v\n", err)
		return 1
	}

	// Read frames until EXIT.
	header := make([]byte, 5)
	for {
		if _, err := io.ReadFull(conn, header); err != nil {
			fmt.Fprintf(stderr, "read frame: %v\n", err)
			return 1
		}
		msgType := header[0]
		length := binary.BigEndian.Uint32(header[1:5])
		payload := make([]byte, length)
		if length > 0 {
			if _, err := io.ReadFull(conn, payload); err != nil {
				fmt.Fprintf(stderr, "read payload: %v\n", err)
				return 1
			}
		}
		switch msgType {
		case 0x81: // OUTPUT — write pty data to stdout.
			stdout.Write(payload)
		case 0x83: // EXIT — child exited, payload is i32 BE exit code.
			code := int32(binary.BigEndian.Uint32(payload))
			return int(code)
		}
	}
}

func TestSeedClient(t *testing.T) {
	for _, tc := range []struct {
		name string
		late bool // subscribe after the child exited: replay, then EXIT
	}{{"live", false}, {"after-exit", true}} {
		t.Run(tc.name, func(t *testing.T) {
			g := newGate(t)
			s := startServed(t, Config{Argv: []string{"sh", "-c", g.Wait() + "; echo from the seed; exit 7"}})
			if tc.late {
				g.Open(t)
				waitDone(t, s.sess, 10*time.Second)
			}
			var stdout, stderr bytes.Buffer
			done := make(chan int, 1)
			go func() { done <- seedClient(s.sock, &stdout, &stderr) }()
			if !tc.late {
				// Let it subscribe (it sends SUBSCRIBE right after the mode
				// byte); anything earlier would come as replay anyway.
				g.Open(t)
			}
			select {
			case code := <-done:
				if code != 7 || !strings.Contains(stdout.String(), "from the seed\r\n") || stderr.Len() != 0 {
					t.Fatalf("seed client: code %d, stdout %q, stderr %q; want 7 and the output", code, stdout.String(), stderr.String())
				}
			case <-time.After(10 * time.Second):
				t.Fatal("seed client did not return")
			}
		})
	}
}
