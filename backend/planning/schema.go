package planning

import (
	"bytes"
	_ "embed"
)

// messageSchema is the message contract, JSON Schema draft-07. `protocol
// init` installs it as protocol/message-schema.json; package validate
// checks messages against it.
//
//go:embed message-schema.json
var messageSchema []byte

// SchemaID is the $id of the message schema; it carries ProtocolVersion.
const SchemaID = "https://heimdall.dev/protocol/" + ProtocolVersion + "/message-schema.json"

// MessageSchema returns the message contract this package publishes.
func MessageSchema() []byte { return bytes.Clone(messageSchema) }

// MessageTypes are the six message types, in the seed's order.
var MessageTypes = []string{"task_claim", "task_result", "gate_report", "escalation", "question", "checkpoint"}
