package webterm

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// The inbox API's doors: no token, another site's origin, a malformed or
// oversized answer and an unknown session are refused with the reason;
// the empty inbox is an empty list.
func TestInboxAPIRefusals(t *testing.T) {
	_, hs := testServer(t, Options{})
	resp := get(t, hs, "/api/inbox")
	var in InboxJSON
	if resp.StatusCode != 200 || json.NewDecoder(resp.Body).Decode(&in) != nil || in.Items == nil || len(in.Items) != 0 {
		t.Fatalf("empty inbox: %d %+v", resp.StatusCode, in)
	}
	resp.Body.Close()
	post := func(h http.Header, body string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("POST", hs.URL+"/api/sessions/nope/answer", strings.NewReader(body))
		req.Header = h
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b strings.Builder
		buf := make([]byte, 1024)
		n, _ := resp.Body.Read(buf)
		b.Write(buf[:n])
		return resp.StatusCode, b.String()
	}
	for _, c := range []struct {
		h    http.Header
		body string
		code int
		why  string
	}{
		{http.Header{}, `{"choice":"allow"}`, 401, "token"},
		{authed(http.Header{"Origin": {"https://evil.example"}}), `{"choice":"allow"}`, 403, "origin"},
		{authed(nil), `{"choice":"maybe"}`, 400, "unknown choice"},
		{authed(nil), `{"choice":"text","text":"a\rb"}`, 400, "one line"},
		{authed(nil), `not json`, 400, "answer:"},
		{authed(nil), `{"choice":"text","text":"` + strings.Repeat("x", 9000) + `"}`, 413, "8 KiB"},
		{authed(nil), `{"choice":"allow"}`, 409, "nope"},
	} {
		if code, body := post(c.h, c.body); code != c.code || !strings.Contains(body, c.why) {
			t.Errorf("%.40s: %d %q, want %d with %q", c.body, code, body, c.code, c.why)
		}
	}
}
