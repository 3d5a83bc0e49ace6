package rawio

import (
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// A Poller waits for one direction of a descriptor's readiness through an
// epoll instance of its own, which the netpoller watches: only the events
// asked for wake the process. The netpoller registers every descriptor for
// input and output alike (edge-triggered), and a terminal or a pty signals
// room for output each time its peer reads (the kernel's pty layer wakes
// the writer's side on every read): a process that only reads from one, or
// writes a key's echo to it, would be woken a second time per key for
// nothing, after it went idle. A reading Poller has the descriptor
// registered for input (level-triggered: its readiness reaches the
// netpoller as the epoll instance's); a writing Poller registers it for
// output only while a write waits for room.
//
// A Poller does not own the descriptor: Close it first (it waits for the
// reads, writes and Do calls in progress; later ones fail), then close the
// descriptor. Read and Write wait in the netpoller; one Read or Write at a
// time per Poller.
type Poller struct {
	ep    *os.File // the epoll instance: non-blocking, the netpoller's
	rc    syscall.RawConn
	fd    int
	armed bool // a writing Poller's descriptor is registered for output
}

// NewReadPoller returns a Poller for reading fd (non-blocking).
func NewReadPoller(fd int) (*Poller, error) { return newPoller(fd, unix.EPOLLIN) }

// NewWritePoller returns a Poller for writing fd (non-blocking).
func NewWritePoller(fd int) (*Poller, error) { return newPoller(fd, 0) }

func newPoller(fd int, events uint32) (*Poller, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, os.NewSyscallError("epoll_create1", err)
	}
	if events != 0 {
		if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, fd, &unix.EpollEvent{Events: events, Fd: int32(fd)}); err != nil {
			unix.Close(epfd)
			return nil, os.NewSyscallError("epoll_ctl", err)
		}
	}
	if err := unix.SetNonblock(epfd, true); err != nil {
		unix.Close(epfd)
		return nil, err
	}
	ep := os.NewFile(uintptr(epfd), "epoll")
	c, ok := Of(ep)
	if !ok {
		ep.Close()
		return nil, &os.PathError{Op: "poller", Path: "epoll", Err: unix.EPERM}
	}
	return &Poller{ep: ep, rc: c.RC, fd: fd}, nil
}

// Read reads what is there, waiting in the netpoller while nothing is.
// At end of input it returns io.EOF.
func (p *Poller) Read(b []byte) (int, error) {
	return Conn{RC: p.rc}.readFD(p.fd, b)
}

// RawRead calls f with the descriptor until it returns true, waiting for
// input in the netpoller each time it returns false (syscall.RawConn's
// Read, for the descriptor).
func (p *Poller) RawRead(f func(fd int) bool) error {
	return p.rc.Read(func(uintptr) bool { return f(p.fd) })
}

// SetReadDeadline bounds Read's and RawRead's waits, as os.File's does.
func (p *Poller) SetReadDeadline(t time.Time) error { return p.ep.SetReadDeadline(t) }

// Write writes all of b, waiting in the netpoller while the descriptor is
// full (registered for output only meanwhile).
func (p *Poller) Write(b []byte) (int, error) {
	done := 0
	var werr error
	err := p.WaitWrite(func(fd int) bool {
		for done < len(b) {
			n, err := Write(fd, b[done:])
			switch err {
			case nil:
				done += n
			case unix.EINTR:
			case unix.EAGAIN:
				return false
			default:
				werr = err
				return true
			}
		}
		return true
	})
	if err == nil {
		err = werr
	}
	return done, err
}

// WaitWrite calls f with the descriptor until it returns true, waiting in
// the netpoller for room each time it returns false (f writes without
// waiting, and returns false when the descriptor is full: EAGAIN). The
// descriptor is registered for output only meanwhile. Do calls may run
// while it waits.
func (p *Poller) WaitWrite(f func(fd int) bool) error {
	var werr error
	err := p.rc.Read(func(uintptr) bool { // the epoll instance is "readable" when fd has room
		if f(p.fd) {
			return true
		}
		if !p.armed {
			if err := unix.EpollCtl(p.epfd(), unix.EPOLL_CTL_ADD, p.fd,
				&unix.EpollEvent{Events: unix.EPOLLOUT, Fd: int32(p.fd)}); err != nil {
				werr = os.NewSyscallError("epoll_ctl", err)
				return true
			}
			// Level-triggered: if room came since f's attempt, the
			// registration makes the epoll instance ready at once.
			p.armed = true
		}
		return false
	})
	if p.armed {
		unix.EpollCtl(p.epfd(), unix.EPOLL_CTL_DEL, p.fd, nil)
		p.armed = false
	}
	if err == nil {
		err = werr
	}
	return err
}

func (p *Poller) epfd() int {
	fd := -1
	p.rc.Control(func(u uintptr) { fd = int(u) })
	return fd
}

// Do calls f with the descriptor unless the Poller is closed (ErrClosed),
// and Close waits for it: f may use the descriptor (a non-blocking write
// that does not wait).
func (p *Poller) Do(f func(fd int)) error {
	return p.rc.Control(func(uintptr) { f(p.fd) })
}

// Close closes the epoll instance, after the calls in progress: the
// descriptor can be closed then.
func (p *Poller) Close() error { return p.ep.Close() }
