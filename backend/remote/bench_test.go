package remote

import (
	"context"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/internal/proctest"
	"github.com/heimdall-tui/heimdall-tui/backend/remote/sshdtest"
	"github.com/heimdall-tui/heimdall-tui/backend/supervisor"
	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// BenchmarkChannelRTT times a key's round trip (INPUT of one byte, until
// OUTPUT holds its echo from a raw-mode cat) over the session's socket
// directly, over a channel of `heimdall mux` run as a child (an ssh that
// runs the command here), and over one through Debian's sshd on loopback,
// interleaved in rounds: the far end's mux hop, and ssh's, by difference.
//
//	go test -run '^$' -bench ChannelRTT -benchtime 1x ./backend/remote/
func BenchmarkChannelRTT(b *testing.B) {
	dir := proctest.ShortDir(b)
	startSession(b, dir, "rtt", "sh", "-c", "stty raw -echo; printf READY; exec cat")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := []string{heimdallBin, "--socket-dir", dir, "mux"}
	local, err := Connect(ctx, Options{Dest: "box", Command: cmd, SSH: fakeSSH(b)}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer local.Close()
	viaSSH, err := Connect(ctx, Options{Dest: "box", Command: cmd, SSH: sshdtest.Start(b).SSH}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer viaSSH.Close()
	dials := []struct {
		name string
		dial func() (net.Conn, error)
	}{
		{"socket", func() (net.Conn, error) { return net.Dial("unix", supervisor.SocketPath(dir, "rtt")) }},
		{"mux", func() (net.Conn, error) { return local.Dial("rtt") }},
		{"ssh", func() (net.Conn, error) { return viaSSH.Dial("rtt") }},
	}
	lat := make([][]time.Duration, len(dials))
	for range 10 {
		for i, d := range dials {
			conn, err := d.dial()
			if err != nil {
				b.Fatal(err)
			}
			c, err := frame.NewClient(conn, 5*time.Second)
			if err != nil {
				b.Fatal(err)
			}
			c.Conn().SetDeadline(time.Now().Add(time.Minute))
			if err := c.Subscribe(); err != nil {
				b.Fatal(err)
			}
			for k := range 110 {
				begin := time.Now()
				if err := c.Input([]byte{'x'}); err != nil {
					b.Fatal(err)
				}
				for got := false; !got; {
					f, err := c.Next()
					if err != nil {
						b.Fatal(err)
					}
					got = f.Type == frame.Output && slices.Contains(f.Payload, 'x')
				}
				if k >= 10 {
					lat[i] = append(lat[i], time.Since(begin))
				}
			}
			c.Close()
		}
	}
	for i, d := range dials {
		slices.Sort(lat[i])
		b.ReportMetric(float64(lat[i][len(lat[i])/2].Microseconds()), d.name+"_p50_µs")
		b.ReportMetric(float64(lat[i][len(lat[i])*99/100].Microseconds()), d.name+"_p99_µs")
	}
	b.ReportMetric(0, "ns/op")
}
