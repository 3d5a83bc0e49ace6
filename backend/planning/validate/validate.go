// Package validate checks the token-frugal protocol's messages against its
// JSON Schema (the installed protocol/message-schema.json, or the one
// planning embeds) and turns an H-1 gate report into a gate_report message.
// It is apart from planning so that what links planning alone (the small
// executable's resolve and ledger log) does not link the schema library.
package validate

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/heimdall-tui/heimdall-tui/backend/planning"
)

// printer renders the validator's messages (in English). Like the regular
// expressions below it is made on first use: package initialisation runs
// before every subcommand (docs/ARCHITECTURE.md, Invariants).
var printer = sync.OnceValue(func() *message.Printer { return message.NewPrinter(language.English) })

// schemaVersion matches a schema $id of this protocol version: 2.0.x as a
// whole dot-separated version inside the URL.
var schemaVersion = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(^|[^0-9.])2\.0\.[0-9]+([^0-9.]|$)`)
})

// Validation is the result of validating one message, printed by
// `validate` as {"valid":bool,"errors":[…]}.
type Validation struct {
	Valid  bool     `json:"valid"`
	Errors []string `json:"errors"`
	// MsgID is the message's msg_id when it has a string one (for the
	// audit log); not part of the printed result.
	MsgID string `json:"-"`
}

// Validator checks messages against a compiled schema.
type Validator struct {
	schema *jsonschema.Schema
	source string
}

// Source is where the validator's schema came from: the installed file's
// path, or "embedded".
func (v *Validator) Source() string { return v.source }

// Load compiles s's installed schema (protocol/message-schema.json), or
// the embedded one if none is installed. An installed schema that does
// not parse, does not compile, or carries another version's $id is an
// error naming the file.
func Load(s *planning.Store) (*Validator, error) {
	path := s.SchemaPath()
	b, err := os.ReadFile(path)
	source := path
	switch {
	case errors.Is(err, fs.ErrNotExist):
		b, source = planning.MessageSchema(), "embedded"
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return compileSchema(b, source)
}

// New compiles the embedded schema.
func New() (*Validator, error) { return compileSchema(planning.MessageSchema(), "embedded") }

func compileSchema(b []byte, source string) (*Validator, error) {
	fileErr := func(err error) error { return &planning.FileError{Path: source, Err: err} }
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return nil, fileErr(fmt.Errorf("%w: %v", planning.ErrCorrupt, err))
	}
	m, ok := doc.(map[string]any)
	if !ok {
		return nil, fileErr(fmt.Errorf("%w: not a JSON object", planning.ErrCorrupt))
	}
	// The $id carries the protocol version; any 2.0.x contract will do
	// (a patch never changes the message shapes).
	id, _ := m["$id"].(string)
	if !schemaVersion().MatchString(id) {
		return nil, fileErr(fmt.Errorf("%w: $id %q, this tool speaks %s (reinstall with protocol init)", planning.ErrVersion, id, planning.SchemaID))
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft7)
	if err := c.AddResource(id, doc); err != nil {
		return nil, fileErr(fmt.Errorf("%w: %v", planning.ErrCorrupt, err))
	}
	sch, err := c.Compile(id)
	if err != nil {
		return nil, fileErr(fmt.Errorf("%w: %v", planning.ErrCorrupt, err))
	}
	return &Validator{schema: sch, source: source}, nil
}

// Validate checks one JSON message. Malformed JSON is invalid, with the
// parse error as its error.
func (v *Validator) Validate(msg []byte) Validation {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(msg))
	if err != nil {
		return Validation{Valid: false, Errors: []string{"malformed JSON: " + err.Error()}}
	}
	res := Validation{Valid: true, Errors: []string{}}
	if m, ok := doc.(map[string]any); ok {
		res.MsgID, _ = m["msg_id"].(string)
	}
	err = v.schema.Validate(doc)
	if err == nil {
		return res
	}
	res.Valid = false
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		res.Errors = []string{err.Error()}
		return res
	}
	res.Errors = leafErrors(ve)
	return res
}

// leafErrors flattens a validation error to its leaves ("if-then failed"
// and "allOf failed" say nothing a person can act on), each as
// "<instance path>: <message>", sorted and deduplicated.
func leafErrors(ve *jsonschema.ValidationError) []string {
	var out []string
	seen := map[string]bool{}
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		loc := "/" + strings.Join(e.InstanceLocation, "/")
		msg := loc + ": " + e.ErrorKind.LocalizedString(printer())
		if !seen[msg] {
			seen[msg] = true
			out = append(out, msg)
		}
	}
	walk(ve)
	sort.Strings(out)
	return out
}

// Message validates msg with v and logs `validate accept|reject <msg_id>`
// to s's protocol.log.
func Message(s *planning.Store, v *Validator, msg []byte) (Validation, error) {
	res := v.Validate(msg)
	action, detail := "accept", res.MsgID
	if !res.Valid {
		action = "reject"
		detail = strings.TrimSpace(detail + " " + strings.Join(res.Errors, "; "))
	}
	return res, s.Log("validate", action, detail)
}

// Marshal renders a Validation the way `validate` prints it.
func Marshal(v Validation) []byte {
	if v.Errors == nil {
		v.Errors = []string{}
	}
	b, _ := planning.Marshal(v)
	return b
}
