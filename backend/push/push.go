// Package push sends Web Push notifications (RFC 8030, with VAPID, RFC
// 8292, and aes128gcm encryption, RFC 8291, by webpush-go) to the
// browsers that subscribed from the web page, so a phone or a desktop
// whose browser is closed hears of what wants the user. It keeps its own
// VAPID key pair and the subscriptions in a directory of the state dir
// (0700, files 0600), made on first use. Nothing leaves the machine but
// the encrypted message, to the push service each subscription names
// (the browser's vendor's); the push service sees only its size and when.
package push

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	webpush "github.com/SherClockHolmes/webpush-go"

	"github.com/heimdall-tui/heimdall-tui/backend/internal/atomicfile"
)

// MaxSubscriptions bounds the subscriptions kept: the oldest goes when one
// more comes.
const MaxSubscriptions = 32

// maxEndpoint bounds a subscription's endpoint URL.
const maxEndpoint = 2048

// Subscription is a browser's PushSubscription (its JSON form).
type Subscription struct {
	Endpoint string `json:"endpoint"`
	Keys     struct {
		P256dh string `json:"p256dh"`
		Auth   string `json:"auth"`
	} `json:"keys"`
}

// Message is what a notification says; the page's service worker shows
// Title and Body and opens URL when it is tapped.
type Message struct {
	Title string `json:"title"`
	Body  string `json:"body"`
	URL   string `json:"url"`
	Tag   string `json:"tag,omitempty"` // a newer message with the same tag replaces the older
}

// Options configure a Service.
type Options struct {
	// Dir holds vapid.json and subscriptions.json (made 0700 if missing).
	Dir string
	// Subject is the VAPID "sub" claim: a mailto: or https: URL the push
	// service may contact ("" = "mailto:heimdall@localhost").
	Subject string
	// Client sends the requests (nil: one with a 10 s timeout).
	Client *http.Client
	Logger *slog.Logger // nil: discarded
}

type vapidKeys struct {
	Private string `json:"private"`
	Public  string `json:"public"`
}

// Service holds the VAPID keys and the subscriptions. Its methods are
// safe for concurrent use.
type Service struct {
	opts Options
	keys vapidKeys
	log  *slog.Logger

	mu   sync.Mutex
	subs []Subscription
}

// Open loads the service's keys and subscriptions from Options.Dir,
// generating the key pair on first use.
func Open(opts Options) (*Service, error) {
	if opts.Dir == "" {
		return nil, errors.New("push: no directory")
	}
	if opts.Subject == "" {
		opts.Subject = "mailto:heimdall@localhost"
	}
	if opts.Client == nil {
		opts.Client = &http.Client{Timeout: 10 * time.Second}
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if err := os.MkdirAll(opts.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("push: %w", err)
	}
	s := &Service{opts: opts, log: log}
	kp := filepath.Join(opts.Dir, "vapid.json")
	if b, err := os.ReadFile(kp); err == nil {
		if err := json.Unmarshal(b, &s.keys); err != nil || s.keys.Private == "" || s.keys.Public == "" {
			return nil, fmt.Errorf("push: %s is not a key pair (delete it to make a new one)", kp)
		}
	} else if errors.Is(err, os.ErrNotExist) {
		priv, pub, err := webpush.GenerateVAPIDKeys()
		if err != nil {
			return nil, fmt.Errorf("push: generate VAPID keys: %w", err)
		}
		s.keys = vapidKeys{Private: priv, Public: pub}
		b, _ := json.Marshal(s.keys)
		if err := atomicfile.Write(kp, b, 0o600); err != nil {
			return nil, fmt.Errorf("push: %w", err)
		}
	} else {
		return nil, fmt.Errorf("push: %w", err)
	}
	if b, err := os.ReadFile(s.subsPath()); err == nil {
		if err := json.Unmarshal(b, &s.subs); err != nil {
			log.Warn("push subscriptions unreadable; starting without", "err", err)
			s.subs = nil
		}
	}
	return s, nil
}

func (s *Service) subsPath() string { return filepath.Join(s.opts.Dir, "subscriptions.json") }

// PublicKey is the VAPID public key a page subscribes with
// (applicationServerKey, base64url).
func (s *Service) PublicKey() string { return s.keys.Public }

// Check reports a subscription this service will not send to: an endpoint
// that is not https (http only to a loopback address, for tests and local
// push services), too long, or keys that are not a P-256 point and a
// 16-byte secret.
func (sub Subscription) Check() error {
	if len(sub.Endpoint) > maxEndpoint {
		return errors.New("push: endpoint too long")
	}
	u, err := url.Parse(sub.Endpoint)
	if err != nil || u.Host == "" {
		return errors.New("push: endpoint is not a URL")
	}
	switch u.Scheme {
	case "https":
	case "http":
		host := u.Hostname()
		ip, err := netip.ParseAddr(host)
		if host != "localhost" && (err != nil || !ip.IsLoopback()) {
			return errors.New("push: endpoint must be https")
		}
	default:
		return errors.New("push: endpoint must be https")
	}
	if k, err := decodeKey(sub.Keys.P256dh); err != nil || len(k) != 65 || k[0] != 4 {
		return errors.New("push: keys.p256dh is not a P-256 public key")
	}
	if a, err := decodeKey(sub.Keys.Auth); err != nil || len(a) != 16 {
		return errors.New("push: keys.auth is not a 16-byte secret")
	}
	return nil
}

// decodeKey reads base64url, padded or not (browsers send it unpadded).
func decodeKey(s string) ([]byte, error) {
	if b, err := base64.RawURLEncoding.DecodeString(s); err == nil {
		return b, nil
	}
	return base64.URLEncoding.DecodeString(s)
}

// Subscribe keeps sub (once per endpoint: a new one replaces the old).
func (s *Service) Subscribe(sub Subscription) error {
	if err := sub.Check(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.subs = slices.DeleteFunc(s.subs, func(o Subscription) bool { return o.Endpoint == sub.Endpoint })
	s.subs = append(s.subs, sub)
	if len(s.subs) > MaxSubscriptions {
		s.subs = s.subs[len(s.subs)-MaxSubscriptions:]
	}
	return s.saveLocked()
}

// Unsubscribe forgets the subscription of endpoint; it reports whether
// there was one.
func (s *Service) Unsubscribe(endpoint string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.subs)
	s.subs = slices.DeleteFunc(s.subs, func(o Subscription) bool { return o.Endpoint == endpoint })
	if len(s.subs) == n {
		return false, nil
	}
	return true, s.saveLocked()
}

// Subscriptions is how many subscriptions are kept.
func (s *Service) Subscriptions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.subs)
}

func (s *Service) saveLocked() error {
	b, _ := json.Marshal(s.subs)
	return atomicfile.Write(s.subsPath(), b, 0o600)
}

// Push sends m to every subscription, side by side; one the push service
// says is gone (404, 410) is forgotten. It returns the failures joined.
func (s *Service) Push(ctx context.Context, m Message) error {
	body, err := json.Marshal(m)
	if err != nil {
		return err
	}
	s.mu.Lock()
	subs := slices.Clone(s.subs)
	s.mu.Unlock()
	var (
		wg   sync.WaitGroup
		emu  sync.Mutex
		errs []error
	)
	for _, sub := range subs {
		wg.Go(func() {
			if err := s.send(ctx, body, sub); err != nil {
				emu.Lock()
				errs = append(errs, err)
				emu.Unlock()
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// send sends one encrypted message.
func (s *Service) send(ctx context.Context, body []byte, sub Subscription) error {
	ws := &webpush.Subscription{Endpoint: sub.Endpoint, Keys: webpush.Keys{P256dh: sub.Keys.P256dh, Auth: sub.Keys.Auth}}
	resp, err := webpush.SendNotificationWithContext(ctx, body, ws, &webpush.Options{
		HTTPClient: s.opts.Client, Subscriber: s.opts.Subject, TTL: 3600, Urgency: webpush.UrgencyHigh,
		VAPIDPublicKey: s.keys.Public, VAPIDPrivateKey: s.keys.Private,
	})
	host := endpointHost(sub.Endpoint)
	if err != nil {
		s.log.Warn("push failed", "push_service", host, "err", err)
		return fmt.Errorf("push to %s: %w", host, err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
	switch {
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone:
		s.log.Info("push subscription gone; forgotten", "push_service", host)
		s.Unsubscribe(sub.Endpoint)
		return nil
	case resp.StatusCode >= 300:
		return fmt.Errorf("push to %s: %s", host, resp.Status)
	}
	return nil
}

// endpointHost names a push service in logs: the endpoint's host only (the
// path identifies the subscription, which is a secret of sorts).
func endpointHost(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return "?"
	}
	if h, _, err := net.SplitHostPort(u.Host); err == nil {
		return h
	}
	return u.Host
}
