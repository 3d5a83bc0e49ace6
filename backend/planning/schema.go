package planning

import (
	"bytes"
	_ "embed"
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
)

// printer renders the validator's messages (in English). Like the regular
// expressions below it is made on first use: package initialisation runs
// before every subcommand (docs/ARCHITECTURE.md).
var printer = sync.OnceValue(func() *message.Printer { return message.NewPrinter(language.English) })

// messageSchema is the message contract, JSON Schema draft-07. `protocol
// init` installs it as protocol/message-schema.json.
//
//go:embed message-schema.json
var messageSchema []byte

// SchemaID is the $id of the message schema; it carries ProtocolVersion.
const SchemaID = "https://heimdall.dev/protocol/" + ProtocolVersion + "/message-schema.json"

// schemaVersion matches a schema $id of this protocol version: 2.0.x as a
// whole dot-separated version inside the URL.
var schemaVersion = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(^|[^0-9.])2\.0\.[0-9]+([^0-9.]|$)`)
})

// MessageSchema returns the message contract this package publishes.
func MessageSchema() []byte { return bytes.Clone(messageSchema) }

// MessageTypes are the six message types, in the seed's order.
var MessageTypes = []string{"task_claim", "task_result", "gate_report", "escalation", "question", "checkpoint"}

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

// Validator compiles the installed schema (protocol/message-schema.json),
// or the embedded one if none is installed. An installed schema that does
// not parse, does not compile, or carries another version's $id is an
// error naming the file.
func (s *Store) Validator() (*Validator, error) {
	path := s.SchemaPath()
	b, err := os.ReadFile(path)
	source := path
	switch {
	case errors.Is(err, fs.ErrNotExist):
		b, source = messageSchema, "embedded"
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return compileSchema(b, source)
}

// NewValidator compiles the embedded schema.
func NewValidator() (*Validator, error) { return compileSchema(messageSchema, "embedded") }

func compileSchema(b []byte, source string) (*Validator, error) {
	fileErr := func(err error) error { return &FileError{Path: source, Err: err} }
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return nil, fileErr(fmt.Errorf("%w: %v", ErrCorrupt, err))
	}
	m, ok := doc.(map[string]any)
	if !ok {
		return nil, fileErr(fmt.Errorf("%w: not a JSON object", ErrCorrupt))
	}
	// The $id carries the protocol version; any 2.0.x contract will do
	// (a patch never changes the message shapes).
	id, _ := m["$id"].(string)
	if !schemaVersion().MatchString(id) {
		return nil, fileErr(fmt.Errorf("%w: $id %q, this tool speaks %s (reinstall with protocol init)", ErrVersion, id, SchemaID))
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft7)
	if err := c.AddResource(id, doc); err != nil {
		return nil, fileErr(fmt.Errorf("%w: %v", ErrCorrupt, err))
	}
	sch, err := c.Compile(id)
	if err != nil {
		return nil, fileErr(fmt.Errorf("%w: %v", ErrCorrupt, err))
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

// ValidateMessage validates msg with the Store's validator and logs
// `validate accept|reject <msg_id>` to protocol.log.
func (s *Store) ValidateMessage(v *Validator, msg []byte) (Validation, error) {
	res := v.Validate(msg)
	action, detail := "accept", res.MsgID
	if !res.Valid {
		action = "reject"
		detail = strings.TrimSpace(detail + " " + strings.Join(res.Errors, "; "))
	}
	return res, s.Log("validate", action, detail)
}

// MarshalValidation renders a Validation the way `validate` prints it.
func MarshalValidation(v Validation) []byte {
	if v.Errors == nil {
		v.Errors = []string{}
	}
	b, _ := marshal(v)
	return b
}
