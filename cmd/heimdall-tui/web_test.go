package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/heimdall-tui/heimdall-tui/backend/config"
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

// dialTerm opens base+path with the web token (as a client other than a
// browser passes it).
func dialTerm(t *testing.T, base, token, path string) *wsTerm {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+path,
		&websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + token}}})
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

var webURLRe = regexp.MustCompile(`open (https?://\S+)/\?token=(\S+)`)

// startWebCmd runs `heimdall-tui --socket-dir DIR --config CFG web ARGS` and
// returns it, the URL it printed without the token, and the token.
func startWebCmd(t *testing.T, dir, cfg string, args ...string) (p *proc, base, token string) {
	t.Helper()
	p = startProc(t, binPath, append([]string{"--socket-dir", dir, "--config", cfg, "web"}, args...)...)
	if !poll(waitTimeout, func() bool {
		m := webURLRe.FindStringSubmatch(p.stdout.String())
		if m != nil {
			base, token = m[1], m[2]
		}
		return m != nil || p.exited()
	}) || base == "" {
		t.Fatalf("web printed no URL with a token\n%s", p)
	}
	return p, base, token
}

// webGet GETs url with the token.
func webGet(url, token string) (*http.Response, error) {
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	return http.DefaultClient.Do(req)
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
	web, base, token := startWebCmd(t, dir, cfg, "--addr", "127.0.0.1:0", "--shell", "bash --norc --noprofile")
	if !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("URL %q", base)
	}
	// The token is the one kept in the state dir, and is needed.
	if b, err := os.ReadFile(webTokenPath()); err != nil || strings.TrimSpace(string(b)) != token {
		t.Fatalf("token file: %q %v (printed %q)", b, err, token)
	}
	if resp, err := http.Get(base + "/api/sessions"); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("without the token: %v %v", resp, err)
	}
	var list struct {
		Sessions []struct {
			ID    string `json:"id"`
			Alive bool   `json:"alive"`
		} `json:"sessions"`
	}
	if !poll(waitTimeout, func() bool {
		resp, err := webGet(base+"/api/sessions", token)
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		json.NewDecoder(resp.Body).Decode(&list)
		return len(list.Sessions) == 1 && list.Sessions[0].ID == "fromcli" && list.Sessions[0].Alive
	}) {
		t.Fatalf("session list %+v", list)
	}

	cli := dialTerm(t, base, token, "/ws/fromcli")
	cli.input("echo joined-$((40+2))\r")
	cli.untilOutput("joined-42")

	w := dialTerm(t, base, token, "/ws/webnew-1?assistant=custom")
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
	var token string
	if !poll(waitTimeout, func() bool {
		b, err := os.ReadFile(webTokenPath())
		token = strings.TrimSpace(string(b))
		return err == nil && token != ""
	}) {
		t.Fatal("no web token kept")
	}
	w := dialTerm(t, "http://"+addr, token, "/ws/frombrowser?assistant=sh")
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
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	kept, err := webToken("127.0.0.1:1977", config.Web{})
	if err != nil || len(kept) != 32 {
		t.Fatalf("loopback token %q %v", kept, err)
	}
	if tok, err := webToken("0.0.0.0:1977", config.Web{}); tok != kept || err != nil {
		t.Fatalf("token %q %v: not the kept one %q", tok, err, kept)
	}
	if fi, err := os.Stat(webTokenPath()); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", fi, err)
	}
	if tok, _ := webToken(":1977", config.Web{Token: "mine"}); tok != "mine" {
		t.Fatal("configured token not used")
	}
	if tok, err := webToken("[::1]:1", config.Web{NoToken: true}); tok != "" || err != nil {
		t.Fatalf("no_token on loopback: %q %v", tok, err)
	}
	if _, err := webToken("0.0.0.0:1", config.Web{NoToken: true}); err == nil {
		t.Fatal("no_token off loopback accepted")
	}
	os.Chmod(webTokenPath(), 0o644)
	if _, err := webToken("127.0.0.1:1", config.Web{}); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("a token file others may read: %v", err)
	}
	host, _ := os.Hostname()
	if u := webURL("0.0.0.0:1977", "abc", false); u != "http://"+net.JoinHostPort(host, "1977")+"/?token=abc" {
		t.Fatalf("url %q", u)
	}
	if u := webURL("127.0.0.1:5", "", false); u != "http://127.0.0.1:5/" {
		t.Fatalf("url %q", u)
	}
}

// web on a port in use says so in one line and exits, before it adopts
// any session.
func TestWebPortBusy(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	dir := newSockDir(t)
	r := hmIn(t, dir, "web", "--addr", l.Addr().String())
	if r.code == 0 || !strings.Contains(r.stderr, "address already in use") || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
		t.Fatalf("web on a busy port: %s", r)
	}
}

// `web --tls-cert --tls-key` serves https with the certificate given (a
// phone's browser needs a secure origin for Web Push): the URL printed is
// https, a client that trusts the certificate gets the page, the token's
// cookie is Secure, and the push key is served. A key that is not the
// certificate's is refused at start with the reason.
func TestWebTLS(t *testing.T) {
	dir := newSockDir(t)
	cfg := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(cfg, []byte("kill_grace = \"1s\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	certFile, keyFile, pool := selfSigned(t)
	_, base, token := startWebCmd(t, dir, cfg, "--addr", "127.0.0.1:0", "--tls-cert", certFile, "--tls-key", keyFile)
	if !strings.HasPrefix(base, "https://127.0.0.1:") {
		t.Fatalf("URL %q", base)
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(base + "/?token=" + token)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || len(resp.Cookies()) != 1 || !resp.Cookies()[0].Secure || !resp.Cookies()[0].HttpOnly {
		t.Fatalf("first request: %d %v", resp.StatusCode, resp.Cookies())
	}
	req, _ := http.NewRequest("GET", base+"/api/push", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	if resp, err := client.Do(req); err != nil || resp.StatusCode != 200 {
		t.Fatalf("push key over https: %v %v", resp, err)
	}

	_, otherKey, _ := selfSigned(t)
	r := hmIn(t, dir, "web", "--config", cfg, "--addr", "127.0.0.1:0", "--tls-cert", certFile, "--tls-key", otherKey)
	if r.code != 1 || !strings.Contains(r.stderr, "the TLS certificate") {
		t.Fatalf("a mismatched key: %+v", r)
	}
	if r := hmIn(t, dir, "web", "--tls-cert", certFile); r.code != 2 || !strings.Contains(r.stderr, "go together") {
		t.Fatalf("a certificate without its key: %+v", r)
	}
}

// selfSigned writes a certificate for 127.0.0.1 and its key (PEM) and
// returns their paths and a pool that trusts it.
func selfSigned(t *testing.T) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "heimdall test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kd, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	d := t.TempDir()
	certFile, keyFile = filepath.Join(d, "cert.pem"), filepath.Join(d, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kd}), 0o600)
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}
