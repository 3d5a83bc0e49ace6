package webterm

import (
	"context"
	"encoding/json"
	"io"
	"net/http"

	"github.com/heimdall-tui/heimdall-tui/backend/inbox"
	"github.com/heimdall-tui/heimdall-tui/backend/push"
)

// maxSubscriptionBody bounds a subscription's JSON.
const maxSubscriptionBody = 4 << 10

// servePushKey answers the VAPID public key a page subscribes with, and
// whether push is served at all (404 when not).
func (s *Server) servePushKey(w http.ResponseWriter, r *http.Request) {
	if s.opts.Push == nil {
		http.Error(w, "push notifications are not served (heimdall-tui web serves them)", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(map[string]any{"publicKey": s.opts.Push.PublicKey()})
}

// pushSubscription reads a PushSubscription body (origin checked,
// bounded); nil after answering the error.
func (s *Server) pushSubscription(w http.ResponseWriter, r *http.Request) *push.Subscription {
	if s.opts.Push == nil {
		http.Error(w, "push notifications are not served", http.StatusNotFound)
		return nil
	}
	if err := s.originOK(r); err != nil {
		http.Error(w, err.Error(), http.StatusForbidden)
		return nil
	}
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxSubscriptionBody))
	if err != nil {
		http.Error(w, "subscription: at most 4 KiB", http.StatusRequestEntityTooLarge)
		return nil
	}
	var sub push.Subscription
	if err := json.Unmarshal(b, &sub); err != nil {
		http.Error(w, "subscription: "+err.Error(), http.StatusBadRequest)
		return nil
	}
	return &sub
}

func (s *Server) subscribePush(w http.ResponseWriter, r *http.Request) {
	sub := s.pushSubscription(w, r)
	if sub == nil {
		return
	}
	if err := s.opts.Push.Subscribe(*sub); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.log.Info("push subscription added")
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) unsubscribePush(w http.ResponseWriter, r *http.Request) {
	sub := s.pushSubscription(w, r)
	if sub == nil {
		return
	}
	if _, err := s.opts.Push.Unsubscribe(sub.Endpoint); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// pushInbox pushes each inbox item that comes while the server runs —
// needs input, failed, done — to the subscribed browsers, unless someone
// views its session on a page of this server; the items there at the
// start are not pushed. It returns when ctx ends or the fleet closes.
func (s *Server) pushInbox(ctx context.Context) {
	sub := s.opts.Fleet.Subscribe()
	defer sub.Close()
	var known map[string]bool
	for {
		items := inbox.Items(s.opts.Fleet.Sessions())
		now := make(map[string]bool, len(items))
		for _, it := range items {
			now[it.Key()] = true
			if known == nil || known[it.Key()] || s.viewed(it.Session) {
				continue
			}
			if err := s.opts.Push.Push(ctx, pushMessage(it)); err != nil {
				s.log.Warn("push", "session", it.Session, "err", err)
			}
		}
		known = now
		if _, err := sub.Next(ctx); err != nil {
			return
		}
	}
}

// viewed reports whether a user looks at session id: a page of this
// server shows it, or its supervisor says it is viewed elsewhere.
func (s *Server) viewed(id string) bool {
	s.mu.Lock()
	ss := s.sessions[id]
	here := ss != nil && len(ss.clients) > 0
	s.mu.Unlock()
	if here {
		return true
	}
	for _, in := range s.opts.Fleet.Sessions() {
		if in.ID == id {
			return in.Viewed // a terminal attached, a dashboard focusing it
		}
	}
	return false
}

// pushMessage is what a push of it says, and the page a tap opens: the
// session's terminal, or for a session without one the inbox.
func pushMessage(it inbox.Item) push.Message {
	what := map[inbox.Kind]string{inbox.Input: "needs input", inbox.Done: "done", inbox.Error: "failed"}[it.Kind]
	body := it.Session + " " + what
	if it.Reason != "" {
		body += ": " + it.Reason
	}
	url := "/" // the page's inbox, where a session without a terminal is answered
	if it.Terminal {
		url = "/#/s/" + it.Session
	}
	return push.Message{Title: "heimdall", Body: body, URL: url, Tag: it.Session}
}
