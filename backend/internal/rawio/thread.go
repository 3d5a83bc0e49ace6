package rawio

import (
	"errors"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// ErrCanceled is returned by Waiter.Wait once the Waiter is canceled.
var ErrCanceled = errors.New("rawio: wait canceled")

// Waiter waits for a non-blocking file descriptor to become readable in a
// blocking poll(2) on the waiting goroutine's own thread, instead of in the
// netpoller: the kernel then wakes that thread directly when input comes,
// and the goroutine goes on to read and write without the scheduler's
// hand-off (epoll_wait on whichever thread polls, findRunnable, waking
// another thread to look for work). The thread is held by the wait, so a
// Waiter is for the few loops on the keystroke path, not for every
// connection. While it waits the thread keeps its P until the runtime's
// monitor retakes it (after 10 ms idle, or at once when other goroutines
// need it), which it does only while awake: a Waiter keeps the monitor from
// sleeping for those 10 ms after each input.
//
// Cancel wakes a wait in progress and makes every later Wait return
// ErrCanceled at once; callers then fall back to the netpoller (see
// Reader). A descriptor must not be closed while a Wait on it is in
// progress: os.File and net.Conn Close wait for it (the wait holds a
// reference, as any of their operations does), so cancel first.
type Waiter struct {
	mu       sync.Mutex
	efd      int // eventfd that Cancel writes; -1 once closed
	waiting  bool
	canceled bool
}

// NewWaiter returns a Waiter; it holds an eventfd until canceled.
func NewWaiter() (*Waiter, error) {
	efd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		return nil, err
	}
	return &Waiter{efd: efd}, nil
}

// Wait blocks the calling goroutine's thread until rc's descriptor is
// readable (or at end of input, or in error: the read that follows tells)
// or the Waiter is canceled (ErrCanceled). It returns rc's error if rc is
// closed.
func (w *Waiter) Wait(rc syscall.RawConn) error {
	w.mu.Lock()
	if w.canceled {
		w.mu.Unlock()
		return ErrCanceled
	}
	w.waiting = true
	efd := w.efd
	w.mu.Unlock()

	var canceled bool
	err := rc.Control(func(fd uintptr) {
		fds := [2]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}, {Fd: int32(efd), Events: unix.POLLIN}}
		for {
			// A plain (not raw) system call: the thread blocks in the
			// kernel, and the runtime must know so (entersyscall) to run
			// other goroutines and to stop the world without it.
			_, _, e := unix.Syscall6(unix.SYS_PPOLL, uintptr(unsafe.Pointer(&fds[0])), 2, 0, 0, 0, 0)
			if e == 0 || e != unix.EINTR {
				break
			}
		}
		canceled = fds[1].Revents != 0
	})

	w.mu.Lock()
	defer w.mu.Unlock()
	w.waiting = false
	if w.canceled {
		w.closeLocked()
		return ErrCanceled
	}
	if err == nil && canceled {
		return ErrCanceled // cannot happen: only Cancel writes efd
	}
	return err
}

// Cancel ends a wait in progress and every later one. It may be called
// from any goroutine, any number of times.
func (w *Waiter) Cancel() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.canceled {
		return
	}
	w.canceled = true
	if w.waiting {
		var one = [8]byte{1}
		unix.Write(w.efd, one[:]) // the waiter closes efd when it wakes
		return
	}
	w.closeLocked()
}

func (w *Waiter) closeLocked() {
	if w.efd >= 0 {
		unix.Close(w.efd)
		w.efd = -1
	}
}

// Reader reads a non-blocking descriptor with raw system calls, waiting for
// input on its own thread (Waiter) until canceled, then in the netpoller as
// Conn does. Only one goroutine may read at a time.
type Reader struct {
	Conn
	W *Waiter
}

// Read reads what is there, waiting while nothing is. At end of input it
// returns io.EOF.
func (r Reader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		err := r.W.Wait(r.RC)
		if err == ErrCanceled {
			return r.Conn.Read(p)
		}
		if err != nil {
			return 0, err
		}
		var n int
		var rerr error
		if cerr := r.RC.Control(func(fd uintptr) { n, rerr = readOnce(int(fd), p) }); cerr != nil {
			return 0, cerr
		}
		if rerr != unix.EAGAIN { // EAGAIN: readable no more (another reader?): wait again
			return n, rerr
		}
	}
}
