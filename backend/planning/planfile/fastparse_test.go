package planfile

import "testing"

// FastLookup answers as a lookup in FastTable[string](b, field, nil)'s
// table, and fails where it fails.
func FuzzFastLookup(f *testing.F) {
	for _, s := range []string{
		`{"version":"2.0.0","symbols":{"F1":"a","F2":"b"}}`,
		"{\n  \"version\": \"2.0.0\",\n  \"symbols\": {}\n}\n",
		`{"symbols":{"F1":"a\u00e9"},"version":"2.0.0"}`,
		`{"symbols":{"F1":"é"},"version":"2.0.0"}`,
		`{"version":"2.0.0","symbols":{"F1":1}}`,
		`{"version":"2.0.0","symbols":{"F1":"a","F1":"c"}}`,
		`{"version":"2.0.0","symbols":{"F1":"b"},"x":1}`,
		`{"version":"2.0.0","symbols":{"F1":"b"}} x`,
		`{"version":"2.0.0","symbols":{"F1":"b",}}`,
		`{"symbols":{"F1":"b"}}`,
	} {
		f.Add([]byte(s), "F1")
	}
	f.Fuzz(func(t *testing.T, b []byte, key string) {
		version, m, ok := FastTable[string](b, "symbols", nil)
		v2, value, found, ok2 := FastLookup(b, "symbols", key)
		want, inTable := m[key]
		if ok != ok2 || ok && (version != v2 || found != inTable || value != want) {
			t.Fatalf("%q, %q: FastTable %q %v %v, FastLookup %q %q %v %v", b, key, version, m, ok, v2, value, found, ok2)
		}
	})
}
