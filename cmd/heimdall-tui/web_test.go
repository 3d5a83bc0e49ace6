package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/coder/websocket"

	"github.com/heimdall-tui/heimdall-tui/wire/wsterm"
)

// wsTerm is a test's WebSocket terminal: it collects what the server sends.
type wsTerm struct {
	t    *testing.T
	c    *websocket.Conn
	out  strings.Builder // raw output, and snapshots decompressed
	asm  wsterm.Assembler
	text []string
}

func dialTerm(t *testing.T, base, path string) *wsTerm {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+path, nil)
	if err != nil {
		t.Fatalf("dial %s: %v", path, err)
	}
	c.SetReadLimit(64 << 20)
	t.Cleanup(func() { c.CloseNow() })
	return &wsTerm{t: t, c: c}
}

// until reads until cond holds, bounded by waitTimeout.
func (w *wsTerm) until(what string, cond func() bool) {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	for !cond() {
		typ, b, err := w.c.Read(ctx)
		if err != nil {
			w.t.Fatalf("waiting for %s: %v\noutput: %q\ntext: %q", what, err, w.out.String(), w.text)
		}
		switch {
		case typ == websocket.MessageText:
			w.text = append(w.text, string(b))
		case len(b) >= 3 && b[0] == wsterm.MarkerChunk:
			if snap, done, err := w.asm.Add(b); err != nil {
				w.t.Fatal(err)
			} else if done {
				w.out.Write(snap)
			}
		default:
			w.out.Write(b)
		}
	}
}

func (w *wsTerm) untilOutput(s string) {
	w.t.Helper()
	w.until(fmt.Sprintf("%q in the output", s), func() bool { return strings.Contains(w.out.String(), s) })
}

func (w *wsTerm) untilText(s string) {
	w.t.Helper()
	w.until(fmt.Sprintf("a message with %q", s), func() bool {
		return len(w.text) > 0 && strings.Contains(w.text[len(w.text)-1], s)
	})
}

func (w *wsTerm) input(s string) {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	if err := w.c.Write(ctx, websocket.MessageBinary, []byte(s)); err != nil {
		w.t.Fatal(err)
	}
}

var webURLRe = regexp.MustCompile(`open (http://\S+)`)

// startWebCmd runs `heimdall-tui --socket-dir DIR --config CFG web ARGS` and
// returns it and the URL it printed.
func startWebCmd(t *testing.T, dir, cfg string, args ...string) (*proc, string) {
	t.Helper()
	p := startProc(t, binPath, append([]string{"--socket-dir", dir, "--config", cfg, "web"}, args...)...)
	var url string
	if !poll(waitTimeout, func() bool {
		m := webURLRe.FindStringSubmatch(p.stdout.String())
		if m != nil {
			url = strings.TrimSuffix(m[1], "/")
		}
		return m != nil || p.exited()
	}) || url == "" {
		t.Fatalf("web printed no URL\n%s", p)
	}
	return p, url
}

// `heimdall-tui web` serves the sessions of the socket dir, those others
// started too; sessions started in it are sessions of the dir (ls lists
// them) and outlive it.
func TestWebStandalone(t *testing.T) {
	dir := newSockDir(t)
	cfg := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(cfg, []byte("kill_grace = \"1s\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	startSession(t, dir, "fromcli", "bash", "--norc", "--noprofile")
	web, base := startWebCmd(t, dir, cfg, "--addr", "127.0.0.1:0", "--shell", "bash --norc --noprofile")
	if !strings.HasPrefix(base, "http://127.0.0.1:") || strings.Contains(base, "token") {
		t.Fatalf("URL %q", base)
	}
	var list struct {
		Sessions []struct {
			ID    string `json:"id"`
			Alive bool   `json:"alive"`
		} `json:"sessions"`
	}
	if !poll(waitTimeout, func() bool {
		resp, err := http.Get(base + "/api/sessions")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		json.NewDecoder(resp.Body).Decode(&list)
		return len(list.Sessions) == 1 && list.Sessions[0].ID == "fromcli" && list.Sessions[0].Alive
	}) {
		t.Fatalf("session list %+v", list)
	}

	cli := dialTerm(t, base, "/ws/fromcli")
	cli.input("echo joined-$((40+2))\r")
	cli.untilOutput("joined-42")

	w := dialTerm(t, base, "/ws/webnew-1?assistant=custom")
	w.untilText(`"assistant":"Custom"`)
	w.input("echo started-$((6*7))\r")
	w.untilOutput("started-42")
	if r := hmIn(t, dir, "ls"); !strings.Contains(r.stdout, "webnew-1") || !strings.Contains(r.stdout, "fromcli") {
		t.Fatalf("ls does not list the web's session:\n%s", r)
	}

	web.cmd.Process.Signal(syscall.SIGTERM)
	if code := web.wait(); code != 0 {
		t.Fatalf("web exited %d\n%s", code, web)
	}
	if st, err := querySession(filepath.Join(dir, "webnew-1.sock")); err != nil || !st.alive {
		t.Fatalf("the web's session did not outlive it: %+v %v", st, err)
	}
	hmIn(t, dir, "kill", "webnew-1")
}

// The dashboard with --web: a session started in the browser is one of
// the dashboard's.
func TestWebInDashboard(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	d := newDash(t)
	prefix := "env"
	for _, e := range d.env {
		prefix += " " + shellQuote(e)
	}
	d.sendLine(fmt.Sprintf("%s %s --config %s --socket-dir %s --log %s --web %s", prefix, shellQuote(binPath), shellQuote(d.cfg),
		shellQuote(d.dir), shellQuote(d.log), addr))
	d.waitDisplay("#{alternate_on}", "1")
	d.waitFor("no sessions")
	w := dialTerm(t, "http://"+addr, "/ws/frombrowser?assistant=sh")
	w.input("echo browser-$((2*21))\r")
	w.untilOutput("browser-42")
	d.waitFor("frombrowser")
	d.waitFor("browser-42") // the preview of the selected (only) session
	d.quit()
	if _, err := http.Get("http://" + addr + "/"); err == nil {
		t.Fatal("the web server outlived the dashboard")
	}
}

func TestWebTokenAndURL(t *testing.T) {
	if webToken("127.0.0.1:1977", "") != "" || webToken("[::1]:1", "") != "" {
		t.Fatal("loopback got a token")
	}
	if tok := webToken("0.0.0.0:1977", ""); len(tok) != 32 {
		t.Fatalf("token %q", tok)
	}
	if webToken(":1977", "mine") != "mine" || webToken("127.0.0.1:1", "mine") != "mine" {
		t.Fatal("configured token not used")
	}
	host, _ := os.Hostname()
	if u := webURL("0.0.0.0:1977", "abc"); u != "http://"+net.JoinHostPort(host, "1977")+"/?token=abc" {
		t.Fatalf("url %q", u)
	}
	if u := webURL("127.0.0.1:5", ""); u != "http://127.0.0.1:5/" {
		t.Fatalf("url %q", u)
	}
}
