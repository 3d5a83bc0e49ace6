package wsterm

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

func TestParseBinary(t *testing.T) {
	up, err := AppendUpload(nil, "a.png", []byte("PNG"))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		in   []byte
		want Frame
	}{
		{"resize", AppendResize(nil, 30, 120), Frame{Kind: Resize, Rows: 30, Cols: 120}},
		{"resize with extra bytes", append(AppendResize(nil, 1, 2), 9), Frame{Kind: Resize, Rows: 1, Cols: 2}},
		{"upload", up, Frame{Kind: Upload, Name: []byte("a.png"), Data: []byte("PNG")}},
		{"upload, empty name and data", []byte{1, 0, 0}, Frame{Kind: Upload, Name: []byte{}, Data: []byte{}}},
		{"Ctrl-@ alone is input", []byte{0}, Frame{Kind: Input, Data: []byte{0}}},
		{"short 0x00 frame is input", []byte{0, 1, 2, 3}, Frame{Kind: Input, Data: []byte{0, 1, 2, 3}}},
		{"Ctrl-A alone is input", []byte{1}, Frame{Kind: Input, Data: []byte{1}}},
		{"0x01 0x02 is input", []byte{1, 2}, Frame{Kind: Input, Data: []byte{1, 2}}},
		{"0x02 from a client is input", []byte{2, 0, 1}, Frame{Kind: Input, Data: []byte{2, 0, 1}}},
		{"text", []byte("ls\r"), Frame{Kind: Input, Data: []byte("ls\r")}},
		{"empty", []byte{}, Frame{Kind: Input, Data: []byte{}}},
	}
	for _, c := range cases {
		got, err := ParseBinary(c.in)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got.Kind != c.want.Kind || got.Rows != c.want.Rows || got.Cols != c.want.Cols ||
			!bytes.Equal(got.Name, c.want.Name) || !bytes.Equal(got.Data, c.want.Data) {
			t.Errorf("%s: got %+v, want %+v", c.name, got, c.want)
		}
	}
	if _, err := ParseBinary([]byte{1, 0, 9, 'a'}); !errors.Is(err, ErrUpload) {
		t.Fatalf("name past the end: %v", err)
	}
	if _, err := AppendUpload(nil, strings.Repeat("x", 0x10000), nil); err == nil {
		t.Fatal("a 64 KiB name encoded")
	}
}

func TestChunksRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 100, DefaultChunkSize, DefaultChunkSize + 1, 3 << 20} {
		ansi := make([]byte, n)
		for i := range ansi {
			ansi[i] = byte(rng.IntN(256)) // incompressible: the chunks carry ≈ n bytes
		}
		cs := Chunks(Gzip(ansi), 0)
		if len(cs) < 1 || len(cs) > MaxChunks {
			t.Fatalf("%d bytes: %d chunks", n, len(cs))
		}
		var a Assembler
		for i, c := range cs {
			if c[0] != MarkerChunk || int(c[1]) != i || int(c[2]) != len(cs) {
				t.Fatalf("%d bytes: chunk %d header % x", n, i, c[:3])
			}
			if i > 0 && len(cs) > 1 && n < MaxChunks*DefaultChunkSize && len(c)-3 > DefaultChunkSize {
				t.Fatalf("%d bytes: chunk of %d", n, len(c)-3)
			}
			got, done, err := a.Add(c)
			if err != nil {
				t.Fatal(err)
			}
			if done != (i == len(cs)-1) {
				t.Fatalf("done %v at %d of %d", done, i, len(cs))
			}
			if done && !bytes.Equal(got, ansi) {
				t.Fatalf("%d bytes: round trip differs", n)
			}
		}
	}
	if n := len(Chunks(make([]byte, 10*MaxChunks), 10)); n != MaxChunks {
		t.Fatalf("%d chunks of 10 for 2550 bytes", n)
	}
	if n := len(Chunks(make([]byte, 10*MaxChunks+1), 10)); n > MaxChunks {
		t.Fatalf("%d chunks", n)
	}
}

func TestAssemblerRefuses(t *testing.T) {
	var a Assembler
	for _, bad := range [][]byte{{0, 0, 1}, {2, 1, 1}, {2, 0, 0}, {2}} {
		if _, _, err := a.Add(bad); !errors.Is(err, ErrChunk) {
			t.Fatalf("% x: %v", bad, err)
		}
	}
	a.Add([]byte{2, 0, 2})
	if _, _, err := a.Add([]byte{2, 0, 2}); !errors.Is(err, ErrChunk) {
		t.Fatalf("twice: %v", err)
	}
	if _, _, err := a.Add([]byte{2, 1, 3}); !errors.Is(err, ErrChunk) {
		t.Fatalf("total changed: %v", err)
	}
	if _, done, err := a.Add([]byte{2, 1, 2, 'x'}); !done || err == nil {
		t.Fatalf("not gzip: done %v err %v", done, err)
	}
}

func TestSessionName(t *testing.T) {
	for in, want := range map[string]string{
		"  my-feature ": "my-feature", "a_b 9": "a_b 9", "": "", "   ": "",
		strings.Repeat("x", 32): strings.Repeat("x", 32),
	} {
		if got, ok := SessionName(in); !ok || got != want {
			t.Errorf("%q: %q %v", in, got, ok)
		}
	}
	for _, in := range []string{strings.Repeat("x", 33), "a/b", "<b>", "é", "a\tb", "dot.name"} {
		if _, ok := SessionName(in); ok {
			t.Errorf("%q accepted", in)
		}
	}
}

func TestMessages(t *testing.T) {
	r, err := ParseRequest([]byte(`{"type":"ping","data":{"ts":1703318400000}}`))
	if err != nil || r.Type != TypePing {
		t.Fatal(r, err)
	}
	check := func(v any, want string) {
		t.Helper()
		b, err := json.Marshal(v)
		if err != nil || string(b) != want {
			t.Fatalf("%s, want %s (%v)", b, want, err)
		}
	}
	check(NewPong(r.Data), `{"type":"pong","data":{"ts":1703318400000}}`)
	check(NewPong(nil), `{"type":"pong"}`)
	check(NewChat("Alice", "Hello", time.Date(2025, 12, 24, 17, 3, 13, 0, time.FixedZone("CET", 3600))),
		`{"type":"chat","userName":"Alice","text":"Hello","timestamp":"2025-12-24T16:03:13Z"}`)
	check(UploadOK("document.pdf"), `{"type":"file_upload","success":true,"filename":"document.pdf","error":null}`)
	check(UploadFailed("document.pdf", "Failed to save file: permission denied"),
		`{"type":"file_upload","success":false,"filename":"document.pdf","error":"Failed to save file: permission denied"}`)
	check(NewExit(143), `{"type":"exit","exitCode":143}`)
	check(Status{Type: TypeStatus, Viewers: 2, Cols: 120, Rows: 30, Assistant: "Claude", SessionName: "my-feature", UUIDShort: ShortID("a3c12-x"), YoloSupported: true},
		`{"type":"status","viewers":2,"cols":120,"rows":30,"assistant":"Claude","sessionName":"my-feature","uuidShort":"a3c12","yoloMode":false,"yoloSupported":true}`)
	if ShortID("abc") != "abc" {
		t.Fatal(ShortID("abc"))
	}
	for _, bad := range []string{`{`, `[]`, `"ping"`, `{"type":5}`, ``} {
		if _, err := ParseRequest([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	if r, err := ParseRequest([]byte(`{"type":"whatever","x":1}`)); err != nil || r.Type != "whatever" {
		t.Fatal(r, err)
	}
}

func FuzzParseBinary(f *testing.F) {
	f.Add(AppendResize(nil, 24, 80))
	up, _ := AppendUpload(nil, "../x", []byte("data"))
	f.Add(up)
	f.Add([]byte{1, 0xff, 0xff})
	f.Add([]byte("hello"))
	f.Fuzz(func(t *testing.T, b []byte) {
		fr, err := ParseBinary(b)
		if err != nil {
			if !errors.Is(err, ErrUpload) || len(b) < 3 || b[0] != MarkerUpload {
				t.Fatalf("% x: %v", b, err)
			}
			return
		}
		switch fr.Kind {
		case Input:
			if !bytes.Equal(fr.Data, b) {
				t.Fatal("input is not the frame")
			}
		case Resize:
			if !bytes.Equal(AppendResize(nil, fr.Rows, fr.Cols), b[:5]) {
				t.Fatal("resize does not re-encode")
			}
		case Upload:
			re, err := AppendUpload(nil, string(fr.Name), fr.Data)
			if err != nil || !bytes.Equal(re, b) {
				t.Fatal("upload does not re-encode")
			}
		}
	})
}

func FuzzAssembler(f *testing.F) {
	f.Add([]byte{2, 0, 1, 0x1f, 0x8b})
	f.Add(Chunks(Gzip([]byte("hi")), 0)[0])
	f.Fuzz(func(t *testing.T, b []byte) {
		var a Assembler
		for range 3 {
			a.Add(b) // never panics, whatever comes
		}
	})
}

func FuzzParseRequest(f *testing.F) {
	f.Add([]byte(`{"type":"chat","userName":"a","text":"b"}`))
	f.Add([]byte(`{"type":"ping","data":null}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ParseRequest(b)
		if err == nil && json.Valid(b) == false {
			t.Fatalf("invalid JSON parsed: %q → %+v", b, r)
		}
	})
}
