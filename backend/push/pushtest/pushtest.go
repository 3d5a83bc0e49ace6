// Package pushtest is a Web Push service on loopback for tests: it gives
// a subscription whose keys it holds, takes the pushes sent to it,
// decrypts each as the browser would (RFC 8291, aes128gcm) and hands the
// plaintext over with the request's headers.
package pushtest

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// Push is one push the service took.
type Push struct {
	Header    http.Header
	Plaintext []byte
	Err       error // why it could not be decrypted
}

// Service is the loopback push service.
type Service struct {
	// Endpoint, P256dh and Auth are the subscription (base64url keys).
	Endpoint, P256dh, Auth string
	// Pushes gets every push, in order.
	Pushes chan Push
	// Status is what it answers (201 unless set before a push).
	Status int

	priv *ecdh.PrivateKey
	auth []byte
}

// New starts a service; it stops at the test's end.
func New(t testing.TB) *Service {
	t.Helper()
	priv, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	auth := make([]byte, 16)
	rand.Read(auth)
	s := &Service{Pushes: make(chan Push, 64), Status: http.StatusCreated, priv: priv, auth: auth,
		P256dh: base64.RawURLEncoding.EncodeToString(priv.PublicKey().Bytes()), Auth: base64.RawURLEncoding.EncodeToString(auth)}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		p := Push{Header: r.Header.Clone(), Err: err}
		if err == nil {
			p.Plaintext, p.Err = s.decrypt(body)
		}
		s.Pushes <- p
		w.WriteHeader(s.Status)
	}))
	t.Cleanup(hs.Close)
	s.Endpoint = hs.URL + "/push/subscription-1"
	return s
}

// decrypt reads an aes128gcm body (RFC 8188 header: salt, record size,
// key id = the sender's public key) encrypted for the subscription's keys
// (RFC 8291).
func (s *Service) decrypt(body []byte) ([]byte, error) {
	if len(body) < 21 {
		return nil, errors.New("body shorter than its header")
	}
	salt, rs, idlen := body[:16], binary.BigEndian.Uint32(body[16:20]), int(body[20])
	if len(body) < 21+idlen || rs < 18 {
		return nil, errors.New("bad header")
	}
	asPub, err := ecdh.P256().NewPublicKey(body[21 : 21+idlen])
	if err != nil {
		return nil, fmt.Errorf("key id: %w", err)
	}
	shared, err := s.priv.ECDH(asPub)
	if err != nil {
		return nil, err
	}
	info := append(append([]byte("WebPush: info\x00"), s.priv.PublicKey().Bytes()...), asPub.Bytes()...)
	ikm, err := hkdf.Key(sha256.New, shared, s.auth, string(info), 32)
	if err != nil {
		return nil, err
	}
	cek, err := hkdf.Key(sha256.New, ikm, salt, "Content-Encoding: aes128gcm\x00", 16)
	if err != nil {
		return nil, err
	}
	nonce, err := hkdf.Key(sha256.New, ikm, salt, "Content-Encoding: nonce\x00", 12)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(cek)
	if err != nil {
		return nil, err
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	plain, err := gcm.Open(nil, nonce, body[21+idlen:], nil)
	if err != nil {
		return nil, fmt.Errorf("decrypt: %w", err)
	}
	// One record: the text, then the delimiter 0x02 and zero padding.
	i := bytes.LastIndexByte(plain, 2)
	if i < 0 || len(bytes.Trim(plain[i+1:], "\x00")) != 0 {
		return nil, errors.New("no last-record delimiter")
	}
	return plain[:i], nil
}
