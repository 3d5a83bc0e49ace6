package frame

import "testing"

// A payload decoded into a value that held another leaves empty what it
// omits: a STATE after a Done one, without "done", is not Done.
func TestUnmarshalReplaces(t *testing.T) {
	var si StateInfo
	if err := si.UnmarshalBinary([]byte(`{"state":"Idle","done":true,"reason":"r","title":"t"}`)); err != nil {
		t.Fatal(err)
	}
	if err := si.UnmarshalBinary([]byte(`{"state":"Thinking"}`)); err != nil {
		t.Fatal(err)
	}
	if si.Done || si.Reason != "" || si.Title != "" || si.State != "Thinking" {
		t.Errorf("STATE %+v", si)
	}
	var sc ScreenInfo
	sc.UnmarshalBinary([]byte(`{"cols":80,"title":"t"}`))
	sc.UnmarshalBinary([]byte(`{"cols":90}`))
	if sc.Title != "" || sc.Cols != 90 {
		t.Errorf("SCREEN_RESP %+v", sc)
	}
	var h HelloInfo
	h.UnmarshalBinary([]byte(`{"request":3,"features":["screen"]}`))
	h.UnmarshalBinary([]byte(`{"request":4}`))
	if h.Request != 4 || len(h.Features) != 0 {
		t.Errorf("HELLO_RESP %+v", h)
	}
}
