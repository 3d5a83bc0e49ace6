package webterm

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/answer"
	"github.com/heimdall-tui/heimdall-tui/backend/inbox"
)

// InboxItemJSON is an item as GET /api/inbox lists it: backend/inbox's,
// with, for one that needs input, the dialog its session's screen shows
// now (its question and options, as an answer would read it) or why none
// could be read.
type InboxItemJSON struct {
	inbox.Item
	Age string `json:"age"`
	// Preview is the last rows of its session's screen that have text.
	Preview     []string    `json:"preview,omitempty"`
	Prompt      *PromptJSON `json:"prompt,omitempty"`
	PromptError string      `json:"promptError,omitempty"`
}

// PromptJSON is a dialog's question and options (option n is Options[n-1]).
type PromptJSON struct {
	Family   string   `json:"family"`
	Question string   `json:"question"`
	Options  []string `json:"options"`
	Multi    bool     `json:"multi,omitempty"`
}

// InboxJSON is GET /api/inbox's answer.
type InboxJSON struct {
	Items []InboxItemJSON `json:"items"`
}

// serveInbox lists what wants the user, newest first.
func (s *Server) serveInbox(w http.ResponseWriter, r *http.Request) {
	out := InboxJSON{Items: []InboxItemJSON{}}
	now := time.Now()
	for _, it := range inbox.Items(s.opts.Fleet.Sessions()) {
		j := InboxItemJSON{Item: it, Age: it.Age(now)}
		j.Preview, _ = s.opts.Fleet.Peek(it.Session, previewRows)
		if it.Kind == inbox.Input {
			if p, err := s.opts.Fleet.Prompt(it.Session); err != nil {
				j.PromptError = err.Error()
			} else {
				j.Prompt = &PromptJSON{Family: p.Family, Question: p.Question, Options: p.Labels, Multi: p.Multi}
			}
		}
		out.Items = append(out.Items, j)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(out)
}

// previewRows is how many rows of a session's screen an item shows.
const previewRows = 6

// maxAnswerBody bounds POST /api/sessions/{id}/answer's body.
const maxAnswerBody = 8 << 10

// AnswerJSON is POST /api/sessions/{id}/answer's body: answer.Choice and,
// if set, the question the user saw (refused if the screen asks another).
type AnswerJSON struct {
	answer.Choice
	Question string `json:"question,omitempty"`
}

// answerSession answers the dialog session {id} shows: 200 with the option
// chosen, 400 for a malformed answer, 409 with the reason when its
// supervisor wrote nothing.
func (s *Server) answerSession(w http.ResponseWriter, r *http.Request) {
	if err := s.originOK(r); err != nil {
		http.Error(w, err.Error(), http.StatusForbidden)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxAnswerBody))
	var req AnswerJSON
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	if err == nil {
		err = req.Choice.Check()
	}
	if err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			http.Error(w, "answer: at most 8 KiB", http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "answer: "+err.Error(), http.StatusBadRequest)
		return
	}
	id := r.PathValue("id")
	g, err := s.opts.Fleet.Answer(id, req.Choice, req.Question)
	if err != nil {
		s.log.Info("web answer refused", "id", id, "err", err)
		http.Error(w, err.Error(), http.StatusConflict)
		return
	}
	s.log.Info("web answer", "id", id, "option", g.Option)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(map[string]any{"option": g.Option, "label": g.Label, "question": g.Question})
}
