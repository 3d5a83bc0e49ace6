package fleet

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/launch"
	"github.com/heimdall-tui/heimdall-tui/backend/remote"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/wire/frame"
	"github.com/heimdall-tui/heimdall-tui/wire/mux"
)

// HostOptions configure a followed host.
type HostOptions struct {
	// Name is the host's name in the config; its sessions are listed as
	// NAME:ID.
	Name   string
	Remote remote.Options
	// Redial is the first wait before connecting again after the link
	// failed (0: 250 ms); each failure doubles it, up to 40 times it.
	Redial time.Duration
}

// HostInfo is a followed host at an instant.
type HostInfo struct {
	Name string `json:"name"`
	Dest string `json:"ssh"`
	Up   bool   `json:"up"`
	// Err is why the host is down: what ssh said ("" while it is up, or
	// before the first attempt ended).
	Err      string    `json:"error,omitempty"`
	Sessions int       `json:"sessions"`
	Since    time.Time `json:"since"` // when Up last changed
}

// Host follows the sessions of another machine over one ssh connection
// (backend/remote: `ssh DEST heimdall mux`, every session a channel of
// it): each session of the host's socket dir is a member of the fleet,
// listed as NAME:ID with Info.Host set, followed as a local one is (the
// pushes and the screen pull), and driven the same way (send, resize,
// kill, answer; attach relays the keys: a terminal cannot be handed over
// ssh). When the link drops its sessions leave the list (they go on on the
// host), the host shows as down with ssh's words, and the link is made
// again with a backoff; the sessions then come back with their screens.
type Host struct {
	f    *Fleet
	opt  HostOptions
	stop chan struct{}
	once sync.Once
	done chan struct{}
	told *queue[mux.Sessions] // announcements of the link not yet handled

	mu      sync.Mutex
	link    *remote.Link
	info    HostInfo
	members map[string]bool // remote ids listed
}

// FollowHost starts following the host in f, in the background: a host
// that cannot be reached is listed as down (Info) and tried again.
func (f *Fleet) FollowHost(opt HostOptions) *Host {
	if opt.Redial <= 0 {
		opt.Redial = 250 * time.Millisecond
	}
	h := &Host{f: f, opt: opt, stop: make(chan struct{}), done: make(chan struct{}), told: newQueue[mux.Sessions](),
		members: map[string]bool{}, info: HostInfo{Name: opt.Name, Dest: opt.Remote.Dest, Since: time.Now()}}
	f.mu.Lock()
	f.hosts = append(f.hosts, h)
	f.mu.Unlock()
	go h.loop()
	return h
}

// Hosts lists the hosts followed (FollowHost), in the order they were
// added.
func (f *Fleet) Hosts() []HostInfo {
	f.mu.Lock()
	hs := slices.Clone(f.hosts)
	f.mu.Unlock()
	out := make([]HostInfo, len(hs))
	for i, h := range hs {
		out[i] = h.Info()
	}
	return out
}

// changedHost tells the fleet's readers a host's state changed (a lossy
// Changed of no session: they read Hosts again).
func (f *Fleet) changedHost(name string) {
	f.broker.PublishLossy("host\x00"+name, session.Event{Kind: session.Changed})
}

// Info is the host's state.
func (h *Host) Info() HostInfo {
	h.mu.Lock()
	defer h.mu.Unlock()
	in := h.info
	in.Sessions = len(h.members)
	return in
}

// Close stops following: the link ends (the host's sessions go on) and
// its sessions leave the list.
func (h *Host) Close() {
	h.once.Do(func() { close(h.stop) })
	<-h.done
}

func (h *Host) log() *slog.Logger { return h.f.log.With("host", h.opt.Name) }

func (h *Host) loop() {
	defer close(h.done)
	wait := h.opt.Redial
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		go func() {
			select {
			case <-h.stop:
				cancel()
			case <-ctx.Done():
			}
		}()
		link, err := remote.Connect(ctx, h.opt.Remote, h.announce)
		cancel()
		if err != nil {
			h.setUp(false, err)
			h.log().Info("host not reached", "err", err)
			select {
			case <-h.stop:
				return
			case <-time.After(wait):
			}
			wait = min(2*wait, 40*h.opt.Redial)
			continue
		}
		wait = h.opt.Redial
		h.mu.Lock()
		h.link = link
		h.mu.Unlock()
		h.log().Info("host connected", "dest", h.opt.Remote.Dest, "dir", link.Hello().Dir)
		stopped := h.serve(link)
		h.dropAll()
		link.Close()
		if stopped {
			return
		}
		err = link.Err()
		if err == nil || errors.Is(err, mux.ErrClosed) {
			err = errors.New("the connection ended") // the far end's EOF: no word from ssh
		}
		h.setUp(false, err)
		h.log().Info("host link ended; connecting again", "err", err)
	}
}

// serve lists the sessions link announces until it ends (false) or Close
// (true). The host is up once the first announcement's sessions are
// listed.
func (h *Host) serve(link *remote.Link) bool {
	up := false
	for {
		select {
		case <-h.told.Ready():
			for _, n := range h.told.take() {
				for _, id := range n.Removed {
					h.drop(id)
				}
				for _, id := range n.Added {
					h.add(link, id)
				}
			}
			if !up {
				up = true
				h.setUp(true, nil)
			}
		case <-link.Done():
			return false
		case <-h.stop:
			return true
		}
	}
}

// announce queues an announcement (the link's reader: adding a session
// dials over the link, which that reader serves).
func (h *Host) announce(s mux.Sessions) { h.told.push(s) }

func (h *Host) setUp(up bool, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.info.Up != up {
		h.info.Since = time.Now()
	}
	h.info.Up, h.info.Err = up, ""
	if err != nil && !errors.Is(err, mux.ErrClosed) {
		h.info.Err = err.Error()
	}
	h.f.changedHost(h.opt.Name)
}

// id is remote session rid's id in the fleet.
func (h *Host) id(rid string) string { return h.opt.Name + ":" + rid }

// add lists remote session rid, followed over a channel of link.
func (h *Host) add(link *remote.Link, rid string) {
	id := h.id(rid)
	h.f.dropEnded(id) // an ended session of that ID: it was run again there
	err := h.f.Add(id, func(id string, r Reporter) (Member, error) { return h.dial(link, rid, r) })
	if err != nil {
		h.log().Info("remote session not listed", "session", rid, "err", err)
		return
	}
	h.mu.Lock()
	h.members[rid] = true
	h.mu.Unlock()
}

// dial follows remote session rid over a channel of link, reporting to r.
func (h *Host) dial(link *remote.Link, rid string, r Reporter) (Member, error) {
	m, err := dialSock(channelDialer{link: link, id: rid, host: h.opt.Name}, r, h.f.idle)
	if err != nil {
		return nil, err
	}
	x := m.base()
	x.log = h.log()
	x.info.ID, x.info.Host, x.info.Started = h.id(rid), h.opt.Name, time.Now()
	m.start()
	return hostSock{m, h, rid, launch.Again}, nil
}

// hostSock is a session of another host: restarted there, from its
// record there (RUN with restart), never from anything of this machine.
type hostSock struct {
	sockMember
	h   *Host
	rid string
	how string // launch.Again, Resume or Fresh
}

func (x hostSock) Restart(r Reporter) (Member, error) { return x.h.restart(x.rid, x.how, r) }

func (x hostSock) restartAs(how string) Restarter {
	x.how = how
	return x
}

// restart starts remote session rid again as how says, once it has ended
// there, and follows the new one.
func (h *Host) restart(rid, how string, r Reporter) (Member, error) {
	h.mu.Lock()
	link := h.link
	h.mu.Unlock()
	if in := h.Info(); link == nil || !in.Up {
		return nil, fmt.Errorf("restart %s: the host is down: %s", h.id(rid), in.Err)
	}
	if _, err := link.Run(mux.RunRequest{ID: rid, Restart: how}); err != nil {
		return nil, fmt.Errorf("restart %s: %w", h.id(rid), err)
	}
	m, err := h.dial(link, rid, r)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	h.members[rid] = true
	h.mu.Unlock()
	return m, nil
}

// drop forgets remote session rid: the host no longer serves it, or the
// link ended. Its member ends by itself as its channel does (after the
// session's EXIT, if it ended: it is then listed as Dead).
func (h *Host) drop(rid string) {
	h.mu.Lock()
	delete(h.members, rid)
	h.mu.Unlock()
}

// dropAll unlists every session of the host.
func (h *Host) dropAll() {
	h.mu.Lock()
	rids := make([]string, 0, len(h.members))
	for rid := range h.members {
		rids = append(rids, rid)
	}
	h.mu.Unlock()
	slices.Sort(rids)
	for _, rid := range rids {
		h.drop(rid)
	}
}

// channelDialer dials a remote session: a channel of the host's link.
type channelDialer struct {
	link     *remote.Link
	id, host string
}

func (d channelDialer) Dial(timeout time.Duration) (*frame.Client, error) {
	conn, err := d.link.Dial(d.id)
	if err != nil {
		return nil, err
	}
	return frame.NewClient(conn, timeout)
}
func (d channelDialer) Local() bool    { return false }
func (d channelDialer) String() string { return d.host + ":" + d.id }
func (d channelDialer) attachCommand(detach byte) []string {
	return d.link.AttachCommand(d.id, detach)
}

// hostSpawnWait bounds how long a spawn on a host waits for the session
// to be listed once the host has started it.
const hostSpawnWait = 10 * time.Second

// hostOf is the followed host whose sessions' IDs id has the prefix of
// (NAME:), and the rest of id.
func (f *Fleet) hostOf(id string) (*Host, string, bool) {
	name, rid, ok := strings.Cut(id, ":")
	if !ok {
		return nil, "", false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, h := range f.hosts {
		if h.opt.Name == name {
			return h, rid, true
		}
	}
	return nil, "", false
}

// spawn starts spec on the host under rid ("": its preset's name and
// the lowest free -N there), resolved there: a preset's command,
// classifier and environment are the host's (a command of no preset is
// sent as given), and the directory is the host's user's home unless the
// host has spec's. It returns the fleet ID once the session is listed.
func (h *Host) spawn(spec Spec, rid string) (string, error) {
	h.mu.Lock()
	link := h.link
	h.mu.Unlock()
	if in := h.Info(); link == nil || !in.Up {
		return "", fmt.Errorf("spawn on %s: the host is down: %s", h.opt.Name, in.Err)
	}
	sub := h.f.Subscribe()
	defer sub.Close()
	req := mux.RunRequest{ID: rid, Preset: spec.Agent, Dir: spec.Dir, Cols: spec.Cols, Rows: spec.Rows}
	if spec.Agent == "" {
		req.Argv = spec.Argv
	}
	started, err := link.Run(req)
	if err != nil {
		return "", fmt.Errorf("spawn on %s: %w", h.opt.Name, err)
	}
	id := h.id(started)
	ctx, cancel := context.WithTimeout(context.Background(), hostSpawnWait)
	defer cancel()
	for {
		if _, err := h.f.get(id); err == nil {
			return id, nil
		}
		if _, err := sub.Next(ctx); err != nil {
			return "", fmt.Errorf("spawn on %s: %s started but is not listed: %w", h.opt.Name, started, err)
		}
	}
}
