// Package webterm serves the fleet's pty sessions to browsers over the
// WebSocket terminal protocol (wire/wsterm, PROTOCOL.md there), and the
// page that speaks it (webterm/page). It keeps no session table of its
// own: /ws/{id} joins the fleet's session of that id — started from the
// dashboard, `run` or an earlier browser — or starts one in the fleet, so
// sessions started in a browser show in the dashboard and vice versa. What
// only the protocol knows (a session's name, its viewers and their sizes,
// YOLO mode) is kept here per session id.
//
// Each viewer follows its session's output over a connection of its own
// to the session's supervisor (fleet.Output): a repaint, sent to a joining
// viewer as a gzip snapshot, then the output from exactly there. Nothing a
// viewer does waits for another viewer or holds up the pty: every message
// to a client goes through its own bounded queue, and a client that lets
// it fill is disconnected (its page reconnects and gets a fresh snapshot).
//
// The Server is shaped like net/http.Server: Handler, ListenAndServe,
// Serve, Shutdown, Close, ErrServerClosed.
package webterm

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/answer"
	"github.com/heimdall-tui/heimdall-tui/backend/fleet"
	"github.com/heimdall-tui/heimdall-tui/backend/pubsub"
	"github.com/heimdall-tui/heimdall-tui/backend/push"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/backend/webterm/page"
)

// Fleet is what the server needs of the fleet; *fleet.Fleet has it.
type Fleet interface {
	Spawn(spec fleet.Spec) (string, error)
	Sessions() []session.Info
	Send(id string, in session.Input) error
	Resize(id string, cols, rows uint16) error
	Output(id string, interactive bool) (*fleet.Output, error)
	Replace(ctx context.Context, id string, spec fleet.Spec) error
	Presets() []fleet.Preset
	Prompt(id string) (answer.Prompt, error)
	Peek(id string, n int) ([]string, error)
	// Subscribe is a reader of the fleet's events of its own (the push
	// watcher's).
	Subscribe() *pubsub.Sub[session.Event]
	Answer(id string, c answer.Choice, question string) (answer.Given, error)
}

// ErrServerClosed is returned by Serve and ListenAndServe after Shutdown
// or Close.
var ErrServerClosed = http.ErrServerClosed

// ErrTokenRequired is returned by New when Options.Token is empty and
// Options.NoToken is not set, and by Serve for a listener on an address
// other than loopback when NoToken is set: anyone who can reach it could
// type into the sessions.
var ErrTokenRequired = errors.New("webterm: a token is required")

// DefaultAddr is where `heimdall-tui web` listens by default.
const DefaultAddr = "127.0.0.1:1977"

// DefaultUploadLimit is the largest upload (file data) a client may send
// unless Options.UploadLimit says otherwise.
const DefaultUploadLimit = 32 << 20

// Options configure a Server.
type Options struct {
	Fleet Fleet  // required
	Addr  string // ListenAndServe's address ("" = DefaultAddr)
	// Token is required of every request (New refuses an empty one unless
	// NoToken): as ?token= (a page's first request: the server answers
	// with an HttpOnly, SameSite=Strict cookie that lasts cookieLife from
	// the page's last visit, and a redirect to the same URL without it),
	// as "Authorization: Bearer TOKEN" (other clients), or
	// as that cookie.
	Token string
	// NoToken serves without a token. Serve refuses it off loopback; on
	// loopback it lets every local user and every local process (any
	// uid) use the sessions. The Host check still holds.
	NoToken bool
	// Hosts are the names a request's Host may give besides the defaults:
	// "localhost" and "*.localhost", loopback IPs, and, once a listener
	// off loopback is served, any IP literal (a DNS rebinding attack
	// needs a name). Patterns use path.Match syntax ("*.example.com"); a
	// port in Host is not compared.
	Hosts []string
	// Origins are the browser origins allowed besides the page's own host
	// (a WebSocket whose Origin names another host is refused): host
	// patterns ("example.com", "*.example.com:8443") or, with "://",
	// scheme://host patterns (path.Match syntax).
	Origins []string
	// Dir is the working directory of sessions started here ("" = this
	// process's).
	Dir string
	// Custom is the command line of the assistant "custom" (display name
	// "Custom"), from `web --shell`; nil: there is none.
	Custom []string
	// UploadLimit caps an upload's data in bytes (0 = DefaultUploadLimit);
	// the connection's read limit is sized from it.
	UploadLimit int64
	// QueueLimit is how many bytes may wait to be sent to one client: the
	// session's output waits for the client beyond it, and a client whose
	// queue stays over it for WriteTimeout, or reaches twice it, is
	// disconnected (0 = 8 MiB).
	QueueLimit int
	// QueueBudget is how many bytes may wait for all clients together: over
	// it, output waits for every client that has any queued (a client that
	// keeps up still gets its session's output), and over twice it a
	// client that is behind is disconnected (0 = 64 MiB).
	QueueBudget int64
	// MaxClients caps the WebSockets open at once; one more is refused
	// (503) with the reason (0 = 64). Each holds a connection to its
	// session's supervisor.
	MaxClients int
	// WriteTimeout bounds one message's write to a client, and the wait
	// for a full queue to drain (0 = 10 s).
	WriteTimeout time.Duration
	// Push, if set, is Web Push: pages may subscribe (GET /api/push for
	// the key, POST /api/push/subscribe), and every new inbox item of a
	// session no page views is pushed to them.
	Push   *push.Service
	Logger *slog.Logger // nil: discarded
}

// Server serves the page, the session list and the WebSocket terminals.
type Server struct {
	opts Options
	log  *slog.Logger
	// presets is the fleet's presets as the server started: the
	// assistants' names and YOLO commands for status messages (Presets
	// looks every program up on PATH; the list and starts ask afresh).
	presets []fleet.Preset
	hs      *http.Server
	mux     *http.ServeMux
	// public is set once a listener off loopback is served: IP literals
	// other than loopback ones are then good names for it.
	public atomic.Bool
	// queued is what waits in every client's queue together.
	queued atomic.Int64

	mu       sync.Mutex
	sessions map[string]*sess // by session id: viewers, name, YOLO mode
	clients  map[*client]bool // every open WebSocket
	conns    sync.WaitGroup   // WebSocket handlers running
	active   int              // of them
	closed   bool
	starting map[string]*sync.Mutex // session ids being started from here

	stopPush context.CancelFunc // ends pushInbox (nil: no push)
	pushDone chan struct{}
}

// New returns a Server for opts.
func New(opts Options) (*Server, error) {
	if opts.Fleet == nil {
		return nil, errors.New("webterm: no fleet")
	}
	if opts.Addr == "" {
		opts.Addr = DefaultAddr
	}
	if opts.UploadLimit <= 0 {
		opts.UploadLimit = DefaultUploadLimit
	}
	if opts.QueueLimit <= 0 {
		opts.QueueLimit = 8 << 20
	}
	if opts.QueueBudget <= 0 {
		opts.QueueBudget = 64 << 20
	}
	if opts.MaxClients <= 0 {
		opts.MaxClients = 64
	}
	if opts.WriteTimeout <= 0 {
		opts.WriteTimeout = 10 * time.Second
	}
	if opts.Token == "" && !opts.NoToken {
		return nil, ErrTokenRequired
	}
	opts.Origins = slices.Clone(opts.Origins)
	opts.Hosts = slices.Clone(opts.Hosts)
	opts.Custom = slices.Clone(opts.Custom)
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{opts: opts, log: log, presets: opts.Fleet.Presets(), sessions: map[string]*sess{}, clients: map[*client]bool{}, starting: map[string]*sync.Mutex{}}
	s.mux = http.NewServeMux()
	static, err := fs.Sub(page.Files, "static")
	if err != nil {
		return nil, err
	}
	s.mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	s.mux.HandleFunc("GET /{$}", pageFile("index.html", "text/html; charset=utf-8"))
	s.mux.HandleFunc("GET /api/sessions", s.serveSessions)
	s.mux.HandleFunc("POST /api/sessions", s.createSession)
	s.mux.HandleFunc("GET /ws/{id}", s.serveWS)
	s.mux.HandleFunc("GET /api/inbox", s.serveInbox)
	s.mux.HandleFunc("POST /api/sessions/{id}/answer", s.answerSession)
	s.mux.HandleFunc("GET /api/push", s.servePushKey)
	s.mux.HandleFunc("POST /api/push/subscribe", s.subscribePush)
	s.mux.HandleFunc("POST /api/push/unsubscribe", s.unsubscribePush)
	s.mux.HandleFunc("GET /sw.js", pageFile("sw.js", "text/javascript; charset=utf-8"))
	s.hs = &http.Server{Addr: opts.Addr, Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelDebug)}
	s.hs.RegisterOnShutdown(s.closeClients)
	s.public.Store(!Loopback(opts.Addr))
	if opts.Push != nil {
		ctx, cancel := context.WithCancel(context.Background())
		s.stopPush = cancel
		s.pushDone = make(chan struct{})
		go func() {
			defer close(s.pushDone)
			s.pushInbox(ctx)
		}()
	}
	return s, nil
}

// NewToken returns a random token (32 hex digits) for Options.Token.
func NewToken() string {
	b := make([]byte, 16)
	rand.Read(b) // never fails (crypto/rand)
	return hex.EncodeToString(b)
}

// Loopback reports whether addr (host:port, as for net.Listen) listens on
// loopback only: a loopback IP or "localhost". An empty host (every
// address) is not.
func Loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// Handler returns the server's handler: the Host check and the token
// check, then the page (GET /, /static/), the session list (GET
// /api/sessions) and the terminals (GET /ws/{id}?assistant=KEY).
func (s *Server) Handler() http.Handler { return http.HandlerFunc(s.authorize) }

// tokenCookie is the cookie that carries the token after a page's first
// request, named for the port the browser used: browsers send a host's
// cookies to every port of it, so a server of another user on another
// port of localhost must not be sent this one's.
func tokenCookie(r *http.Request) string {
	_, port, err := net.SplitHostPort(r.Host)
	if err != nil || port == "" {
		port = "80"
	}
	return "heimdall_web_" + port
}

// authorize refuses a request for a Host the server does not answer to
// (DNS rebinding: a foreign page whose name now resolves here) and one
// without the token, before any handler runs. Neither the token nor the
// query is ever logged.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	if !s.hostOK(r.Host) {
		s.log.Info("web request refused: host not served", "remote", r.RemoteAddr, "host", r.Host, "path", r.URL.Path)
		http.Error(w, "this server does not answer to host "+strconv.Quote(r.Host)+" (config [web] hosts adds names)", http.StatusForbidden)
		return
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if s.opts.Token == "" {
		s.mux.ServeHTTP(w, r)
		return
	}
	q := r.URL.Query()
	given, from := q.Get("token"), "query"
	if given == "" {
		given, from = strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "), "header"
	}
	if given == "" {
		if c, err := r.Cookie(tokenCookie(r)); err == nil {
			given, from = c.Value, "cookie"
		}
	}
	if subtle.ConstantTimeCompare([]byte(given), []byte(s.opts.Token)) != 1 {
		s.log.Info("web request refused: no valid token", "remote", r.RemoteAddr, "path", r.URL.Path)
		http.Error(w, "a valid token is required: open the URL `heimdall-tui web` printed", http.StatusUnauthorized)
		return
	}
	if from == "query" && r.Method == http.MethodGet && !isUpgrade(r) {
		// A page's first request: the token becomes a cookie and leaves
		// the address bar (and the history) at once.
		setTokenCookie(w, r, given)
		q.Del("token")
		u := *r.URL
		u.RawQuery = q.Encode()
		http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
		return
	}
	if from == "cookie" && r.Method == http.MethodGet && r.URL.Path == "/" {
		setTokenCookie(w, r, given) // each visit of the page keeps it another cookieLife
	}
	s.mux.ServeHTTP(w, r)
}

// cookieLife is how long a device stays signed in after it last opened
// the page. The cookie outlives the browser's session so that a
// notification tapped after the browser was closed (Web Push) opens the
// session's page rather than asking for the token's URL again.
const cookieLife = 30 * 24 * time.Hour

// setTokenCookie gives the browser the token as an HttpOnly, SameSite=Strict
// cookie (Secure when served over TLS) that lasts cookieLife.
func setTokenCookie(w http.ResponseWriter, r *http.Request, token string) {
	http.SetCookie(w, &http.Cookie{Name: tokenCookie(r), Value: token, Path: "/", MaxAge: int(cookieLife / time.Second),
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
}

// isUpgrade reports a WebSocket handshake.
func isUpgrade(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
}

// hostOK reports whether the server answers to host (a Host header:
// name or IP, maybe with a port).
func (s *Server) hostOK(host string) bool {
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	}
	name = strings.ToLower(strings.TrimSuffix(name, "."))
	if ip, err := netip.ParseAddr(strings.Trim(name, "[]")); err == nil {
		return ip.IsLoopback() || s.public.Load()
	}
	if name == "localhost" || strings.HasSuffix(name, ".localhost") {
		return true // browsers resolve these to loopback themselves
	}
	for _, p := range s.opts.Hosts {
		if ok, _ := path.Match(strings.ToLower(p), name); ok {
			return true
		}
	}
	return false
}

// ListenAndServe listens on Options.Addr and serves.
func (s *Server) ListenAndServe() error {
	l, err := net.Listen("tcp", s.opts.Addr)
	if err != nil {
		return err
	}
	return s.Serve(l)
}

// Serve serves on l until Shutdown or Close (then ErrServerClosed). A
// listener on a non-loopback address with NoToken is refused
// (ErrTokenRequired) and closed.
func (s *Server) Serve(l net.Listener) error {
	if !Loopback(l.Addr().String()) {
		if s.opts.Token == "" {
			l.Close()
			return fmt.Errorf("%w to serve on %s (not loopback)", ErrTokenRequired, l.Addr())
		}
		s.public.Store(true)
	}
	return s.hs.Serve(l)
}

// ServeTLS is Serve over TLS with the certificate and key in certFile and
// keyFile (PEM), as net/http.Server.ServeTLS.
func (s *Server) ServeTLS(l net.Listener, certFile, keyFile string) error {
	if !Loopback(l.Addr().String()) {
		if s.opts.Token == "" {
			l.Close()
			return fmt.Errorf("%w to serve on %s (not loopback)", ErrTokenRequired, l.Addr())
		}
		s.public.Store(true)
	}
	return s.hs.ServeTLS(l, certFile, keyFile)
}

// Shutdown stops accepting, closes every WebSocket (status going away:
// pages reconnect to the next server) and waits for their handlers and
// the other requests to finish, or ctx to end. Sessions keep running.
func (s *Server) Shutdown(ctx context.Context) error {
	err := s.hs.Shutdown(ctx) // calls closeClients
	done := make(chan struct{})
	go func() { s.conns.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		return ctx.Err()
	}
	return err
}

// Close closes the listeners and every connection at once, and waits for
// the WebSocket handlers to return.
func (s *Server) Close() error {
	err := s.hs.Close()
	s.closeClients()
	s.conns.Wait()
	return err
}

// closeClients marks the server closed, stops pushing and disconnects
// every client.
func (s *Server) closeClients() {
	if s.stopPush != nil {
		s.stopPush()
		<-s.pushDone
	}
	s.mu.Lock()
	s.closed = true
	cs := make([]*client, 0, len(s.clients))
	for c := range s.clients {
		cs = append(cs, c)
	}
	s.mu.Unlock()
	for _, c := range cs {
		c.drop(websocketGoingAway, "server shutting down")
	}
}

// pageFile serves the page's file name (under static/) as contentType,
// revalidated on every load: the page at /, its service worker at /sw.js
// (served from the root so that its scope is the whole page).
func pageFile(name, contentType string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b, err := page.Files.ReadFile("static/" + name)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", contentType)
		w.Header().Set("Cache-Control", "no-cache")
		w.Write(b)
	}
}

// SessionJSON is a session as GET /api/sessions lists it.
type SessionJSON struct {
	ID            string `json:"id"`
	Host          string `json:"host,omitempty"` // the [[hosts]] entry it runs on; "" for this machine
	Name          string `json:"name"`           // the protocol's session name, "" if unnamed
	Agent         string `json:"agent"`          // preset name
	Assistant     string `json:"assistant"`      // display name
	State         string `json:"state"`          // idle, thinking, …, dead
	NeedsInput    bool   `json:"needsInput"`
	Alive         bool   `json:"alive"`
	ExitCode      int    `json:"exitCode"`
	Title         string `json:"title"`
	Dir           string `json:"dir"`
	Cols          int    `json:"cols"`
	Rows          int    `json:"rows"`
	Viewers       int    `json:"viewers"`
	YoloMode      bool   `json:"yoloMode"`
	YoloSupported bool   `json:"yoloSupported"`
}

// AssistantJSON is an assistant a new session can be started with.
type AssistantJSON struct {
	Key   string `json:"key"`
	Name  string `json:"name"`
	Found bool   `json:"found"` // its program is on PATH
}

// ListJSON is GET /api/sessions' answer.
type ListJSON struct {
	Sessions    []SessionJSON   `json:"sessions"`
	Assistants  []AssistantJSON `json:"assistants"`
	UploadLimit int64           `json:"uploadLimit"`
}

// serveSessions lists the fleet's pty sessions (those with a screen) and
// the assistants.
func (s *Server) serveSessions(w http.ResponseWriter, r *http.Request) {
	out := ListJSON{Sessions: []SessionJSON{}, UploadLimit: s.opts.UploadLimit}
	presets := s.opts.Fleet.Presets()
	live := map[string]bool{}
	for _, in := range s.opts.Fleet.Sessions() {
		if in.Caps&session.CapScreen == 0 {
			continue
		}
		live[in.ID] = true
		a := s.assistant(in.Agent, presets)
		j := SessionJSON{ID: in.ID, Host: in.Host, Agent: in.Agent, Assistant: a.name, State: in.State.String(), NeedsInput: in.NeedsInput,
			Alive: in.Alive, ExitCode: in.ExitCode, Title: in.Title, Dir: in.Dir, Cols: in.Cols, Rows: in.Rows, YoloSupported: a.yolo != nil}
		s.mu.Lock()
		if ss := s.sessions[in.ID]; ss != nil {
			j.Name, j.Viewers, j.YoloMode = ss.name, len(ss.clients), ss.yolo
		}
		s.mu.Unlock()
		out.Sessions = append(out.Sessions, j)
	}
	s.prune(live)
	for _, a := range s.assistants(presets) {
		out.Assistants = append(out.Assistants, AssistantJSON{Key: a.key, Name: a.name, Found: a.found})
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(out)
}

// createSession is POST /api/sessions?assistant=KEY: a new session of the
// assistant, named as the dashboard names its sessions (KEY-1, KEY-2, …:
// the fleet picks the first free one), answered {"id": ID}; the page then
// joins it at /ws/ID. A request from another origin is refused (403), as
// for a WebSocket.
func (s *Server) createSession(w http.ResponseWriter, r *http.Request) {
	if err := s.originOK(r); err != nil {
		http.Error(w, err.Error(), http.StatusForbidden)
		return
	}
	id, err := s.spawn("", r.URL.Query().Get("assistant"))
	if err != nil {
		var he *httpError
		errors.As(err, &he)
		http.Error(w, he.msg, he.code)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(map[string]string{"id": id})
}

// prune forgets what it kept of sessions the fleet no longer lists and
// nobody views.
func (s *Server) prune(live map[string]bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, ss := range s.sessions {
		if !live[id] && len(ss.clients) == 0 && !ss.replacing {
			delete(s.sessions, id)
		}
	}
}

// workDir is where sessions started here run.
func (s *Server) workDir() string {
	if s.opts.Dir != "" {
		return s.opts.Dir
	}
	d, _ := os.Getwd()
	return d
}

// displayNames are the protocol's assistants' display names; other
// presets show under their own names.
var displayNames = map[string]string{
	"claude": "Claude", "gemini": "Gemini", "codex": "Codex", "aider": "Aider", "goose": "Goose",
	"opencode": "OpenCode", "shell": "Shell", customKey: "Custom",
}

// customKey is the assistant `web --shell CMD` registers.
const customKey = "custom"

// assistantInfo is an assistant: a fleet preset, or custom.
type assistantInfo struct {
	key, name string
	argv, env []string
	yolo      []string // nil: no YOLO mode
	yoloEnv   []string
	resume    []string
	found     bool
}

// assistants lists the assistants: the fleet's presets (the dashboard's
// built-ins and config [[agent]] tables), then custom if configured.
func (s *Server) assistants(presets []fleet.Preset) []assistantInfo {
	var out []assistantInfo
	for _, p := range presets {
		name := displayNames[p.Name]
		if name == "" {
			name = p.Name
		}
		out = append(out, assistantInfo{key: p.Name, name: name, argv: p.Argv, env: p.Env,
			yolo: p.Yolo, yoloEnv: p.YoloEnv, resume: p.Resume, found: p.Found})
	}
	if len(s.opts.Custom) > 0 && !slices.ContainsFunc(presets, func(p fleet.Preset) bool { return p.Name == customKey }) {
		out = append(out, assistantInfo{key: customKey, name: displayNames[customKey], argv: s.opts.Custom, found: true})
	}
	return out
}

// assistant is the assistant named key; an unknown one (a session started
// elsewhere with a program no preset names) has its key as its name and
// no command.
func (s *Server) assistant(key string, presets []fleet.Preset) assistantInfo {
	for _, a := range s.assistants(presets) {
		if a.key == key {
			return a
		}
	}
	name := key
	if name == "" {
		name = "Terminal"
	}
	return assistantInfo{key: key, name: name}
}

// isNetClosed reports errors of a connection closed under a reader.
func isNetClosed(err error) bool {
	return errors.Is(err, net.ErrClosed) || strings.Contains(err.Error(), "use of closed network connection")
}

// LoadToken returns the token kept in the file at path, creating the file
// (and its directory, 0700) with a new token the first time. The file is
// the user's alone: one that other users may read, or that another user
// owns, is refused with how to fix it. Two processes starting at once get
// the same token (the file appears whole, by link, or not at all).
func LoadToken(path string) (string, error) {
	for range 2 {
		b, err := readPrivate(path)
		if err == nil {
			tok := strings.TrimSpace(string(b))
			if len(tok) < 16 || strings.ContainsFunc(tok, func(r rune) bool { return r <= ' ' || r > '~' }) {
				return "", fmt.Errorf("web token file %s: not a token (remove it to have a new one made)", path)
			}
			return tok, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return "", fmt.Errorf("web token: %w", err)
		}
		tmp, err := os.CreateTemp(filepath.Dir(path), ".web-token-*")
		if err != nil {
			return "", fmt.Errorf("web token: %w", err)
		}
		_, werr := tmp.WriteString(NewToken() + "\n")
		if cerr := tmp.Close(); werr == nil {
			werr = cerr
		}
		if werr == nil {
			werr = os.Link(tmp.Name(), path) // fails if another process made it first: read theirs
			if errors.Is(werr, fs.ErrExist) {
				werr = nil
			}
		}
		os.Remove(tmp.Name())
		if werr != nil {
			return "", fmt.Errorf("web token: %w", werr)
		}
	}
	return "", fmt.Errorf("web token file %s: cannot be read back", path)
}

// readPrivate reads a file only this user may read.
func readPrivate(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return nil, fmt.Errorf("web token file %s belongs to uid %d, not you: remove it", path, st.Uid)
	}
	if fi.Mode().Perm()&0o077 != 0 || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("web token file %s may be read by others (mode %v): chmod 600 %s, or remove it for a new token", path, fi.Mode(), path)
	}
	return io.ReadAll(io.LimitReader(f, 4096))
}
