package keys

import "testing"

// Every key name in the default map builds a message that prints as that
// name again and is looked up as its action.
func TestPressRoundTrip(t *testing.T) {
	km := Default()
	for _, ctx := range Contexts() {
		for _, b := range km.Bindings(ctx) {
			for _, k := range b.Keys() {
				msg := Press(k)
				if got := msg.String(); got != k {
					t.Errorf("Press(%q).String() = %q", k, got)
				}
				if act, ok := km.Lookup(ctx, msg); !ok || act != b.Action {
					t.Errorf("%v: Lookup(Press(%q)) = %v, %v; want %v", ctx, k, act, ok, b.Action)
				}
			}
		}
	}
}
