// Package rawio reads and writes non-blocking file descriptors with raw
// system calls, waiting for readiness in the Go netpoller.
//
// The keystroke path's reads and writes (a session's pty, the sockets
// between a supervisor and its clients, an attached terminal) are on
// non-blocking file descriptors, so they never wait in the kernel. Made as
// raw system calls they skip the scheduler's entersyscall/exitsyscall. A
// plain system call that finds the runtime's monitor thread (sysmon) asleep
// wakes it, and on an otherwise idle process every keystroke did so on each
// hop, on the way in and on the way out: a futex wake, then a thread napping
// in 20 µs steps until the process is idle again — CPU taken from the
// program, the client and the terminal on a small machine (heimdall-loadcheck
// -only rtt reports it as CPU µs/key). Waiting for readiness stays with the
// netpoller (syscall.RawConn's Read and Write), so deadlines, Close and
// parking on EAGAIN behave as with os.File and net.Conn.
//
// Only for file descriptors in non-blocking mode: a raw call that blocked
// would hold its P and stall the garbage collector.
package rawio

import (
	"io"
	"os"
	"strconv"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Read is read(2) as a raw system call.
func Read(fd int, p []byte) (int, error) { return rw(unix.SYS_READ, fd, p) }

// Write is write(2) as a raw system call.
func Write(fd int, p []byte) (int, error) { return rw(unix.SYS_WRITE, fd, p) }

func rw(trap uintptr, fd int, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n, _, e := unix.RawSyscall(trap, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

// WritevMax is how many segments one Writev writes at most.
const WritevMax = 64

// Writev is writev(2) of the first WritevMax segments of bufs (empty ones
// skipped) as a raw system call.
func Writev(fd int, bufs [][]byte) (int, error) {
	var iov [WritevMax]unix.Iovec
	k := 0
	for _, s := range bufs {
		if k == len(iov) {
			break
		}
		if len(s) > 0 {
			iov[k].Base = &s[0]
			iov[k].SetLen(len(s))
			k++
		}
	}
	if k == 0 {
		return 0, nil
	}
	n, _, e := unix.RawSyscall(unix.SYS_WRITEV, uintptr(fd), uintptr(unsafe.Pointer(&iov[0])), uintptr(k))
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

// Conn is a non-blocking file descriptor's RawConn, read and written with
// raw system calls. It is an io.Reader and an io.Writer.
type Conn struct{ RC syscall.RawConn }

// Of returns a Conn for c (an *os.File or a net.Conn) if it has a file
// descriptor the netpoller watches (a non-blocking one).
func Of(c any) (Conn, bool) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return Conn{}, false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return Conn{}, false
	}
	nonblock := false
	if rc.Control(func(fd uintptr) {
		fl, err := unix.FcntlInt(fd, unix.F_GETFL, 0)
		nonblock = err == nil && fl&unix.O_NONBLOCK != 0
	}) != nil || !nonblock {
		return Conn{}, false
	}
	return Conn{rc}, true
}

// Read reads what is there, waiting in the netpoller while nothing is.
// At end of input it returns io.EOF.
func (c Conn) Read(p []byte) (int, error) { return c.readFD(-1, p) }

// readFD is Read of fd, or of c's own descriptor if fd is -1, waiting for
// c's readiness.
func (c Conn) readFD(fd int, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	var n int
	var rerr error
	err := c.RC.Read(func(own uintptr) bool {
		rfd := fd
		if rfd < 0 {
			rfd = int(own)
		}
		for {
			n, rerr = Read(rfd, p)
			if rerr != unix.EINTR {
				return rerr != unix.EAGAIN
			}
		}
	})
	return readResult(n, err, rerr)
}

// Write writes all of p, waiting in the netpoller while the file is full.
func (c Conn) Write(p []byte) (int, error) {
	done := 0
	var werr error
	err := c.RC.Write(func(fd uintptr) bool {
		for done < len(p) {
			n, err := Write(int(fd), p[done:])
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

// Reopen opens f's file again, as a new open file description in
// non-blocking mode that the netpoller watches, for raw reads or writes
// (flag: os.O_RDONLY or os.O_WRONLY). The file status flags belong to the
// description, so f's own (shared with the shell that started us, for a
// terminal) stay as they are. It fails for what cannot be opened by path
// (a socket) or polled (a regular file). Close the result when done.
func Reopen(f *os.File, flag int) (*os.File, Conn, error) {
	fd, err := ReopenFD(f, flag)
	if err != nil {
		return nil, Conn{}, err
	}
	nf := os.NewFile(uintptr(fd), f.Name()) // non-blocking: the netpoller's
	c, ok := Of(nf)
	if !ok {
		nf.Close()
		return nil, Conn{}, &os.PathError{Op: "reopen", Path: f.Name(), Err: unix.EPERM}
	}
	return nf, c, nil
}

// ReopenFD is Reopen's new description as a bare descriptor (close-on-exec,
// unknown to the netpoller), for handing over to another process: a
// descriptor this process's netpoller watched would wake it for every
// readiness change the other process causes. Close it with unix.Close.
func ReopenFD(f *os.File, flag int) (int, error) {
	var fd int
	var ctlErr error
	rc, err := f.SyscallConn()
	if err != nil {
		return -1, err
	}
	err = rc.Control(func(u uintptr) {
		fd, ctlErr = unix.Open("/proc/self/fd/"+strconv.Itoa(int(u)), flag|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
	})
	if err == nil {
		err = ctlErr
	}
	if err != nil {
		return -1, err
	}
	return fd, nil
}

// Recvmsg is recvmsg(2) of one buffer as a raw system call, with file
// descriptors received close-on-exec: it returns the data and control
// lengths read.
func Recvmsg(fd int, p, oob []byte) (n, oobn int, err error) {
	if len(p) == 0 {
		return 0, 0, nil
	}
	var iov unix.Iovec
	iov.Base = &p[0]
	iov.SetLen(len(p))
	var msg unix.Msghdr
	msg.Iov = &iov
	msg.SetIovlen(1)
	if len(oob) > 0 {
		msg.Control = &oob[0]
		msg.SetControllen(len(oob))
	}
	r, _, e := unix.RawSyscall(unix.SYS_RECVMSG, uintptr(fd), uintptr(unsafe.Pointer(&msg)), unix.MSG_CMSG_CLOEXEC)
	if e != 0 {
		return 0, 0, e
	}
	return int(r), int(msg.Controllen), nil
}

// maxFDs bounds the descriptors an FDConn keeps for its owner to claim;
// the kernel closes those beyond its control buffer, FDConn those beyond
// what it keeps.
const maxFDs = 4

// FDConn reads a Unix socket as Conn does, with recvmsg: the descriptors a
// peer sends with its data (SCM_RIGHTS) are kept until Take (at most a few;
// the rest are closed). Close those left with CloseFDs. Not safe for
// concurrent use.
type FDConn struct {
	Conn
	oob [64]byte // room for maxFDs descriptors (unix.CmsgSpace(4*maxFDs) = 32)
	fds []int
}

// Read implements io.Reader.
func (c *FDConn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	var n, oobn int
	var rerr error
	err := c.RC.Read(func(fd uintptr) bool {
		for {
			n, oobn, rerr = Recvmsg(int(fd), p, c.oob[:])
			if rerr != unix.EINTR {
				return rerr != unix.EAGAIN
			}
		}
	})
	if oobn > 0 {
		c.keep(c.oob[:oobn])
	}
	return readResult(n, err, rerr)
}

func (c *FDConn) keep(oob []byte) {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return
	}
	for _, m := range msgs {
		fds, err := unix.ParseUnixRights(&m)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			if len(c.fds) < maxFDs {
				c.fds = append(c.fds, fd)
			} else {
				unix.Close(fd)
			}
		}
	}
}

// Take returns the descriptors received so far (the caller owns them) and
// forgets them.
func (c *FDConn) Take() []int {
	fds := c.fds
	c.fds = nil
	return fds
}

// CloseFDs closes the descriptors received and not taken.
func (c *FDConn) CloseFDs() {
	for _, fd := range c.Take() {
		unix.Close(fd)
	}
}

// readResult is a read's outcome: the poller's error (closed, deadline),
// else the system call's, else EOF for 0 bytes.
func readResult(n int, err, rerr error) (int, error) {
	if err != nil {
		return 0, err
	}
	if rerr != nil {
		return 0, rerr
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}
