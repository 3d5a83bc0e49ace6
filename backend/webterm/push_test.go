package webterm

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/answer"
	"github.com/heimdall-tui/heimdall-tui/backend/fleet"
	"github.com/heimdall-tui/heimdall-tui/backend/inbox"
	"github.com/heimdall-tui/heimdall-tui/backend/push"
	"github.com/heimdall-tui/heimdall-tui/backend/push/pushtest"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
)

// Web Push end to end, with a push service on loopback that decrypts what
// it gets with the subscription's keys: a subscription made through the
// API; each new inbox item of a session nobody views on a page is pushed
// (its session, kind and reason, and the session's page to open), one
// viewed on a page is not.
func TestPushInbox(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("FAKE_CLAUDE_STEP", "100")
	svc, err := push.Open(push.Options{Dir: filepath.Join(t.TempDir(), "push")})
	if err != nil {
		t.Fatal(err)
	}
	f := newFleet(t)
	for _, id := range []string{"c1", "c2"} {
		if _, err := f.Spawn(fleet.Spec{ID: id, Agent: "claude", Classifier: "claude", Argv: []string{fakeClaudeBin}}); err != nil {
			t.Fatal(err)
		}
		waitInfo(t, f, id, "its prompt", func(in session.Info) bool { return in.Alive && in.State == session.Idle })
	}
	_, hs := testServer(t, Options{Fleet: f, Push: svc})

	resp := get(t, hs, "/api/push")
	var key struct{ PublicKey string }
	if resp.StatusCode != 200 || json.NewDecoder(resp.Body).Decode(&key) != nil || key.PublicKey != svc.PublicKey() {
		t.Fatalf("GET /api/push: %d %+v", resp.StatusCode, key)
	}
	resp.Body.Close()
	ps := pushtest.New(t)
	subscribe := func(h http.Header, body string) int {
		t.Helper()
		req, _ := http.NewRequest("POST", hs.URL+"/api/push/subscribe", strings.NewReader(body))
		req.Header = authed(h)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	good := `{"endpoint":"` + ps.Endpoint + `","keys":{"p256dh":"` + ps.P256dh + `","auth":"` + ps.Auth + `"}}`
	if code := subscribe(http.Header{"Origin": {"https://evil.example"}}, good); code != http.StatusForbidden {
		t.Fatalf("another site's subscription: %d", code)
	}
	if code := subscribe(nil, `{"endpoint":"http://push.example.com/x","keys":{"p256dh":"`+ps.P256dh+`","auth":"`+ps.Auth+`"}}`); code != http.StatusBadRequest {
		t.Fatalf("an http endpoint off loopback: %d", code)
	}
	if code := subscribe(nil, good); code != http.StatusNoContent || svc.Subscriptions() != 1 {
		t.Fatalf("subscribe: %d, %d kept", code, svc.Subscriptions())
	}

	// c2 is viewed on a page; c1 is not.
	v := dial(t, hs, "/ws/c2", nil)
	defer v.c.CloseNow()
	waitInfo(t, f, "c2", "viewed", func(in session.Info) bool { return in.Viewed })
	for _, id := range []string{"c2", "c1"} {
		if err := f.Send(id, session.Input{Data: []byte("perm\r")}); err != nil {
			t.Fatal(err)
		}
		waitInfo(t, f, id, "needs input", func(in session.Info) bool { return in.NeedsInput })
	}
	next := func() push.Message {
		t.Helper()
		select {
		case p := <-ps.Pushes:
			var m push.Message
			if p.Err != nil || json.Unmarshal(p.Plaintext, &m) != nil {
				t.Fatalf("push %q: %v", p.Plaintext, p.Err)
			}
			return m
		case <-time.After(wait):
			t.Fatal("no push")
		}
		return push.Message{}
	}
	// The reason is Claude's: its sentence or, once its second report is
	// in, the command (one push either way: it is one wait).
	if m := next(); !strings.HasPrefix(m.Body, "c1 needs input: ") || !strings.Contains(m.Body, "Bash") || m.URL != "/#/s/c1" || m.Tag != "c1" {
		t.Fatalf("first push %+v", m)
	}
	// The hook says it waits before the fake draws its dialog.
	waitInfo(t, f, "c1", "its dialog drawn", func(session.Info) bool {
		s := f.Screen("c1")
		return s != nil && strings.Contains(s.Text(), "Do you want to proceed?")
	})
	if _, err := f.Answer("c1", answerAllow, ""); err != nil {
		t.Fatal(err)
	}
	if m := next(); m.Body != "c1 done: Done with rm -rf build." {
		t.Fatalf("second push %+v (c2, viewed, must not be pushed)", m)
	}
	select {
	case p := <-ps.Pushes:
		t.Fatalf("a push too many: %q", p.Plaintext)
	case <-time.After(200 * time.Millisecond): // what was sent has come: each push is sent before the next event is read
	}
}

var answerAllow = answer.Choice{Kind: answer.Allow}

// A tap on a pushed item opens its session's terminal, or, for a session
// without one (an ACP agent's), the inbox, where its item is answered.
func TestPushMessageURL(t *testing.T) {
	for _, tt := range []struct {
		it   inbox.Item
		want string
	}{
		{inbox.Item{Session: "c1", Kind: inbox.Input, Terminal: true}, "/#/s/c1"},
		{inbox.Item{Session: "a1", Kind: inbox.Input}, "/"},
	} {
		if m := pushMessage(tt.it); m.URL != tt.want || m.Tag != tt.it.Session {
			t.Errorf("%s: URL %q tag %q, want %q", tt.it.Session, m.URL, m.Tag, tt.want)
		}
	}
}
