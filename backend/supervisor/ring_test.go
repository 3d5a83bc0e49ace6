package supervisor

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// ringModel is the obvious reference: keep everything, return the tail.
func ringModel(all []byte, size int) []byte {
	if len(all) > size {
		all = all[len(all)-size:]
	}
	return all
}

func TestRingBasics(t *testing.T) {
	r := newRing(8)
	if r.Len() != 0 || len(r.Bytes()) != 0 {
		t.Fatalf("empty ring: len %d bytes %q", r.Len(), r.Bytes())
	}
	steps := []struct {
		write, want string
	}{
		{"", ""},
		{"abc", "abc"},
		{"defgh", "abcdefgh"},      // exactly full: head wraps to 0
		{"", "abcdefgh"},           // empty write on a full ring changes nothing
		{"ij", "cdefghij"},         // wraparound
		{"klmnop", "ijklmnop"},     // write crossing the end
		{"0123456789", "23456789"}, // larger than the ring
		{"qrstuvwx", "qrstuvwx"},   // exactly the ring's size
		{"y", "rstuvwxy"},
	}
	for i, st := range steps {
		r.Write([]byte(st.write))
		if got := string(r.Bytes()); got != st.want || r.Len() != len(st.want) {
			t.Fatalf("step %d (write %q): got %q len %d, want %q", i, st.write, got, r.Len(), st.want)
		}
	}
}

// Bytes must be a copy: the caller (a subscriber's replay) keeps it while
// the ring goes on being written.
func TestRingBytesIsACopy(t *testing.T) {
	r := newRing(4)
	r.Write([]byte("abcd"))
	b := r.Bytes()
	r.Write([]byte("wxyz"))
	if string(b) != "abcd" {
		t.Fatalf("Bytes aliased the ring: %q", b)
	}
}

func TestRingMatchesModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, size := range []int{1, 2, 3, 7, 64, 4096} {
		r := newRing(size)
		var all []byte
		for i := 0; i < 2000; i++ {
			var n int
			switch rng.IntN(4) {
			case 0:
				n = 0
			case 1:
				n = rng.IntN(size + 1) // up to exactly full
			case 2:
				n = size + rng.IntN(2*size+1) // larger than the ring
			default:
				n = rng.IntN(3)
			}
			p := make([]byte, n)
			for j := range p {
				p[j] = byte(rng.Uint32())
			}
			r.Write(p)
			all = append(all, p...)
			want := ringModel(all, size)
			if got := r.Bytes(); !bytes.Equal(got, want) || r.Len() != len(want) {
				t.Fatalf("size %d, write %d (n=%d): got %d bytes, want %d (equal=%v)",
					size, i, n, len(got), len(want), bytes.Equal(got, want))
			}
			if len(all) > 4*size {
				all = append([]byte(nil), want...) // keep the model small
			}
		}
	}
}

func TestRingZeroSize(t *testing.T) {
	r := newRing(0)
	r.Write([]byte("abc"))
	if r.Len() != 0 || len(r.Bytes()) != 0 {
		t.Fatalf("zero ring holds %q", r.Bytes())
	}
}
