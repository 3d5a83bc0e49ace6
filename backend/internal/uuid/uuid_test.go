package uuid

import (
	"regexp"
	"testing"
)

func TestNew(t *testing.T) {
	re := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	a, b := New(), New()
	if !re.MatchString(a) || !re.MatchString(b) || a == b {
		t.Fatalf("%q %q", a, b)
	}
}
