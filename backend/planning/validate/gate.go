package validate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/heimdall-tui/heimdall-tui/backend/planning"
)

// GateMessage is the gate_report message `gate to-message` prints. Its
// field order is the printed order.
type GateMessage struct {
	Type      string          `json:"type"`
	From      string          `json:"from"`
	MsgID     string          `json:"msg_id"`
	GateID    json.RawMessage `json:"gate_id"`
	Status    json.RawMessage `json:"status"`
	Wave      json.RawMessage `json:"wave,omitempty"`
	ReportRef string          `json:"report_ref"`
}

// Gate is the only reader of an H-1 report.json: it takes exactly
// gate_id, status and wave from it (never the open-keyed metrics, never
// the body) and returns a gate_report message referencing the report by
// its absolute path, checked against the message schema. A report that is
// not JSON, or whose fields make an invalid message, is planning.ErrInvalid.
func Gate(s *planning.Store, v *Validator, reportPath, from, msgID string) ([]byte, error) {
	abs, err := filepath.Abs(reportPath)
	if err != nil {
		return nil, fmt.Errorf("report path: %w", err)
	}
	b, err := os.ReadFile(abs)
	if err != nil {
		return nil, fmt.Errorf("read report: %w", err)
	}
	var rep struct {
		GateID json.RawMessage `json:"gate_id"`
		Status json.RawMessage `json:"status"`
		Wave   json.RawMessage `json:"wave"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, &planning.FileError{Path: abs, Err: planning.Invalid("report is not a JSON object: %v", err)}
	}
	if bytes.Equal(rep.Wave, []byte("null")) {
		rep.Wave = nil
	}
	msg := GateMessage{Type: "gate_report", From: from, MsgID: msgID, GateID: compact(rep.GateID), Status: compact(rep.Status), Wave: compact(rep.Wave), ReportRef: abs}
	if msg.GateID == nil {
		msg.GateID = json.RawMessage("null")
	}
	if msg.Status == nil {
		msg.Status = json.RawMessage("null")
	}
	out, err := planning.Marshal(msg)
	if err != nil {
		return nil, fmt.Errorf("encode gate_report: %w", err)
	}
	if res := v.Validate(out); !res.Valid {
		return nil, &planning.FileError{Path: abs, Err: planning.Invalid("the report does not make a valid gate_report: %v", res.Errors)}
	}
	return out, s.Log("gate", "to-message", fmt.Sprintf("%s %s=%s %s", msgID, rawText(msg.GateID), rawText(msg.Status), abs))
}

func compact(raw json.RawMessage) json.RawMessage {
	if raw == nil {
		return nil
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return raw
	}
	return buf.Bytes()
}

// rawText is a JSON value as log text: a string unquoted, anything else as
// its JSON.
func rawText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}
