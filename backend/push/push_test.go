package push_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/push"
	"github.com/heimdall-tui/heimdall-tui/backend/push/pushtest"
)

func subOf(ps *pushtest.Service) push.Subscription {
	var sub push.Subscription
	sub.Endpoint, sub.Keys.P256dh, sub.Keys.Auth = ps.Endpoint, ps.P256dh, ps.Auth
	return sub
}

func next(t *testing.T, ps *pushtest.Service) pushtest.Push {
	t.Helper()
	select {
	case p := <-ps.Pushes:
		return p
	case <-time.After(10 * time.Second):
		t.Fatal("no push reached the push service")
	}
	return pushtest.Push{}
}

// A push reaches the subscription's push service encrypted for its keys
// (aes128gcm) with the VAPID key the service made on first use; the keys
// and subscriptions are kept 0600 and read back; a subscription the push
// service says is gone is forgotten.
func TestPush(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "push")
	s, err := push.Open(push.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	ps := pushtest.New(t)
	if err := s.Subscribe(subOf(ps)); err != nil {
		t.Fatal(err)
	}
	msg := push.Message{Title: "heimdall", Body: "c1 needs input: Bash: rm -rf build", URL: "/#/s/c1", Tag: "c1"}
	if err := s.Push(context.Background(), msg); err != nil {
		t.Fatal(err)
	}
	p := next(t, ps)
	if p.Err != nil {
		t.Fatal(p.Err)
	}
	var got push.Message
	if err := json.Unmarshal(p.Plaintext, &got); err != nil || got != msg {
		t.Fatalf("decrypted %q (%v), want %+v", p.Plaintext, err, msg)
	}
	if a := p.Header.Get("Authorization"); !strings.HasPrefix(a, "vapid t=") || !strings.Contains(a, "k="+s.PublicKey()) {
		t.Fatalf("Authorization %q", a)
	}
	if p.Header.Get("Content-Encoding") != "aes128gcm" || p.Header.Get("TTL") == "" {
		t.Fatalf("headers %v", p.Header)
	}
	for name, want := range map[string]os.FileMode{"": 0o700, "vapid.json": 0o600, "subscriptions.json": 0o600} {
		if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || fi.Mode().Perm() != want {
			t.Fatalf("%s: %v %v", name, fi.Mode(), err)
		}
	}
	again, err := push.Open(push.Options{Dir: dir})
	if err != nil || again.PublicKey() != s.PublicKey() || again.Subscriptions() != 1 {
		t.Fatalf("reopened: %v, key kept %v, %d subscriptions", err, again.PublicKey() == s.PublicKey(), again.Subscriptions())
	}

	ps.Status = http.StatusGone
	if err := s.Push(context.Background(), msg); err != nil {
		t.Fatal(err)
	}
	next(t, ps)
	if n := s.Subscriptions(); n != 0 {
		t.Fatalf("%d subscriptions after 410 Gone", n)
	}
}

// Subscriptions the service will not send to are refused with the reason.
func TestSubscriptionCheck(t *testing.T) {
	ps := pushtest.New(t)
	good := subOf(ps)
	for name, c := range map[string]struct {
		mod func(*push.Subscription)
		why string
	}{
		"http off loopback": {func(s *push.Subscription) { s.Endpoint = "http://push.example.com/x" }, "https"},
		"ftp":               {func(s *push.Subscription) { s.Endpoint = "ftp://push.example.com/x" }, "https"},
		"not a url":         {func(s *push.Subscription) { s.Endpoint = "::" }, "URL"},
		"long":              {func(s *push.Subscription) { s.Endpoint = "https://p.example/" + strings.Repeat("x", 3000) }, "too long"},
		"short key":         {func(s *push.Subscription) { s.Keys.P256dh = "AAAA" }, "p256dh"},
		"no auth":           {func(s *push.Subscription) { s.Keys.Auth = "" }, "auth"},
	} {
		s := good
		c.mod(&s)
		if err := s.Check(); err == nil || !strings.Contains(err.Error(), c.why) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if err := good.Check(); err != nil {
		t.Fatal(err)
	}
}
